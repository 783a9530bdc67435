package egress

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// Go's net/http reports a proxy's refusal of CONNECT as the bare reason phrase
// ("Forbidden"), dropping the status, X-Squid-Error and the rest.
// CaptureConnect keeps them: HTTP steps install it on their transport and get
// a classified failure instead of a phrase to guess from.

// connectBodyWait bounds how long the hook waits for a refusal's body.
const connectBodyWait = time.Second

// ConnectError is a proxy's refusal of a CONNECT sent by Go's net/http, with
// the answer net/http would otherwise drop. It is the Err of the
// *failure.Failure that CaptureConnect's hook returns.
type ConnectError struct {
	// Proxy is the proxy's host:port, never its credentials.
	Proxy string
	// Target is the CONNECT target, host:port.
	Target string
	// Answer is the proxy's answer: status, reason phrase, headers, start of the body.
	Answer failure.ProxyAnswer
	// scheme is the proxy URL's scheme, for the status endpoint.
	scheme string
}

// Error returns "proxy P refused CONNECT T: HTTP 403 Forbidden".
func (e *ConnectError) Error() string {
	return fmt.Sprintf("proxy %s refused CONNECT %s: %s", e.Proxy, e.Target, statusLine(e.Answer))
}

// CaptureConnect sets t.OnProxyConnectResponse (keeping a hook already set, which
// runs first) so that a CONNECT answered with anything but 200 fails the request
// with a *failure.Failure classified from the proxy's answer — the same
// report as a probe ("dev.to:443 is not on the egress allowlist of proxy ...") —
// whose Err is a *ConnectError. failure.FromError returns it as it is. The
// wait for a refusal's body is on the wall clock: see CaptureConnectClock.
func CaptureConnect(t *http.Transport) { CaptureConnectClock(t, nil) }

// CaptureConnectClock is CaptureConnect with the wait for a refusal's body
// (at most connectBodyWait) on clk; nil means clock.Real. The wait also ends
// when the request's context does.
func CaptureConnectClock(t *http.Transport, clk clock.Clock) {
	if clk == nil {
		clk = clock.Real{}
	}
	prev := t.OnProxyConnectResponse
	t.OnProxyConnectResponse = func(ctx context.Context, proxyURL *url.URL, req *http.Request, resp *http.Response) error {
		if prev != nil {
			if err := prev(ctx, proxyURL, req, resp); err != nil {
				return err
			}
		}
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		return connectFailure(ctx, clk, proxyURL, req.Host, resp)
	}
}

// connectFailure classifies a proxy's non-200 answer to a CONNECT for
// target (host:port) sent through proxyURL; it reads at most MaxBody of the
// answer's body, waiting at most a second for it on clk, cut short when ctx
// ends.
func connectFailure(ctx context.Context, clk clock.Clock, proxyURL *url.URL, target string, resp *http.Response) *failure.Failure {
	a := failure.ProxyAnswer{Method: http.MethodConnect, Status: resp.StatusCode, Reason: reasonPhrase(resp.Status), Header: resp.Header}
	if resp.Body != nil {
		a.Body = readBounded(ctx, clk, resp.Body, connectBodyWait)
	}
	proxy := &Proxy{URL: proxyURL, Addr: proxyAddr(proxyURL)}
	ce := &ConnectError{Proxy: proxy.Addr, Target: target, Answer: a}
	if proxyURL != nil {
		ce.scheme = proxyURL.Scheme
	}
	t, err := ParseTarget(target)
	if err != nil {
		t = Target{Scheme: "https", Host: target}
	}
	r := &Result{Target: target, Proxy: proxy.Addr}
	describe(r, proxy, t, a)
	f := r.settle().Failure()
	if f == nil { // a 2xx other than 200: net/http refuses it too
		f = failure.OddConnectSuccess(ce.Error())
	}
	f.Trace = failure.Trace{Network: true, Proxy: true, NotSent: true, ConnectStatus: a.Status}
	f.Evidence[0] = fmt.Sprintf("CONNECT %s via proxy %s: %s", target, proxy.Addr, statusLine(a))
	f.Err = ce
	return f
}

// readBounded reads at most MaxBody from r, giving up after wait on clk or
// when ctx ends; what arrived is kept only when the read ended.
func readBounded(ctx context.Context, clk clock.Clock, r io.Reader, wait time.Duration) []byte {
	type result struct{ b []byte }
	ch := make(chan result, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, MaxBody))
		ch <- result{b}
	}()
	t := clk.NewTimer(wait)
	defer t.Stop()
	select {
	case res := <-ch:
		return res.b
	case <-t.C():
		return nil // the transport closes the connection, which ends the read
	case <-ctx.Done():
		return nil
	}
}

// proxyAddr returns a proxy URL's host:port with Go's default port.
func proxyAddr(u *url.URL) string {
	if u == nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = goDefaultPort(u.Scheme)
	}
	return net.JoinHostPort(u.Hostname(), port)
}
