package httpstep

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	c := &http.Client{Transport: rt}
	if follow {
		c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return errTooManyRedirects
			}
			return nil
		}
	} else {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}
