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
	reNotTLS      = LazyRE(`server gave HTTP response to HTTPS client|first record does not look like a TLS handshake`)
	reGoEOF       = LazyRE(`unexpected EOF|: EOF\s*$|: EOF[;)]`)
	reGoCancelled = LazyRE(`context canceled|operation was canceled`)
	// `Get "https://h/": Forbidden` (Go >= 1.14) or `Get https://h/: proxyconnect tcp: ...`
	reGoURL    = LazyRE(`\b(?:Get|Head|Post|Put|Patch|Delete|Options) "?(https?://[^\s"]+?)"?: (.*)`)
	reTunnelTo = LazyRE(`(?:Establish HTTP proxy tunnel to|> CONNECT) (\[[^\]]+\]:\d+|[^\s:/]+:\d+)`)
	// `Get "https://h/": Service Unavailable` (Go ≥1.14) or `Get https://h/: Forbidden`.
	reGoBarePhrase = LazyRE(`\b(?:Get|Head|Post|Put|Patch|Delete|Options) "?https?://[^\s"]+"?: ([A-Za-z][A-Za-z -]*[A-Za-z])\s*$`)
)

var goTextMatchers = []Matcher{
	{
		Gates: []string{"gave HTTP response to HTTPS client", "does not look like a TLS handshake"},
		RE:    reNotTLS,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodePlainHTTP, Rank: rankConfig, Reason: "server gave HTTP response to HTTPS client", Remedy: remedyNotTLS}, true
		},
	},
	{
		Gates: []string{"EOF"},
		RE:    reGoEOF,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeUnexpectedEOF, Trace: TrNet, Rank: RankTransport, Reason: "connection closed early (unexpected EOF)", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"context canceled", "operation was canceled"},
		RE:    reGoCancelled,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Unknown, Code: CodeCancelled, Rank: RankTransport, Reason: "cancelled", Remedy: "the operation was cancelled by the caller; nothing to retry"}, true
		},
	},
	{
		Gates: []string{"Get ", "Head ", "Post ", "Put ", "Patch ", "Delete ", "Options "},
		RE:    reGoBarePhrase,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			code := statusOfPhrase(m[1])
			if code == 0 {
				return Hit{}, false
			}
			// net/http reports a refused CONNECT as the bare reason phrase
			c.Facts.connectStatus = code
			h := Hit{Class: Unknown, Code: CodeProxyConnect, Trace: TrNet | trProxy | TrNotSent, Rank: rankGoPhrase, Reason: "proxy CONNECT failed: " + m[1] + " (Go drops the proxy's details)",
				Remedy: "the proxy refused or failed the tunnel and Go hides why: check the proxy's logs or X-Squid-Error with curl -v; retry by hand if it is an upstream outage"}
			switch code {
			case 403:
				h.Class, h.Code, h.Remedy = Policy, CodeProxyDenied, remedyProxy403
			case 407:
				h.Class, h.Code, h.Remedy = Policy, CodeProxyAuth, remedyProxy407
			}
			return h, true
		},
	},
	// facts only: the URL of a Go error, the tunnel of a verbose curl
	{
		Gates: []string{"Get ", "Head ", "Post ", "Put ", "Patch ", "Delete ", "Options "},
		RE:    reGoURL,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			c.Facts.URL = m[1]
			return Hit{}, false
		},
	},
	{
		Gates: []string{"Establish HTTP proxy tunnel to", "> CONNECT "},
		RE:    reTunnelTo,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			c.Facts.tunnel = m[1]
			return Hit{}, false
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
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate signed by unknown authority", RemedyEnvCert)
	case errors.As(err, &certInvalid):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate invalid", RemedyEnvCert)
	case errors.As(err, &hostname):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate does not match the host name", RemedyEnvCert)
	case errors.As(err, &sysRoots):
		return mk(Unknown, CodeTLSCertificate, false, "system root certificates unavailable", RemedyEnvCert)
	case errors.As(err, &verifyErr):
		return mk(Unknown, CodeTLSCertificate, false, "TLS certificate verification failed", RemedyEnvCert)
	case errors.As(err, &recordErr), strings.Contains(text, "server gave HTTP response to HTTPS client"):
		return mk(Structural, CodePlainHTTP, false, "server gave HTTP response to HTTPS client", remedyNotTLS)
	case errors.Is(err, context.DeadlineExceeded):
		return mk(Transient, CodeTimeout, true, "deadline exceeded", "the operation took too long: retrying (raise the timeout if it keeps happening)")
	}

	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		reason := "could not resolve host " + Clip(dnsErr.Name)
		if dnsErr.IsTimeout {
			reason = "name resolution of " + Clip(dnsErr.Name) + " timed out"
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
