package egress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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
	// netErr is why the proxy did not answer (a reset, a timeout); nil when it did.
	netErr error
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
	// reached are hosts this run has reached (canaries of live checks);
	// live is what live checks have cost.
	reached []Target
	live    LiveStats
}

// OptionError is an invalid option of New: Option names it (canary,
// status-url).
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// New validates opts and returns a Prober; an invalid option is an *OptionError.
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
			return nil, &OptionError{Option: "canary", Err: fmt.Errorf("invalid egress canary %q: want HOST:PORT", opts.Canary)}
		}
		p.canary = &t
	}
	switch s := strings.TrimSpace(opts.StatusURL); {
	case s == "" || strings.EqualFold(s, StatusOff):
	default:
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &OptionError{Option: "status-url", Err: fmt.Errorf("invalid egress status URL: want an http(s) URL or %q", StatusOff)}
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
	r := p.ProbeVia(ctx, proxy, target)
	if r.Verdict == Allowed {
		p.NoteReached(target) // a canary for later live checks
	}
	return r
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
