package httpstep

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
)

// MaxRedirects is the most redirects a client from NewClient follows (10).
const MaxRedirects = 10

// errTooManyRedirects ends a redirect chain longer than MaxRedirects.
var errTooManyRedirects = errors.New("stopped after " + fmt.Sprint(MaxRedirects) + " redirects")

// TransportOptions configures NewTransport.
type TransportOptions struct {
	// Proxy chooses the proxy for a request; nil means http.ProxyFromEnvironment.
	Proxy func(*http.Request) (*url.URL, error)
}

// NewTransport returns the transport of every HTTP request retrywise sends
// (http steps and the GitHub API): http.DefaultTransport's settings, with the
// proxy from the environment. It is the one place where transports are
// built, so that egress hooks (a Transport.OnProxyConnectResponse capture of
// the proxy's CONNECT answer) are added once for every caller.
func NewTransport(o TransportOptions) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if o.Proxy != nil {
		t.Proxy = o.Proxy
	}
	return t
}

// NewClient returns a client over rt that follows at most MaxRedirects
// redirects, or none when follow is false (the 3xx answer is returned).
// Timeouts are per attempt (Options.Timeout), not on the client.
func NewClient(rt http.RoundTripper, follow bool) *http.Client {
	return NewClientSecrets(rt, follow, nil)
}

// NewClientSecrets is NewClient whose redirects also strip, when the
// origin changes, the headers whose value isSecret reports (the registered
// secrets, redact.Redactor.Masks); nil means none beyond the credential
// headers (StripCredentials).
//
// A redirect is followed only to http or https (another scheme is an
// UnsupportedSchemeError), and one that leaves the first request's host
// (SameOrigin: another host name, a subdomain included, another port, or a
// downgrade to http; Go's own rule ignores the port and keeps Authorization
// and Cookie for a subdomain) drops the credential headers.
func NewClientSecrets(rt http.RoundTripper, follow bool, isSecret func(string) bool) *http.Client {
	c := &http.Client{Transport: rt}
	if follow {
		c.CheckRedirect = FollowPolicy(isSecret)
	} else {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

// FollowPolicy is the redirect policy of retrywise's clients, an
// http.Client's CheckRedirect: at most MaxRedirects redirects, only to http
// or https (another scheme is an UnsupportedSchemeError, nothing is sent),
// and the credential headers (StripCredentials, with isSecret) dropped when
// the redirect leaves the first request's host (SameOrigin). The GitHub
// API client adds its token per request, to the API's origin only
// (internal/ghapi), on top of this.
func FollowPolicy(isSecret func(string) bool) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return errTooManyRedirects
		}
		if sc := strings.ToLower(req.URL.Scheme); sc != "http" && sc != "https" {
			return &UnsupportedSchemeError{Scheme: req.URL.Scheme}
		}
		if !SameOrigin(via[0].URL, req.URL) {
			StripCredentials(req.Header, isSecret)
		}
		return nil
	}
}

// UnsupportedSchemeError ends a redirect to a scheme other than http(s),
// such as file://; failure.FromError reads it as
// http-redirect-unsupported-scheme wherever it ends up.
type UnsupportedSchemeError = failure.RedirectSchemeError

// SameOrigin reports whether a redirect from a to b stays on the same
// host: the same host name (case and a trailing dot aside; a subdomain is
// another host) and port (the scheme's default when none), and the same
// scheme, or an upgrade from http to https on the same name (port 80 to
// 443 included). A downgrade to http is another origin.
func SameOrigin(a, b *url.URL) bool {
	ka := HostKey(a.Scheme, strings.TrimSuffix(a.Host, "."))
	kb := HostKey(b.Scheme, strings.TrimSuffix(b.Host, "."))
	ha, pa, _ := net.SplitHostPort(ka)
	hb, pb, _ := net.SplitHostPort(kb)
	if ha != hb {
		return false
	}
	sa, sb := strings.ToLower(a.Scheme), strings.ToLower(b.Scheme)
	switch {
	case sa == sb:
		return pa == pb
	case sa == "http" && sb == "https":
		return pa == pb || pa == "80" && pb == "443"
	}
	return false
}

// alwaysStripped are the credential headers a cross-origin redirect never
// carries; any other header whose name redact.CredentialName reports (api-key,
// x-api-key, x-auth-token, private-token, ...) is stripped too.
var alwaysStripped = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "WWW-Authenticate"}

// StripCredentials deletes from h the credential headers: those of
// alwaysStripped, those whose name marks a credential (redact.CredentialName)
// and those whose value isSecret reports.
func StripCredentials(h http.Header, isSecret func(string) bool) {
	for _, name := range alwaysStripped {
		h.Del(name)
	}
	for name, vs := range h {
		if redact.CredentialName(name) {
			delete(h, name)
			continue
		}
		for _, v := range vs {
			if isSecret != nil && isSecret(v) {
				delete(h, name)
				break
			}
		}
	}
}
