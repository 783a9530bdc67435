package egress

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// run runs a real client and returns its classified failure and its output.
func run(t testing.TB, env []string, argv ...string) (*failure.Failure, string, int) {
	t.Helper()
	return runIn(t, t.TempDir(), env, argv...)
}

// runIn is run in the folder dir.
func runIn(t testing.TB, dir string, env []string, argv ...string) (*failure.Failure, string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%v: want a failure, got %v\n%s", argv, err, out.String())
	}
	tool := failure.ToolAuto
	if ClientOf(argv) == ClientCurl {
		tool = failure.ToolCurl
	}
	return failure.FromText(tool, out.String(), ee.ExitCode()), out.String(), ee.ExitCode()
}

func diagnoseRun(t *testing.T, p *Prober, env []string, argv ...string) (before, after *failure.Failure) {
	t.Helper()
	f, _, _ := run(t, env, argv...)
	d := p.Diagnose(Step{Client: ClientOf(argv), URL: URLFromArgs(argv), Args: argv})
	return f, d(context.Background(), f)
}

func TestDiagnoseRealClients(t *testing.T) {
	t.Parallel()
	down := closedPort(t)
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	t.Cleanup(gw.Close)
	for _, tc := range []struct {
		name     string
		proxy    string
		argv     []string
		class    failure.Class
		reason   string
		evidence []string
	}{
		{name: "curl through Squid to a denied host", proxy: squid.URL, argv: []string{"curl", "-sS", "https://dev.to/"}, class: failure.Policy,
			reason:   "dev.to:443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)",
			evidence: []string{"curl: (56) CONNECT tunnel failed, response 403", "X-Squid-Error: ERR_ACCESS_DENIED 0"}},
		{name: "curl through Squid, upstream down", proxy: squid.URL, argv: []string{"curl", "-sS", "https://down.allowed.test:" + down + "/"}, class: failure.Transient,
			reason: "down.allowed.test:" + down + " is unreachable behind proxy " + squid.Addr + " (Squid ERR_CONNECT_FAIL)", evidence: []string{"response 503"}},
		{name: "curl through tinyproxy to a denied host", proxy: tiny.URL, argv: []string{"curl", "-s", "https://denied.test/"}, class: failure.Policy,
			reason: "(tinyproxy 403 Filtered)"},
		{name: "curl through the sandbox gateway", proxy: gw.URL, argv: []string{"curl", "-sS", "https://dev.to/"}, class: failure.Policy,
			reason: "dev.to:443 is not on the egress allowlist of proxy " + gw.Addr + " (bare 403 to CONNECT), confirmed by the proxy's status endpoint", evidence: []string{"status endpoint: connect_rejected dev.to:443"}},
		{name: "git ls-remote through Squid", proxy: squid.URL, argv: []string{"git", "ls-remote", "https://denied.test/r.git"}, class: failure.Policy,
			reason: "denied.test:443 is not on the egress allowlist of proxy " + squid.Addr, evidence: []string{"unable to access 'https://denied.test/r.git/'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"https_proxy=" + tc.proxy}
			p := newProber(t, Options{Env: env})
			before, after := diagnoseRun(t, p, env, tc.argv...)
			if after.Class != tc.class || !strings.Contains(after.Reason, tc.reason) {
				t.Fatalf("before %v\nafter %v (%q)\nwant %s containing %q", before, after, after.Evidence, tc.class, tc.reason)
			}
			for _, e := range tc.evidence {
				if !hasLine(after.Evidence, e) {
					t.Errorf("evidence %q lacks %q", after.Evidence, e)
				}
			}
			if !errors.Is(after, before) {
				t.Error("the diagnosed failure does not wrap the client's")
			}
		})
	}
}

func TestDiagnoseLeavesOtherFailuresAlone(t *testing.T) {
	t.Parallel()
	env := []string{"https_proxy=" + squid.URL, "no_proxy=bypass.test"}
	p := newProber(t, Options{Env: env})
	for _, tc := range []struct {
		name string
		step Step
		f    *failure.Failure
	}{
		{name: "not a network failure", step: Step{Client: ClientGit, URL: "https://dev.to/r.git"},
			f: failure.FromText(failure.ToolGit, " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'https://dev.to/r.git'\n", 1)},
		{name: "git's 403 of an https remote is the server's", step: Step{Client: ClientGit, URL: "https://dev.to/r.git"},
			f: failure.FromText(failure.ToolGit, "remote: Permission to o/r.git denied to bot.\nfatal: unable to access 'https://dev.to/r.git/': The requested URL returned error: 403\n", 128)},
		{name: "a 404 of a plain-http URL is not the proxy's", step: Step{Client: ClientCurl, URL: "http://dev.to/"},
			f: failure.FromText(failure.ToolCurl, "curl: (22) The requested URL returned error: 404\n", 22)},
		{name: "no target known", step: Step{Client: ClientCurl},
			f: failure.FromText(failure.ToolCurl, "curl: (56) CONNECT tunnel failed, response 403\n", 56)},
		{name: "certificate problem (TLS inspection) is not probed", step: Step{Client: ClientCurl, URL: "https://dev.to/"},
			f: failure.FromText(failure.ToolCurl, "curl: (60) SSL certificate problem: self-signed certificate in certificate chain\n", 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Diagnose(tc.step)(context.Background(), tc.f); got != tc.f {
				t.Errorf("changed to %v", got)
			}
		})
	}
	if p.sent.Load() != 0 {
		t.Errorf("sent %d requests", p.sent.Load())
	}
}

// A target the proxy does not apply to (NO_PROXY) is not asked of the
// proxy; its network-level failure gets live evidence (one direct probe:
// no canary is known), and without a canary its class stays.
func TestDiagnoseNoProxyBypassGetsLiveEvidenceOnly(t *testing.T) {
	t.Parallel()
	port := closedPort(t)
	env := []string{"https_proxy=" + squid.URL, "no_proxy=127.0.0.1"}
	p := newProber(t, Options{Env: env})
	f := failure.FromText(failure.ToolCurl, "curl: (7) Failed to connect to 127.0.0.1 port "+port+" after 3 ms: Connection refused\n", 7)
	got := p.Diagnose(Step{Client: ClientCurl, URL: "https://127.0.0.1:" + port + "/"})(context.Background(), f)
	if got.Class != failure.Transient || got.Code != f.Code {
		t.Errorf("changed to %s %s", got.Class, got.Code)
	}
	if !hasLine(got.Evidence, "live probe of the target 127.0.0.1:"+port+" (direct): refused") {
		t.Errorf("evidence %q", got.Evidence)
	}
	if n, _ := squid.CountLog("127.0.0.1:" + port); n != 0 {
		t.Errorf("the proxy was asked %d times about a bypassed target", n)
	}
	if p.sent.Load() != 1 {
		t.Errorf("sent %d requests, want the one live probe", p.sent.Load())
	}
}

// TestDiagnoseCurlFail403OfAnHTTPSURL: with --fail, curl words the proxy's
// refused CONNECT as it words the server's 403 inside the tunnel, so that
// 403 is probed: here the proxy denies the host.
func TestDiagnoseCurlFail403OfAnHTTPSURL(t *testing.T) {
	t.Parallel()
	p := newProber(t, Options{Env: []string{"https_proxy=" + squid.URL}})
	f := failure.FromText(failure.ToolCurl, "curl: (22) The requested URL returned error: 403\n", 22)
	got := p.Diagnose(Step{Client: ClientCurl, URL: "https://dev.to/"})(context.Background(), f)
	if got.Class != failure.Policy || got.Code != failure.CodeProxyDenied {
		t.Errorf("diagnosed = %v %s: %s, want policy proxy-denied", got.Class, got.Code, got.Reason)
	}
	if p.sent.Load() != 1 {
		t.Errorf("sent %d probes, want 1", p.sent.Load())
	}
}

func TestDiagnoseProxyDown(t *testing.T) {
	t.Parallel()
	addr, _ := proxytest.ClosedAddr()
	env := []string{"https_proxy=http://" + addr}
	p := newProber(t, Options{Env: env})
	before, after := diagnoseRun(t, p, env, "curl", "-sS", "https://dev.to/")
	if before.Class != failure.Transient || after.Class != failure.Transient || !strings.Contains(after.Reason, "proxy "+addr+" is unreachable: connection refused") {
		t.Fatalf("before %v after %v", before, after)
	}
}

// TestDiagnoseForPush is the shape `retrywise push` uses: the client and the
// remote URL, no output beyond the failure's evidence. The push runs in a
// repository of its own (not wherever the tests happen to run).
func TestDiagnoseForPush(t *testing.T) {
	t.Parallel()
	work := gittest.NewWork(t, gittest.Env(t), "")
	env := []string{"https_proxy=" + squid.URL}
	f, _, _ := runIn(t, work, env, "git", "push", "https://denied.test/r.git", "HEAD:main")
	if !strings.Contains(strings.Join(f.Evidence, "\n"), "CONNECT tunnel failed, response 403") {
		t.Fatalf("git push through the denying proxy: %v %q, want the refused CONNECT the probe diagnoses", f, f.Evidence)
	}
	p := newProber(t, Options{Env: env})
	got := p.DiagnoseFor(ClientGit, "https://denied.test/r.git")(context.Background(), f)
	if got.Class != failure.Policy || !strings.Contains(got.Reason, "denied.test:443 is not on the egress allowlist of proxy "+squid.Addr) {
		t.Fatalf("before %v\nafter %v", f, got)
	}
	// the same host later in the run: the same report, no new request
	again := p.DiagnoseFor(ClientGit, "https://denied.test/other.git")(context.Background(), f)
	if again.Reason != got.Reason || p.sent.Load() != 1 {
		t.Errorf("second diagnosis %q, sent %d", again.Reason, p.sent.Load())
	}
}

func TestCaptureConnect(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	t.Cleanup(gw.Close)
	for _, tc := range []struct {
		name, proxy, reason string
		header              string
	}{
		{name: "Squid", proxy: squid.URL, reason: "dev.to:443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)", header: "ERR_ACCESS_DENIED 0"},
		{name: "gateway", proxy: gw.URL, reason: "dev.to:443 is not on the egress allowlist of proxy " + gw.Addr + " (bare 403 to CONNECT)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pu, _ := url.Parse(tc.proxy)
			tr := &http.Transport{Proxy: http.ProxyURL(pu)}
			CaptureConnect(tr)
			defer tr.CloseIdleConnections()
			_, err := (&http.Client{Transport: tr}).Get("https://dev.to/")
			if err == nil {
				t.Fatal("request through a denying proxy succeeded")
			}
			f := failure.FromError(err)
			var ce *ConnectError
			if f.Class != failure.Policy || f.Reason != tc.reason || !errors.As(err, &ce) {
				t.Fatalf("err %v\nfailure %+v", err, f)
			}
			if ce.Answer.Status != 403 || ce.Answer.Header.Get("X-Squid-Error") != tc.header || ce.Target != "dev.to:443" {
				t.Errorf("captured %+v", ce)
			}
			if tc.name == "gateway" {
				// the HTTP step's Diagnose completes a bare refusal with the status endpoint only
				p := newProber(t, Options{})
				d := p.Diagnose(Step{Client: ClientGo})(context.Background(), f)
				if d.Class != failure.Policy || !strings.Contains(d.Reason, "confirmed by the proxy's status endpoint") || p.sent.Load() != 1 || gw.Connects() != 1 {
					t.Errorf("diagnosed %v; sent %d, CONNECTs %d", d, p.sent.Load(), gw.Connects())
				}
			}
		})
	}
}

func TestCaptureConnectKeepsPreviousHook(t *testing.T) {
	t.Parallel()
	called := false
	tr := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: squid.Addr})}
	tr.OnProxyConnectResponse = func(context.Context, *url.URL, *http.Request, *http.Response) error { called = true; return nil }
	CaptureConnect(tr)
	defer tr.CloseIdleConnections()
	(&http.Client{Transport: tr}).Get("https://dev.to/")
	if !called {
		t.Error("the hook set before CaptureConnect was dropped")
	}
}

// BenchmarkPolicyVerdict measures a policy verdict on loopback, probe included:
// Diagnose of curl's "CONNECT tunnel failed, response 403", with a fresh
// Prober (no cache) each time. The target is 100 ms.
func BenchmarkPolicyVerdict(b *testing.B) {
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	f := failure.FromText(failure.ToolCurl, "curl: (56) CONNECT tunnel failed, response 403\n", 56)
	for _, bc := range []struct{ name, proxy string }{
		{"squid", squid.URL},
		{"gateway-with-status", gw.URL},
	} {
		b.Run(bc.name, func(b *testing.B) {
			env := []string{"https_proxy=" + bc.proxy}
			for b.Loop() {
				p, _ := New(Options{Env: env})
				d := p.Diagnose(Step{Client: ClientCurl, URL: "https://dev.to/"})(context.Background(), f)
				if d.Class != failure.Policy || !strings.Contains(d.Reason, "is not on the egress allowlist") {
					b.Fatalf("%v", d)
				}
			}
		})
	}
}

func TestScriptURL(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`curl -fsS "https://api.example.com/v1/items?x=1" -o out.json`, "https://api.example.com/v1/items?x=1"},
		{"set -e\ncurl -fsS https://a.example/x\necho done", "https://a.example/x"},
		{"curl https://a.example/ && curl https://a.example/", "https://a.example/"},
		{"curl https://a.example/ && curl https://b.example/", ""},
		{"make publish", ""},
	} {
		if got := ScriptURL(tc.script); got != tc.want {
			t.Errorf("ScriptURL(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
}
