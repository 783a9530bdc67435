package failure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/retrywise/retrywise/internal/redact"
)

// Go errors, as values (FromError) and as text printed by Go programs (docker,
// go mod, terraform): net/http's own wordings, and the bare reason phrase
// net/http reports when a proxy refuses CONNECT.

const remedyNotTLS = "the server speaks plain HTTP: use an http:// URL for it, or declare it insecure (docker: insecure-registries); retrying will not help"

var (
	reNotTLS      = lazyRE(`server gave HTTP response to HTTPS client|first record does not look like a TLS handshake`)
	reGoEOF       = lazyRE(`unexpected EOF|: EOF\s*$|: EOF[;)]`)
	reGoCancelled = lazyRE(`context canceled|operation was canceled`)
	// `Get "https://h/": Forbidden` (Go >= 1.14) or `Get https://h/: proxyconnect tcp: ...`
	reGoURL    = lazyRE(`\b(?:Get|Head|Post|Put|Patch|Delete|Options) "?(https?://[^\s"]+?)"?: (.*)`)
	reTunnelTo = lazyRE(`(?:Establish HTTP proxy tunnel to|> CONNECT) (\[[^\]]+\]:\d+|[^\s:/]+:\d+)`)
	// `Get "https://h/": Service Unavailable` (Go ≥1.14) or `Get https://h/: Forbidden`.
	reGoBarePhrase = lazyRE(`\b(?:Get|Head|Post|Put|Patch|Delete|Options) "?https?://[^\s"]+"?: ([A-Za-z][A-Za-z -]*[A-Za-z])\s*$`)
)

var goTextMatchers = []matcher{
	{
		gates: []string{"gave HTTP response to HTTPS client", "does not look like a TLS handshake"},
		re:    reNotTLS,
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Structural, code: CodePlainHTTP, rank: rankConfig, reason: "server gave HTTP response to HTTPS client", remedy: remedyNotTLS}, true
		},
	},
	{
		gates: []string{"EOF"},
		re:    reGoEOF,
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Transient, code: CodeUnexpectedEOF, tr: trNet, rank: rankTransport, reason: "connection closed early (unexpected EOF)", remedy: remedyRetryNet}, true
		},
	},
	{
		gates: []string{"context canceled", "operation was canceled"},
		re:    reGoCancelled,
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Unknown, code: CodeCancelled, rank: rankTransport, reason: "cancelled", remedy: "the operation was cancelled by the caller; nothing to retry"}, true
		},
	},
	{
		gates: []string{"Get ", "Head ", "Post ", "Put ", "Patch ", "Delete ", "Options "},
		re:    reGoBarePhrase,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			code := statusOfPhrase(m[1])
			if code == 0 {
				return hit{}, false
			}
			// net/http reports a refused CONNECT as the bare reason phrase
			c.facts.connectStatus = code
			h := hit{class: Unknown, code: CodeProxyConnect, tr: trNet | trProxy | trNotSent, rank: rankGoPhrase, reason: "proxy CONNECT failed: " + m[1] + " (Go drops the proxy's details)",
				remedy: "the proxy refused or failed the tunnel and Go hides why: check the proxy's logs or X-Squid-Error with curl -v; retry by hand if it is an upstream outage"}
			switch code {
			case 403:
				h.class, h.code, h.remedy = Policy, CodeProxyDenied, remedyProxy403
			case 407:
				h.class, h.code, h.remedy = Policy, CodeProxyAuth, remedyProxy407
			}
			return h, true
		},
	},
	// facts only: the URL of a Go error, the tunnel of a verbose curl
	{
		gates: []string{"Get ", "Head ", "Post ", "Put ", "Patch ", "Delete ", "Options "},
		re:    reGoURL,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			c.facts.url = m[1]
			return hit{}, false
		},
	},
	{
		gates: []string{"Establish HTTP proxy tunnel to", "> CONNECT "},
		re:    reTunnelTo,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			c.facts.tunnel = m[1]
			return hit{}, false
		},
	},
}

// statusOfPhrase returns the 4xx/5xx status whose reason phrase is p, or 0.
func statusOfPhrase(p string) int {
	for code := 400; code < 600; code++ {
		if t := http.StatusText(code); t != "" && strings.EqualFold(t, p) {
			return code
		}
	}
	return 0
}

// FromError classifies a Go error. A *Failure in the chain is returned as is;
// context.Canceled is Unknown ("cancelled"). It never returns nil. The trace
// comes from the error's types: a *net.DNSError or a failed dial (to the
// server or to the proxy, "proxyconnect") proves nothing was sent; the URL
// of a *url.Error is kept without its credentials.
func FromError(err error) *Failure {
	if err == nil {
		return New(Unknown, CodeUnknown, "no error", "nothing failed")
	}
	var f *Failure
	if errors.As(err, &f) && f != nil {
		return f
	}
	var rs *RedirectSchemeError
	if errors.As(err, &rs) {
		return redirectScheme(err, rs.Scheme)
	}
	out := classifyError(err)
	out.Err = err
	tr := errorTrace(err)
	if out.Trace.URL == "" {
		out.Trace.URL = tr.URL
	}
	switch out.Code {
	case CodeTLSCertificate, CodeTLSNegotiation, CodePlainHTTP, CodeCancelled:
		// configuration or the caller, whatever socket carried it
	default:
		if tr.Network {
			out.Trace.Network = true
			out.Trace.NotSent = out.Trace.NotSent || tr.NotSent
			out.Trace.Proxy = out.Trace.Proxy || tr.Proxy
		}
	}
	return out
}

// errorTrace reads the trace of a Go error from its types.
func errorTrace(err error) Trace {
	var t Trace
	var ue *url.Error
	if errors.As(err, &ue) {
		t.URL = redact.URL(ue.URL)
	}
	var op *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		t.Network, t.NotSent = true, true
	case errors.As(err, &op):
		t.Network = true
		switch op.Op {
		case "proxyconnect":
			t.NotSent, t.Proxy = true, true
		case "dial":
			t.NotSent = true
		}
	}
	return t
}

func classifyError(err error) *Failure {
	text := err.Error()
	mk := func(c Class, code Code, net bool, reason, remedy string) *Failure {
		out := New(c, code, reason, remedy, EvidenceLine(text))
		out.Trace.Network = net
		return out
	}

	if errors.Is(err, context.Canceled) {
		return mk(Unknown, CodeCancelled, false, "cancelled", "the operation was cancelled by the caller; nothing to retry")
	}
	var (
		unknownAuth x509.UnknownAuthorityError
		certInvalid x509.CertificateInvalidError
		hostname    x509.HostnameError
		sysRoots    x509.SystemRootsError
		verifyErr   *tls.CertificateVerificationError
		recordErr   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknownAuth):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate signed by unknown authority", remedyEnvCert)
	case errors.As(err, &certInvalid):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate invalid", remedyEnvCert)
	case errors.As(err, &hostname):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate does not match the host name", remedyEnvCert)
	case errors.As(err, &sysRoots):
		return mk(Unknown, CodeTLSCertificate, false, "system root certificates unavailable", remedyEnvCert)
	case errors.As(err, &verifyErr):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate verification failed", remedyEnvCert)
	case errors.As(err, &recordErr), strings.Contains(text, "server gave HTTP response to HTTPS client"):
		return mk(Structural, CodePlainHTTP, false, "server gave HTTP response to HTTPS client", remedyNotTLS)
	case errors.Is(err, context.DeadlineExceeded):
		return mk(Transient, CodeTimeout, true, "deadline exceeded", "the operation took too long: retrying (raise the timeout if it keeps happening)")
	}

	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		reason := "could not resolve host " + clip(dnsErr.Name)
		if dnsErr.IsTimeout {
			reason = "name resolution of " + clip(dnsErr.Name) + " timed out"
		}
		return mk(Transient, CodeDNS, true, reason, "DNS lookup failed: retrying; if it persists, check the host name and the resolver")
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return mk(Transient, CodeRefused, true, "connection refused", remedyRefused)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return mk(Transient, CodeReset, true, "connection reset", remedyRetryNet)
	case errors.Is(err, syscall.ETIMEDOUT):
		return mk(Transient, CodeTimeout, true, "connection timed out", remedyRetryNet)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return mk(Transient, CodeUnreachable, true, "host or network unreachable", remedyRetryNet)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return mk(Transient, CodeUnexpectedEOF, true, "connection closed early (unexpected EOF)", remedyRetryNet)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return mk(Transient, CodeTimeout, true, "operation timed out", "the network or the server was too slow: retrying (raise the timeout if it keeps happening)")
	}

	// Anything else: read the error text like tool output (GOAWAY, x509 text
	// from a wrapped string error, the bare CONNECT reason phrase ...).
	return FromText(ToolAuto, text, NoExitCode)
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
