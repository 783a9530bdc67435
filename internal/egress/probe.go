package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

const (
	// DefaultTimeout bounds each request of a probe (5 s).
	DefaultTimeout = 5 * time.Second
	// MaxBody is the most of an answer's body a probe reads (64 KiB).
	MaxBody = 64 << 10
	// StatusOff disables the status endpoint in Options.StatusURL.
	StatusOff = "off"
	// StatusPath is the status endpoint's path on the proxy.
	StatusPath = "/__agentproxy/status"
	// userAgent identifies the probe's requests in proxy logs.
	userAgent = "retrywise-probe"
)

// Verdict is a probe's answer about one target; its class and failure code
// are failure's (failure.ProbeVerdict), like every rule that turns evidence
// into a class.
type Verdict = failure.ProbeVerdict

// The verdicts.
const (
	// Unclear: the proxy answered something the probe cannot read (unknown).
	Unclear = failure.ProbeUnclear
	// Allowed: the proxy lets the target through.
	Allowed = failure.ProbeAllowed
	// Denied: the proxy refuses the target: policy, waiting will not change it.
	Denied = failure.ProbeDenied
	// UpstreamUnreachable: the proxy is up but cannot reach the target (transient).
	UpstreamUnreachable = failure.ProbeUpstreamUnreachable
	// ProxyUnreachable: the proxy itself cannot be reached or does not answer (transient).
	ProxyUnreachable = failure.ProbeProxyUnreachable
	// ProxyFailing: the proxy refuses the canary the same way: it fails for everyone (transient).
	ProxyFailing = failure.ProbeProxyFailing
	// Rejected: the proxy refuses the request's form or size (structural).
	Rejected = failure.ProbeRejected
	// Direct: no proxy applies to the target; nothing was probed.
	Direct = failure.ProbeDirect
)

// Result is what a probe learned about one target.
type Result struct {
	// Target is the probed host:port.
	Target string `json:"target"`
	// Verdict is the answer.
	Verdict Verdict `json:"kind"`
	// Proxy is the proxy's host:port, never its credentials; "" when direct.
	Proxy string `json:"proxy,omitempty"`
	// ProxySource says where the proxy came from (HTTPS_PROXY, git config http.proxy, ...).
	ProxySource string `json:"proxy_source,omitempty"`
	// Dialect names whose wording decided (Squid, tinyproxy, sandbox gateway, ...).
	Dialect string `json:"dialect,omitempty"`
	// ProxyError is the dialect's own word for it (ERR_ACCESS_DENIED, Filtered, ...).
	ProxyError string `json:"proxy_error,omitempty"`
	// Code is the failure code of the finding (proxy-denied, proxy-unreachable, ...); "" when allowed or direct.
	Code failure.Code `json:"code,omitempty"`
	// Reason says in one line what the probe found.
	Reason string `json:"reason"`
	// Remedy says what to do; empty when nothing is to be done.
	Remedy string `json:"remedy,omitempty"`
	// Evidence quotes the answers the verdict rests on.
	Evidence []string `json:"evidence,omitempty"`
	// Misconfigured is true when the proxy's status says the target should not go through it at all.
	Misconfigured bool `json:"misconfigured,omitempty"`
	// Cached is true when the result was reused from an earlier probe of this run.
	Cached bool `json:"cached,omitempty"`
	// Requests counts the requests this result cost (probe, status, canary).
	Requests int `json:"requests"`
	// Elapsed is how long the probe took.
	Elapsed time.Duration `json:"elapsed_ns"`

	// answerCode is the failure code of the proxy's own answer.
	answerCode failure.Code
}

// Probe returns the finding as failure reads it (failure.FromProbe).
func (r *Result) Probe() failure.Probe {
	return failure.Probe{Verdict: r.Verdict, Code: r.answerCode, Reason: r.Reason, Remedy: r.Remedy, Evidence: r.Evidence}
}

// Failure returns the result as a failure; nil when the target is allowed or direct.
func (r *Result) Failure() *failure.Failure {
	if r == nil {
		return nil
	}
	return r.Probe().Failure()
}

// settle fills in the finding's failure code once the verdict is final.
func (r *Result) settle() *Result {
	r.Code = r.Probe().FailureCode()
	return r
}

// Options configures a Prober.
type Options struct {
	// Env is the environment proxies are discovered from; nil means os.Environ().
	Env []string
	// Dir is the working directory for git's configuration.
	Dir string
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// StatusURL is the status endpoint: "" derives it from the proxy
	// (PROXY/__agentproxy/status), StatusOff disables it.
	StatusURL string
	// Canary is a host:port known to be allowed; when set, a bare denial is
	// checked with a control CONNECT to it.
	Canary string
	// Dial opens TCP connections; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Prober asks forward proxies about targets. One Prober serves one run: it
// caches each answer per proxy and target, so a later failure for the same
// host stops at once with the same report. It is safe for concurrent use.
type Prober struct {
	opts    Options
	canary  *Target
	statusU *url.URL

	mu    sync.Mutex
	cache map[string]*Result
	sent  atomic.Int64
}

// New validates opts and returns a Prober.
func New(opts Options) (*Prober, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Dial == nil {
		d := &net.Dialer{}
		opts.Dial = d.DialContext
	}
	p := &Prober{opts: opts, cache: map[string]*Result{}}
	if opts.Canary != "" {
		t, err := ParseTarget(opts.Canary)
		if err != nil || strings.Contains(opts.Canary, "://") {
			return nil, fmt.Errorf("invalid egress canary %q: want HOST:PORT", opts.Canary)
		}
		p.canary = &t
	}
	switch s := strings.TrimSpace(opts.StatusURL); {
	case s == "" || strings.EqualFold(s, StatusOff):
	default:
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("invalid egress status URL: want an http(s) URL or %q", StatusOff)
		}
		p.statusU = u
	}
	return p, nil
}

// Probe asks the proxy Go's net/http would use for target.
func (p *Prober) Probe(ctx context.Context, target Target) *Result {
	return p.ProbeAs(ctx, ClientGo, target)
}

// ProbeAs asks the proxy client would use for target, found with client's rules.
func (p *Prober) ProbeAs(ctx context.Context, client Client, target Target) *Result {
	d := &Discovery{Env: p.opts.Env, Dir: p.opts.Dir}
	return p.probeWith(ctx, d, client, target)
}

func (p *Prober) probeWith(ctx context.Context, d *Discovery, client Client, target Target) *Result {
	proxy, err := d.ProxyFor(ctx, client, target)
	if err != nil {
		r := &Result{Target: target.Addr(), Verdict: Unclear, Reason: "cannot probe " + target.Addr() + ": " + err.Error()}
		if proxy != nil {
			r.Proxy, r.ProxySource = proxy.Addr, proxy.Source
		}
		return r.settle()
	}
	if proxy == nil {
		return &Result{Target: target.Addr(), Verdict: Direct, Reason: target.Addr() + " is reached directly: no proxy applies to it under " + string(client) + "'s rules"}
	}
	return p.ProbeVia(ctx, proxy, target)
}

// ProbeVia asks proxy about target: one CONNECT (https) or absolute-form HEAD
// (http), then, for a bare or unclear answer, one GET of the status endpoint,
// and, for a bare denial with a canary set, one control CONNECT. Results are
// cached per proxy and target, except when the proxy could not be asked.
func (p *Prober) ProbeVia(ctx context.Context, proxy *Proxy, target Target) *Result {
	key := proxy.Addr + " " + target.Scheme + "://" + target.Addr()
	p.mu.Lock()
	if r, ok := p.cache[key]; ok {
		p.mu.Unlock()
		c := *r
		c.Cached, c.Requests, c.Elapsed = true, 0, 0
		return &c
	}
	p.mu.Unlock()

	start := time.Now()
	method := http.MethodConnect
	if target.Scheme == "http" {
		method = http.MethodHead
	}
	r := &Result{Target: target.Addr(), Proxy: proxy.Addr, ProxySource: proxy.Source}
	a, err := p.ask(ctx, proxy, target, method)
	r.Requests++
	if err != nil {
		p.unanswered(r, method, err)
	} else {
		p.judge(ctx, r, proxy, target, a)
	}
	r.settle()
	r.Elapsed = time.Since(start)
	if r.Verdict != ProxyUnreachable && r.Verdict != Unclear && ctx.Err() == nil {
		p.mu.Lock()
		p.cache[key] = r
		p.mu.Unlock()
	}
	return r
}

// judge reads a proxy's answer into r, consulting the status endpoint and the
// canary when the answer alone is not conclusive.
func (p *Prober) judge(ctx context.Context, r *Result, proxy *Proxy, target Target, a failure.ProxyAnswer) {
	rd := describe(r, proxy, target, a)
	if rd.Bare || r.Verdict == Unclear || (p.statusU != nil && r.Verdict == Denied) {
		p.consultStatus(ctx, r, proxy, target)
	}
	if p.canary != nil && rd.Bare && r.Verdict == Denied && *p.canary != target {
		p.consultCanary(ctx, r, proxy, a, rd)
	}
}

// describe reads a proxy's answer about target into r: verdict, reason,
// remedy and evidence. It sends nothing.
func describe(r *Result, proxy *Proxy, target Target, a failure.ProxyAnswer) failure.ProxyReading {
	rd := failure.ReadProxyAnswer(a)
	r.Dialect, r.ProxyError = rd.Dialect, rd.Code
	if rd.Failure != nil {
		r.answerCode = rd.Failure.Code
	}
	method := a.Method
	if method == "" {
		method = http.MethodConnect
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("probe: %s %s via proxy %s: %s", method, target.Addr(), proxy.Addr, statusLine(a)))
	if rd.Failure != nil && len(rd.Failure.Evidence) > 1 {
		r.Evidence = append(r.Evidence, rd.Failure.Evidence[1:]...)
	}
	label := rd.Label(a)
	host := target.Host

	switch rd.Verdict {
	case failure.ProxyAllowed:
		r.Verdict = Allowed
		r.Reason = fmt.Sprintf("proxy %s lets %s through (%s)", proxy.Addr, target.Addr(), statusLine(a))
	case failure.ProxyDenied:
		r.Verdict = Denied
		r.Reason = fmt.Sprintf("%s is not on the egress allowlist of proxy %s (%s)", target.Addr(), proxy.Addr, label)
		r.Remedy = fmt.Sprintf("Waiting will not change this: add %s to the allowlist, or run where it is allowed.", host)
	case failure.ProxyAuthRequired:
		r.Verdict = Denied
		r.Reason = fmt.Sprintf("proxy %s refuses %s without valid proxy credentials (%s)", proxy.Addr, target.Addr(), label)
		r.Remedy = "Waiting will not change this: give the client proxy credentials that are allowed (https_proxy=http://USER:PASSWORD@HOST:PORT)."
	case failure.ProxyUpstreamFailed:
		r.Verdict = UpstreamUnreachable
		r.Reason = fmt.Sprintf("%s is unreachable behind proxy %s (%s)", target.Addr(), proxy.Addr, label)
		r.Remedy = "the proxy allows the host but cannot reach it: an outage behind the proxy; retrying"
	case failure.ProxyRejected:
		r.Verdict = Rejected
		r.Reason = fmt.Sprintf("proxy %s rejected the request for %s (%s)", proxy.Addr, target.Addr(), label)
		r.Remedy = rd.Failure.Remedy
	default:
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("proxy %s answered %s for %s", proxy.Addr, statusLine(a), target.Addr())
		if rd.Failure != nil {
			r.Remedy = rd.Failure.Remedy
		}
	}
	return rd
}

// unanswered records a request the proxy did not answer.
func (p *Prober) unanswered(r *Result, method string, err error) {
	switch {
	case errors.Is(err, ErrUnsupportedProxy):
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("cannot probe through proxy %s: %v", r.Proxy, err)
		return
	case errors.Is(err, errNotHTTP):
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("proxy %s did not answer %s with HTTP", r.Proxy, method)
		r.Evidence = append(r.Evidence, "probe: "+err.Error())
		return
	}
	why := netReason(err, p.opts.Timeout)
	r.Verdict = ProxyUnreachable
	r.Reason = fmt.Sprintf("proxy %s is unreachable: %s", r.Proxy, why)
	r.Remedy = "the proxy itself is down or not answering: retrying; if it persists, check the proxy address (" + r.ProxySource + ")"
	r.Evidence = append(r.Evidence, fmt.Sprintf("probe: %s %s via proxy %s: %s", method, r.Target, r.Proxy, why))
}

// netReason renders, in a few words, why a request to the proxy got no
// answer, from failure's reading of the error (failure.FromError).
func netReason(err error, timeout time.Duration) string {
	f := failure.FromError(err)
	switch {
	case f.Code == failure.CodeTimeout:
		return "no answer within " + timeout.String()
	case f.Code == failure.CodeUnexpectedEOF:
		return "the proxy closed the connection without answering"
	case !f.Recognised():
		return err.Error()
	}
	return f.Reason
}

// statusLine renders an answer's status as "HTTP 403 Filtered".
func statusLine(a failure.ProxyAnswer) string {
	s := "HTTP " + strconv.Itoa(a.Status)
	if a.Reason != "" {
		return s + " " + a.Reason
	}
	if t := http.StatusText(a.Status); t != "" {
		return s + " " + t
	}
	return s
}

var errNotHTTP = errors.New("not an HTTP answer")

// ask sends one request for target to proxy and reads the answer: status,
// headers and at most MaxBody of body, within the timeout.
func (p *Prober) ask(ctx context.Context, proxy *Proxy, target Target, method string) (failure.ProxyAnswer, error) {
	if proxy.URL.Scheme != "http" && proxy.URL.Scheme != "https" {
		return failure.ProxyAnswer{}, fmt.Errorf("%w %q: only http and https proxies are probed", ErrUnsupportedProxy, proxy.URL.Scheme)
	}
	p.sent.Add(1)
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	conn, err := p.opts.Dial(ctx, "tcp", proxy.Addr)
	if err != nil {
		return failure.ProxyAnswer{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if proxy.URL.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: proxy.URL.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			return failure.ProxyAnswer{}, err
		}
		conn = tc
	}

	req := &http.Request{Method: method, Header: http.Header{"User-Agent": {userAgent}}, Host: target.Addr()}
	if method == http.MethodConnect {
		req.URL = &url.URL{Opaque: target.Addr()}
	} else {
		req.URL = target.URL()
		req.Close = true
	}
	if auth := proxyAuth(proxy.URL); auth != "" {
		req.Header.Set("Proxy-Authorization", auth)
	}
	if method == http.MethodConnect {
		err = req.Write(conn)
	} else {
		err = req.WriteProxy(conn)
	}
	if err != nil {
		return failure.ProxyAnswer{}, ctxErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		if ctx.Err() != nil {
			return failure.ProxyAnswer{}, ctx.Err()
		}
		var ne net.Error
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNRESET) {
			return failure.ProxyAnswer{}, err
		}
		return failure.ProxyAnswer{}, fmt.Errorf("%w: %v", errNotHTTP, err)
	}
	defer resp.Body.Close()
	a := failure.ProxyAnswer{Method: method, Status: resp.StatusCode, Reason: reasonPhrase(resp.Status), Header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// a stalled body ends at the deadline: keep what arrived
		a.Body, _ = io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	}
	return a, nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// reasonPhrase returns the phrase of a status such as "403 Filtered".
func reasonPhrase(status string) string {
	_, phrase, _ := strings.Cut(status, " ")
	return strings.TrimSpace(phrase)
}

// proxyAuth returns the Proxy-Authorization value for a proxy URL with credentials, or "".
func proxyAuth(u *url.URL) string {
	if u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
}

// consultCanary sends the control CONNECT: when the canary is refused the same
// way, the proxy fails for everyone and the denial becomes transient.
func (p *Prober) consultCanary(ctx context.Context, r *Result, proxy *Proxy, a failure.ProxyAnswer, rd failure.ProxyReading) {
	ca, err := p.ask(ctx, proxy, *p.canary, http.MethodConnect)
	r.Requests++
	if err != nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("canary: CONNECT %s: %s (no conclusion)", p.canary.Addr(), netReason(err, p.opts.Timeout)))
		return
	}
	crd := failure.ReadProxyAnswer(ca)
	r.Evidence = append(r.Evidence, fmt.Sprintf("canary: CONNECT %s via proxy %s: %s", p.canary.Addr(), proxy.Addr, statusLine(ca)))
	switch {
	case crd.Verdict == failure.ProxyAllowed:
		r.Reason += "; the canary " + p.canary.Addr() + " is allowed"
	case ca.Status == a.Status && crd.Verdict == rd.Verdict:
		r.Verdict = ProxyFailing
		r.Reason = fmt.Sprintf("proxy %s answers the canary %s the same way (%s): it is failing for everyone, not denying %s", proxy.Addr, p.canary.Addr(), rd.Label(a), r.Target)
		r.Remedy = "the proxy refuses even a host known to be allowed: an outage of the proxy, retrying; if it persists, ask the proxy's operator"
		r.Misconfigured = false
	}
}
