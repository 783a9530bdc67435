package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// A Squid that denies with a TCP reset (deny_info TCP_RESET): the http
// step's reset reads as a blip, but live evidence (the canary through the
// same Squid gets through) makes it a policy stop after one attempt.
func TestHTTPLiveEvidenceSquidResetDenial(t *testing.T) {
	sq, err := proxytest.StartSquid(proxytest.SquidOptions{DenyReset: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	canary := "up.allowed.test:" + listenPort(t)
	env := []string{"HTTPS_PROXY=" + sq.URL, "https_proxy=" + sq.URL, "HTTP_PROXY=", "http_proxy=", "NO_PROXY=", "no_proxy="}
	rep := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	r := runCLI(t, "", env, "http", "--egress-canary", canary, "--schedule", "1s,1s", "--report", rep, "https://"+uniqueHost("blocked")+"/x")
	took := time.Since(start)
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d, want 77; stderr:\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "egress-blocked", "(via proxy "+sq.Addr+"): reset", "live probe of the canary "+canary+" (via proxy "+sq.Addr+"): connected")
	if _, err := os.Stat(rep); err != nil {
		t.Errorf("no report: %v", err)
	}
	if strings.Contains(r.stderr, "attempt 2") {
		t.Errorf("retried a denial:\n%s", r.stderr)
	}
	t.Logf("one attempt, proxy probe + canary probe, stopped in %s", took)
}

// The same denial seen by curl in an exec step: curl's words for the reset,
// then live evidence through curl's own proxy.
func TestExecCurlLiveEvidenceSquidResetDenial(t *testing.T) {
	sq, err := proxytest.StartSquid(proxytest.SquidOptions{DenyReset: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	canary := "up.allowed.test:" + listenPort(t)
	env := []string{"HTTPS_PROXY=" + sq.URL, "https_proxy=" + sq.URL, "NO_PROXY=", "no_proxy="}
	r := runCLI(t, "", env, "exec", "--egress-canary", canary, "--schedule", "1s,1s", "--", "curl", "-sS", "--max-time", "5", "https://"+uniqueHost("blocked")+"/x")
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d, want 77; stderr:\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "egress-blocked", "live probe of the canary "+canary)
}

// With no --egress-canary, a host an earlier step of the run reached is
// the canary: the second step's refusal, behind a sandbox, is a policy
// stop after one attempt.
func TestJobLiveEvidenceUsesAReachedHostAsCanary(t *testing.T) {
	dir := t.TempDir()
	up := "127.0.0.1:" + listenPort(t)
	closed := "127.0.0.1:" + closedPort(t)
	job := writeFile(t, dir, "job.yml", `version: 1
jobs:
  sync:
    steps:
      - id: health
        http:
          url: http://`+up+`/
      - id: push
        http:
          url: http://`+closed+`/x
        retry: {schedule: [1s, 1s]}
`)
	env := []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "HTTPS_PROXY=", "https_proxy=", "HTTP_PROXY=", "http_proxy=", "ALL_PROXY=", "all_proxy="}
	r := runCLI(t, "", env, "run", "--config", job)
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d, want 77; stderr:\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "egress-blocked", "live probe of the target "+closed+" (direct): refused", "live probe of the canary "+up+" (direct): connected")
	if strings.Contains(r.stderr, "retrying in") {
		t.Errorf("a blocked host was retried:\n%s", r.stderr)
	}
}
