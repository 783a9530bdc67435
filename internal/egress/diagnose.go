package egress

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// DiagnoseFunc is the shape of retry.Coordinator.Diagnose: it is given a
// step's failure before the loop decides, and returns it unchanged or
// reclassified.
type DiagnoseFunc = func(ctx context.Context, f *failure.Failure) *failure.Failure

// Step describes the step whose failures a Diagnose function examines.
type Step struct {
	// Client is whose proxy rules apply; "" means the client the failure's
	// trace names (git or curl), else Go's.
	Client Client
	// URL is the target when known before running (curl's URL argument, the
	// push remote); "" means the failure's trace names it.
	URL string
	// Args is the command line (curl's -x/--noproxy and git's -c count); optional.
	Args []string
	// Dir is the command's working directory (for git's configuration).
	Dir string
	// Env is the step's environment, where its proxy settings are read;
	// nil means the prober's (Options.Env).
	Env []string
}

// DiagnoseFor returns the Diagnose function for a step of client (curl, git,
// go) whose target is targetURL: `retrywise push` passes ClientGit and the
// remote's URL. See Diagnose.
func (p *Prober) DiagnoseFor(client Client, targetURL string) DiagnoseFunc {
	return p.Diagnose(Step{Client: client, URL: targetURL})
}

// Diagnose returns the coordinator's Diagnose function for s. Given a failure
// whose trace (failure.Trace, read once by the recogniser that classified
// it) is at the network or proxy level, of traffic that went through a proxy
// under the client's rules, it probes the proxy once (cached for the run)
// and folds the finding into the failure with failure.FromProbe: a denial
// becomes policy, an outage stays transient, with the probe's evidence.
//
// Any other failure, and a target reached directly, is returned as it is,
// without a probe. Nothing is probed on success: the coordinator calls it
// only with failures.
//
// Before the first retry of a network-level failure (failure.NetworkLevel:
// a reset, refusal, DNS failure or timeout) that the proxy probe leaves
// transient, it gathers live evidence (see LiveProbes): the target and a
// canary are connected to again through the step's egress path.
func (p *Prober) Diagnose(s Step) DiagnoseFunc {
	var liveDone atomic.Bool
	return func(ctx context.Context, f *failure.Failure) *failure.Failure {
		if f == nil {
			return nil
		}
		var ce *ConnectError
		if errors.As(f, &ce) {
			return p.diagnoseConnect(ctx, f, ce)
		}
		tr := f.Trace
		if !tr.Network && !proxyMayHaveAnswered(tr.Status) {
			return f
		}
		client := s.Client
		if client == "" {
			switch tr.Client {
			case failure.ToolGit:
				client = ClientGit
			case failure.ToolCurl:
				client = ClientCurl
			default:
				client = ClientGo
			}
		}
		target, ok := diagnoseTarget(client, s.URL, tr)
		if !ok || (!tr.Network && target.Scheme != "http" && !curlTunnelStatus(client, tr.Status)) {
			// a status inside an https tunnel is the server's, not the proxy's
			return f
		}
		env := p.opts.Env
		if s.Env != nil {
			env = s.Env
		}
		d := discoveryFor(env, s, client)
		if d.Dir == "" {
			d.Dir = p.opts.Dir
		}
		r := p.probeWith(ctx, d, client, target)
		out := failure.FromProbe(f, r.Probe())
		if failure.NetworkLevel(f) && out.Class == failure.Transient && retry.RetryAhead(ctx) && liveDone.CompareAndSwap(false, true) {
			return p.liveEvidence(ctx, d, client, target, r, f, out, env)
		}
		return out
	}
}

// curlTunnelStatus reports whether a status curl reported for an https
// target may be the proxy's refusal of the tunnel: with --fail, curl
// reports a CONNECT answered 403 or 407 as "(22) The requested URL returned
// error: 403", the same words as the server's own 403 inside the tunnel.
// The probe tells them apart; an allowed tunnel leaves the server's answer.
func curlTunnelStatus(client Client, status int) bool {
	return client == ClientCurl && (status == 403 || status == 407)
}

// proxyMayHaveAnswered reports whether an HTTP status reported by a client
// for a plain-http request may be the proxy's own answer: a refusal or an
// upstream failure.
func proxyMayHaveAnswered(status int) bool {
	switch status {
	case 403, 407, 451, 500, 502, 503, 504:
		return true
	}
	return false
}

// diagnoseConnect completes a refusal captured by CaptureConnect: the answer is
// already known, so only the status endpoint and the canary may be asked.
func (p *Prober) diagnoseConnect(ctx context.Context, f *failure.Failure, ce *ConnectError) *failure.Failure {
	t, err := ParseTarget(ce.Target)
	if err != nil {
		return f
	}
	scheme := ce.scheme
	if scheme == "" {
		scheme = "http"
	}
	proxy := &Proxy{URL: &url.URL{Scheme: scheme, Host: ce.Proxy}, Addr: ce.Proxy}
	r := &Result{Target: t.Addr(), Proxy: ce.Proxy}
	p.judge(ctx, r, proxy, t, ce.Answer)
	out := failure.FromProbe(f, r.settle().Probe())
	if out != f {
		out.Err = ce
	}
	return out
}

// diagnoseTarget picks the target: git's "unable to access" URL first (what
// git actually accessed), then the step's URL, then curl's verbose tunnel line.
func diagnoseTarget(client Client, stepURL string, tr failure.Trace) (Target, bool) {
	var cands []string
	if client == ClientGit {
		cands = append(cands, tr.URL, stepURL)
	} else {
		cands = append(cands, stepURL, tr.URL)
	}
	if tr.Tunnel != "" {
		cands = append(cands, "https://"+tr.Tunnel)
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if t, err := ParseTarget(c); err == nil {
			return t, true
		}
	}
	return Target{}, false
}

// discoveryFor builds the discovery for a step, reading curl's -x/--noproxy
// and git's -c from its command line.
func discoveryFor(env []string, s Step, client Client) *Discovery {
	d := &Discovery{Env: env, Dir: s.Dir}
	switch client {
	case ClientCurl:
		d.CurlProxy, d.CurlNoProxy = curlProxyArgs(s.Args)
	case ClientGit:
		d.GitConfig = gitConfigArgs(s.Args)
	}
	return d
}

// ClientOf returns the client a command line runs (curl or git by the program's
// name, failure.ToolOf), or "" when it is neither.
func ClientOf(argv []string) Client {
	if len(argv) == 0 {
		return ""
	}
	return ClientForTool(failure.ToolOf(argv[0]))
}

// URLFromArgs returns the first http(s) URL among a command's arguments
// (curl's URL, or git's remote URL), skipping the values of curl's --proxy,
// --noproxy and similar options; "" when none.
func URLFromArgs(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if curlValueOption(a) {
			i++
			continue
		}
		if a == "--url" && i+1 < len(argv) {
			return argv[i+1]
		}
		l := strings.ToLower(a)
		if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			return a
		}
	}
	return ""
}

// ScriptURL returns the one http(s) URL a script names, quotes stripped,
// for the probe of a failure whose output does not name its target; ""
// when the script names none or several.
func ScriptURL(script string) string {
	found := ""
	for _, w := range strings.Fields(script) {
		w = strings.Trim(w, `"'`)
		l := strings.ToLower(w)
		if !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") {
			continue
		}
		if found != "" && found != w {
			return ""
		}
		found = w
	}
	return found
}

// curlValueOption reports whether a curl option takes the next argument as a
// value that may itself look like a URL.
func curlValueOption(a string) bool {
	switch a {
	case "-x", "--proxy", "--noproxy", "-e", "--referer", "--preproxy", "-U", "--proxy-user", "-H", "--header", "--proxy-header", "-d", "--data", "--data-raw", "--data-binary", "-o", "--output", "-u", "--user", "-c", "--cookie-jar", "-b", "--cookie", "-F", "--form":
		return true
	}
	return false
}

// curlProxyArgs returns curl's --proxy and --noproxy values when present (the last one wins, as in curl).
func curlProxyArgs(argv []string) (proxy, noProxy *string) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case (a == "-x" || a == "--proxy") && i+1 < len(argv):
			v := argv[i+1]
			proxy = &v
			i++
		case strings.HasPrefix(a, "-x") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			v := a[2:]
			proxy = &v
		case a == "--noproxy" && i+1 < len(argv):
			v := argv[i+1]
			noProxy = &v
			i++
		case curlValueOption(a):
			i++
		}
	}
	return proxy, noProxy
}

// gitConfigArgs returns the "-c key=value" pairs before git's subcommand.
func gitConfigArgs(argv []string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-c" && i+1 < len(argv):
			out = append(out, "-c", argv[i+1])
			i++
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			out = append(out, "-c", a[2:])
		case a == "-C" && i+1 < len(argv):
			out = append(out, "-C", argv[i+1]) // git config reads that repository's configuration
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return out // the subcommand
		}
	}
	return out
}
