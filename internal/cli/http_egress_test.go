package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// TestHTTPThroughSquidDenied: Go's CONNECT refusal is captured with its
// X-Squid-Error, classified as policy without a guess, and not retried.
func TestHTTPThroughSquidDenied(t *testing.T) {
	t.Parallel()
	host := uniqueHost("http-step-denied")
	r := runCLI(t, "", []string{"HTTPS_PROXY=" + squid.URL}, "http", "--schedule", "10s,20s", "https://"+host+"/quota")
	if r.code != exitcode.Policy || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d waits %v, want 77 and no wait\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	mustContain(t, "stderr", r.stderr,
		host+":443 is not on the egress allowlist of proxy "+squid.Addr+" (Squid ERR_ACCESS_DENIED)",
		"X-Squid-Error: ERR_ACCESS_DENIED 0")
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing: no body was received", r.stdout)
	}
}

// TestHTTPThroughSquidAllowed: the proxy comes from the command's environment
// (not the process's), and an allowed host is reached through it.
func TestHTTPThroughSquidAllowed(t *testing.T) {
	t.Parallel()
	target := "up.allowed.test:" + listenPort(t)
	r := runCLI(t, "", []string{"HTTP_PROXY=" + squid.URL}, "http", "http://"+target+"/")
	if r.code != exitcode.OK || r.stdout != "hello\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n, err := squid.WaitLog(target, 1, 5*time.Second); err != nil || n != 1 {
		t.Errorf("Squid saw %d requests for %s (%v), want 1: the step went through the proxy", n, target, err)
	}
}

// TestHTTPThroughGatewayBare403: a bare 403 to CONNECT, confirmed by the
// status endpoint, is a denial; github-quota behaves the same.
func TestHTTPThroughGatewayBare403(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	env := []string{"HTTPS_PROXY=" + gw.URL, "GITHUB_API_URL=https://dev.to/api/"}
	for _, args := range [][]string{{"http", "https://dev.to/api/articles/me"}, {"github-quota"}} {
		r := runCLI(t, "", env, args...)
		if r.code != exitcode.Policy {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		mustContain(t, "stderr", r.stderr, "dev.to:443 is not on the egress allowlist of proxy "+gw.Addr)
	}
}

// TestHTTPThroughSquidUpstreamDown: an allowed host that is down stays
// transient and follows the schedule.
func TestHTTPThroughSquidUpstreamDown(t *testing.T) {
	t.Parallel()
	target := "down.allowed.test:" + closedPort(t)
	r := runCLI(t, "", []string{"HTTPS_PROXY=" + squid.URL}, "http", "--schedule", "1s,2s", "--breaker-threshold", "0", "https://"+target+"/")
	if r.code != exitcode.Transient || !slices.Equal(r.clock.Waits(), []time.Duration{time.Second, 2 * time.Second}) {
		t.Fatalf("exit %d waits %v, want 75 after [1s 2s]\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	if !strings.Contains(r.stderr, "ERR_CONNECT_FAIL") {
		t.Errorf("no Squid evidence:\n%s", r.stderr)
	}
}
