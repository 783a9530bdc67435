package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// The package's real proxies, started by TestMain.
var (
	squid *proxytest.Squid
	tiny  *proxytest.Tinyproxy
)

// startProxies starts Squid and tinyproxy; stop kills them.
func startProxies() (stop func(), err error) {
	if squid, err = proxytest.StartSquid(proxytest.SquidOptions{}); err != nil {
		return nil, err
	}
	if tiny, err = proxytest.StartTinyproxy(proxytest.TinyproxyOptions{}); err != nil {
		squid.Close()
		return nil, err
	}
	return func() { squid.Close(); tiny.Close() }, nil
}

var hostSeq atomic.Int64

// uniqueHost returns a made-up host name not used by any other test of this
// process, so that counts in the shared Squid log are per test.
func uniqueHost(prefix string) string {
	return fmt.Sprintf("%s-%d-%d.test", prefix, os.Getpid(), hostSeq.Add(1))
}

func listenPort(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

func closedPort(t *testing.T) string {
	t.Helper()
	addr, err := proxytest.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// gitEnv keeps git away from the user's configuration and prompts.
func gitEnv(t *testing.T) []string {
	return []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0"}
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func TestProbeCommand(t *testing.T) {
	t.Parallel()
	down := closedPort(t)
	deadProxy, _ := proxytest.ClosedAddr()
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		code  int
		wants []string
	}{
		{name: "denied", env: []string{"HTTPS_PROXY=" + squid.URL}, args: []string{"dev.to"}, code: exitcode.Policy,
			wants: []string{"denied      dev.to:443: dev.to:443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)", "X-Squid-Error: ERR_ACCESS_DENIED 0", "add dev.to to the allowlist"}},
		{name: "upstream down", env: []string{"HTTPS_PROXY=" + squid.URL}, args: []string{"down.allowed.test:" + down}, code: exitcode.Transient,
			wants: []string{"unreachable down.allowed.test:" + down + ": down.allowed.test:" + down + " is unreachable behind proxy " + squid.Addr + " (Squid ERR_CONNECT_FAIL)"}},
		{name: "denied wins over unreachable", env: []string{"HTTPS_PROXY=" + squid.URL}, args: []string{"down.allowed.test:" + down, "https://dev.to/x"}, code: exitcode.Policy,
			wants: []string{"unreachable down.allowed.test", "denied      dev.to:443"}},
		{name: "NO_PROXY bypass", env: []string{"HTTPS_PROXY=" + squid.URL, "NO_PROXY=dev.to"}, args: []string{"dev.to"}, code: exitcode.OK,
			wants: []string{"direct      dev.to:443"}},
		{name: "proxy down", env: []string{"HTTPS_PROXY=http://" + deadProxy}, args: []string{"dev.to"}, code: exitcode.Transient,
			wants: []string{"unreachable dev.to:443: proxy " + deadProxy + " is unreachable: connection refused"}},
		{name: "tinyproxy with curl's rules", env: []string{"https_proxy=" + tiny.URL}, args: []string{"--client", "curl", "denied.test", "localhost:" + down}, code: exitcode.Policy,
			wants: []string{"(tinyproxy 403 Filtered)", "(tinyproxy 500 Unable to connect)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, "", tc.env, append([]string{"probe"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			mustContain(t, "stdout", r.stdout, tc.wants...)
			if n := strings.Count(strings.TrimSpace(r.stdout), "\n") + 1; n != len(tc.args)-strings.Count(strings.Join(tc.args, " "), "--client")*2 {
				t.Errorf("%d lines for %v:\n%s", n, tc.args, r.stdout)
			}
		})
	}
}

func TestProbeCommandJSON(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "", []string{"HTTPS_PROXY=" + squid.URL}, "probe", "--json", "dev.to", "localhost:1")
	var got struct {
		Results []struct {
			Verdict, Class, Target, Kind, Proxy, Dialect, Code, Reason, Remedy string
			ProxyError                                                         string `json:"proxy_error"`
			Evidence                                                           []string
		}
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
		t.Fatalf("not one JSON object (%v):\n%s", err, r.stdout)
	}
	if r.code != exitcode.Policy || got.ExitCode != r.code || len(got.Results) != 2 {
		t.Fatalf("exit %d, %+v", r.code, got)
	}
	d, l := got.Results[0], got.Results[1]
	if d.Verdict != "denied" || d.Class != "policy" || d.Dialect != "Squid" || d.ProxyError != "ERR_ACCESS_DENIED" || d.Code != "proxy-denied" || d.Proxy != squid.Addr || d.Remedy == "" {
		t.Errorf("denied result %+v", d)
	}
	if l.Verdict != "direct" || l.Class != "" || l.Proxy != "" || l.Code != "" {
		t.Errorf("loopback result %+v (Go never proxies loopback)", l)
	}
}

func TestProbeCommandBounded(t *testing.T) {
	t.Parallel()
	st, err := proxytest.NewStall()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slow := proxytest.NewGateway(proxytest.GatewayOptions{Status: proxytest.StatusSlow})
	defer slow.Close()
	for _, tc := range []struct {
		name, proxy, want string
		code              int
	}{
		{"stalling proxy", "http://" + st.Addr, "is unreachable: no answer within 100ms", exitcode.Transient},
		{"slow status endpoint", slow.URL, "status endpoint: no information (no answer within 100ms)", exitcode.Policy},
	} {
		start := time.Now()
		r := runCLI(t, "", []string{"HTTPS_PROXY=" + tc.proxy}, "probe", "--timeout", "100ms", "dev.to")
		if r.code != tc.code || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, r.code, tc.code, tc.want, r.stdout, r.stderr)
		}
		if el := time.Since(start); el > 10*time.Second { // safety net; the bound is --timeout per request
			t.Errorf("%s: took %s", tc.name, el)
		}
	}
}

func TestProbeCommandUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"probe"},
		{"probe", "ftp://x.test/"},
		{"probe", "--egress-canary", "https://x.test/", "dev.to"},
		{"probe", "--egress-status-url", "ftp://x", "dev.to"},
		{"probe", "--client", "wget", "dev.to"},
		{"probe", "--timeout", "0s", "dev.to"},
	} {
		r := runCLI(t, "", nil, args...)
		if r.code != exitcode.Usage || !strings.HasPrefix(lastLine(r.stderr), "retrywise: ") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestProbeCommandMasksProxyCredentials(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	proxyURL := strings.Replace(gw.URL, "http://", "http://egress-user:Pr0xyPassw0rd@", 1)
	for _, tc := range []struct {
		args []string
		code int
		want string // what the output says instead
	}{
		{[]string{"probe", "dev.to"}, exitcode.Policy, "of proxy " + gw.Addr + " (bare 403 to CONNECT)"},
		{[]string{"probe", "--json", "dev.to"}, exitcode.Policy, `"proxy":"` + gw.Addr + `"`},
		{[]string{"probe", "bad target/x"}, exitcode.Usage, `retrywise: invalid target "bad target/x"`},
	} {
		r := runCLI(t, "", []string{"HTTPS_PROXY=" + proxyURL}, tc.args...)
		all := r.stdout + r.stderr
		if strings.Contains(all, "Pr0xyPassw0rd") || strings.Contains(all, "egress-user") {
			t.Errorf("%v leaked the proxy credentials:\n%s", tc.args, all)
		}
		if r.code != tc.code || !strings.Contains(all, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, r.code, tc.code, tc.want, all)
		}
	}
}

// TestExecCurlThroughSquidDenied: one CONNECT from curl, one probe, no retry, exit 77.
func TestExecCurlThroughSquidDenied(t *testing.T) {
	t.Parallel()
	host := uniqueHost("exec-denied")
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", []string{"https_proxy=" + squid.URL}, "exec", "--schedule", "10s,20s", "--report", rep, "--", "curl", "-sS", "https://"+host+"/")
	if r.code != exitcode.Policy || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d waits %v, want 77 and no wait\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	reason := host + ":443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)"
	mustContain(t, "stderr", r.stderr,
		"reason:   "+reason,
		"evidence: curl: (56) CONNECT tunnel failed, response 403",
		"probe: CONNECT "+host+":443 via proxy "+squid.Addr+": HTTP 403 Forbidden",
		"X-Squid-Error: ERR_ACCESS_DENIED 0",
		"remedy:   Waiting will not change this: add "+host+" to the allowlist, or run where it is allowed.",
		"retrywise: policy: "+reason)
	b, _ := os.ReadFile(rep)
	mustContain(t, "JSON report", string(b), `"class": "policy"`, "X-Squid-Error: ERR_ACCESS_DENIED 0")
	if n, err := squid.WaitLog(host, 2, 5*time.Second); err != nil || n != 2 {
		t.Errorf("Squid saw %d requests for %s (%v), want 2: curl's CONNECT and one probe", n, host, err)
	}
}

func TestExecCurlThroughGatewayDenied(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	r := runCLI(t, "", []string{"https_proxy=" + gw.URL}, "exec", "--", "curl", "-sS", "https://dev.to/")
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr,
		"dev.to:443 is not on the egress allowlist of proxy "+gw.Addr+" (bare 403 to CONNECT), confirmed by the proxy's status endpoint",
		"status endpoint: connect_rejected dev.to:443")
	if gw.Connects() != 2 || gw.StatusRequests() != 1 {
		t.Errorf("CONNECTs %d, status GETs %d; want 2 (curl and the probe) and 1", gw.Connects(), gw.StatusRequests())
	}
}

func TestExecCanaryTurnsBareDenialTransient(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{}) // refuses everything, the canary too
	defer gw.Close()
	r := runCLI(t, "", []string{"https_proxy=" + gw.URL}, "exec", "--schedule", "1s,2s", "--egress-canary", "canary.test:443", "--", "curl", "-sS", "https://dev.to/")
	if r.code != exitcode.Transient || !slices.Equal(r.clock.Waits(), []time.Duration{time.Second, 2 * time.Second}) {
		t.Fatalf("exit %d waits %v, want 75 after the schedule\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "answers the canary canary.test:443 the same way (bare 403 to CONNECT): it is failing for everyone")
}

func TestExecGitThroughSquidDenied(t *testing.T) {
	t.Parallel()
	host := uniqueHost("git-denied")
	r := runCLI(t, "", append(gitEnv(t), "https_proxy="+squid.URL), "exec", "--", "git", "ls-remote", "https://"+host+"/r.git")
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr,
		"reason:   "+host+":443 is not on the egress allowlist of proxy "+squid.Addr+" (Squid ERR_ACCESS_DENIED)",
		"unable to access 'https://"+host+"/r.git/'", "X-Squid-Error: ERR_ACCESS_DENIED 0")
}

// TestExecPlainHTTPThroughSquidDenied: curl -f sees a 403 for a plain-http URL;
// the probe (an absolute-form HEAD) shows it is the proxy's own.
func TestExecPlainHTTPThroughSquidDenied(t *testing.T) {
	t.Parallel()
	host := uniqueHost("http-denied")
	r := runCLI(t, "", []string{"http_proxy=" + squid.URL}, "exec", "--", "curl", "-fsS", "http://"+host+"/")
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr,
		"reason:   "+host+":80 is not on the egress allowlist of proxy "+squid.Addr+" (Squid ERR_ACCESS_DENIED)",
		"curl: (22) The requested URL returned error: 403", "probe: HEAD "+host+":80 via proxy "+squid.Addr+": HTTP 403 Forbidden")
}

// TestExecAllowedHostUpstreamDown: transient, retried on the schedule, then 75;
// the probe runs once for the run (cached).
func TestExecAllowedHostUpstreamDown(t *testing.T) {
	t.Parallel()
	target := "down.allowed.test:" + closedPort(t)
	r := runCLI(t, "", []string{"https_proxy=" + squid.URL}, "exec", "--schedule", "10s,20s", "--", "curl", "-sS", "https://"+target+"/")
	if r.code != exitcode.Transient || !slices.Equal(r.clock.Waits(), []time.Duration{10 * time.Second, 20 * time.Second}) {
		t.Fatalf("exit %d waits %v, want 75 after [10s 20s]\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	mustContain(t, "stderr", r.stderr,
		"attempt 1/3 failed (transient: "+target+" is unreachable behind proxy "+squid.Addr+" (Squid ERR_CONNECT_FAIL)); retrying in 10s",
		"X-Squid-Error: ERR_CONNECT_FAIL 111")
	if n, err := squid.WaitLog(target, 4, 5*time.Second); err != nil || n != 4 {
		t.Errorf("Squid saw %d requests for %s (%v), want 4: three attempts and one probe", n, target, err)
	}
}

func TestExecProxyDown(t *testing.T) {
	t.Parallel()
	dead, _ := proxytest.ClosedAddr()
	r := runCLI(t, "", []string{"https_proxy=http://" + dead}, "exec", "--schedule", "1s", "--", "curl", "-sS", "https://dev.to/")
	if r.code != exitcode.Transient || len(r.clock.Waits()) != 1 {
		t.Fatalf("exit %d waits %v\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "proxy "+dead+" is unreachable: connection refused")
}

// TestExecSuccessIsNotProbed: the proxy sees the client's request only.
func TestExecSuccessIsNotProbed(t *testing.T) {
	t.Parallel()
	target := "up.allowed.test:" + listenPort(t)
	r := runCLI(t, "", []string{"http_proxy=" + squid.URL}, "exec", "--", "curl", "-sS", "http://"+target+"/")
	if r.code != exitcode.OK || r.stdout != "hello\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n, err := squid.WaitLog(target, 1, 5*time.Second); err != nil || n != 1 {
		t.Errorf("Squid saw %d requests for %s (%v), want 1", n, target, err)
	}
}

func TestExecNoProxyBypassIsNotProbed(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	port := closedPort(t)
	r := runCLI(t, "", []string{"https_proxy=" + gw.URL, "no_proxy=127.0.0.1"}, "exec", "--schedule", "1s", "--", "curl", "-sS", "https://127.0.0.1:"+port+"/")
	if r.code != exitcode.Transient || gw.Connects() != 0 || gw.StatusRequests() != 0 {
		t.Fatalf("exit %d, gateway CONNECTs %d status %d\n%s", r.code, gw.Connects(), gw.StatusRequests(), r.stderr)
	}
	if strings.Contains(r.stderr, "probe:") {
		t.Errorf("a bypassed target was probed:\n%s", r.stderr)
	}
}

func TestExecMasksProxyCredentials(t *testing.T) {
	t.Parallel()
	rep := filepath.Join(t.TempDir(), "r.json")
	proxyURL := strings.Replace(squid.URL, "http://", "http://egress-user:Pr0xyPassw0rd@", 1)
	r := runCLI(t, "", []string{"https_proxy=" + proxyURL}, "exec", "--report", rep, "--", "sh", "-c", `curl -sS -v "https://dev.to/" 2>&1 | grep -v '^[<>{}]' >&2; echo "proxy is $https_proxy" >&2; exit 56`)
	got, raw := readReport(t, rep) // fails when there is no report to check
	all := r.stdout + r.stderr + raw
	if strings.Contains(all, "Pr0xyPassw0rd") || strings.Contains(all, "egress-user") {
		t.Errorf("proxy credentials leaked:\n%s", all)
	}
	if got.Class != failure.Policy || !strings.Contains(raw, squid.Addr) {
		t.Errorf("the report does not name the proxy's denial:\n%s", raw)
	}
	if r.code != exitcode.Policy || !strings.Contains(r.stderr, "is not on the egress allowlist of proxy "+squid.Addr) {
		t.Errorf("exit %d, want 77 with the probe's report (the tunnel line names the target)\n%s", r.code, r.stderr)
	}
}

func TestEgressFlagsInHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"exec", "probe"} {
		r := runCLI(t, "", nil, cmd, "--help")
		mustContain(t, cmd+" --help", r.stdout, "--egress-status-url URL", "(default derived)", "--egress-canary HOST:PORT")
	}
	r := runCLI(t, "", nil, "probe", "--help")
	mustContain(t, "probe --help", r.stdout, "Usage: retrywise probe", "--json", "--timeout", "(default 5s)", "--client", "(default go)")
}

// TestExecCurlFailServer403ThroughAllowedTunnelStaysTheServers: curl --fail
// words the server's 403 inside an allowed tunnel as it words the proxy's
// refused CONNECT; the probe finds the tunnel allowed, so the 403 stays
// the server's (http-403, not proxy-denied), and the probe's answer is
// evidence.
func TestExecCurlFailServer403ThroughAllowedTunnelStaysTheServers(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	r := runCLI(t, "", []string{"https_proxy=" + squid.URL}, "exec", "--", "curl", "-fksS", "https://up.allowed.test:"+port+"/")
	if r.code != exitcode.Policy || !strings.Contains(r.stderr, "code:     http-403") || strings.Contains(r.stderr, "proxy-denied") {
		t.Errorf("exit %d, want 77 with the server's http-403:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "allowed") {
		t.Errorf("the probe's finding is not in the evidence:\n%s", r.stderr)
	}
}
