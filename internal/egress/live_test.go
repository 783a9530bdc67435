package egress

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// netFailure is a network-level failure of a request to url, as a
// recogniser reads one (curl's or Go's words).
func netFailure(code failure.Code, url string) *failure.Failure {
	f := failure.New(failure.Transient, code, string(code)+" to "+url, "", "error: "+string(code))
	f.Trace.Network, f.Trace.URL = true, url
	return f
}

// checkBudget holds one live check to its budget: at most two probes and
// two seconds.
func checkBudget(t *testing.T, p *Prober, before LiveStats) {
	t.Helper()
	s := p.LiveStats()
	checks, probes, took := s.Checks-before.Checks, s.Probes-before.Probes, s.Elapsed-before.Elapsed
	if checks != 1 || probes > LiveProbes || took > LiveBudget {
		t.Errorf("live check cost %d check(s), %d probe(s), %s; want 1, at most %d, at most %s", checks, probes, took, LiveProbes, LiveBudget)
	}
	t.Logf("live check: %d probe(s) in %s", probes, took)
}

// Direct: the target refuses, the canary answers, and the step runs behind
// a sandbox: egress-blocked, with both probes as evidence. The second
// failure of the same step is not probed again.
func TestLiveRefusedTargetCanaryFineIsEgressBlocked(t *testing.T) {
	canary := "127.0.0.1:" + upstream(t)
	env := []string{"COPILOT_AGENT_FIREWALL_ENABLED=true"}
	p := newProber(t, Options{Env: env, Canary: canary})
	url := "https://127.0.0.1:" + closedPort(t) + "/"
	d := p.Diagnose(Step{URL: url, Env: env})
	before := p.LiveStats()
	f := netFailure(failure.CodeRefused, url)
	got := d(context.Background(), f)
	if got.Class != failure.Policy || got.Code != failure.CodeEgressBlocked {
		t.Fatalf("got %s %s: %s\n%v", got.Class, got.Code, got.Reason, got.Evidence)
	}
	ev := strings.Join(got.Evidence, "\n")
	for _, want := range []string{"live probe of the target 127.0.0.1:", ": refused", "live probe of the canary " + canary + " (direct): connected"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	if !errors.Is(got, f) {
		t.Error("the live verdict does not wrap the failure")
	}
	checkBudget(t, p, before)
	if again := d(context.Background(), f); again != f && again.Code == failure.CodeEgressBlocked {
		t.Error("a second failure of the step was probed again")
	}
}

// Without an allowlisting environment a refusal stays transient: nothing
// says a policy refused it.
func TestLiveRefusedWithoutAllowlistStaysTransient(t *testing.T) {
	canary := "127.0.0.1:" + upstream(t)
	p := newProber(t, Options{Env: []string{}, Canary: canary})
	url := "https://127.0.0.1:" + closedPort(t) + "/"
	got := p.Diagnose(Step{URL: url, Env: []string{}})(context.Background(), netFailure(failure.CodeRefused, url))
	if got.Class != failure.Transient || got.Code != failure.CodeRefused {
		t.Fatalf("got %s %s", got.Class, got.Code)
	}
}

// Both fail: the network is down, transient.
func TestLiveBothFailingIsTransient(t *testing.T) {
	env := []string{"COPILOT_AGENT_FIREWALL_ENABLED=true"}
	p := newProber(t, Options{Env: env, Canary: "127.0.0.1:" + closedPort(t)})
	url := "https://127.0.0.1:" + closedPort(t) + "/"
	before := p.LiveStats()
	got := p.Diagnose(Step{URL: url, Env: env})(context.Background(), netFailure(failure.CodeRefused, url))
	if got.Class != failure.Transient || !strings.Contains(got.Reason, "the network is down") {
		t.Fatalf("got %s %s: %s", got.Class, got.Code, got.Reason)
	}
	checkBudget(t, p, before)
}

// The target answers again: transient, retried, and the canary is not
// needed.
func TestLiveTargetFineNowIsTransient(t *testing.T) {
	env := []string{"COPILOT_AGENT_FIREWALL_ENABLED=true"}
	p := newProber(t, Options{Env: env, Canary: "127.0.0.1:" + upstream(t)})
	url := "https://127.0.0.1:" + upstream(t) + "/"
	got := p.Diagnose(Step{URL: url, Env: env})(context.Background(), netFailure(failure.CodeReset, url))
	if got.Class != failure.Transient || !strings.Contains(got.Reason, "a live probe reaches 127.0.0.1:") {
		t.Fatalf("got %s %s: %s", got.Class, got.Code, got.Reason)
	}
}

// A sinkholed target (0.0.0.0, not dialled), with a canary this run has
// already reached (no --egress-canary): egress-blocked.
func TestLiveSinkholedWithReachedCanary(t *testing.T) {
	env := []string{"CODEX_SANDBOX=seatbelt"}
	p := newProber(t, Options{Env: env})
	p.NoteReached(mustTarget(t, "127.0.0.1:"+upstream(t)))
	url := "https://0.0.0.0:443/"
	got := p.Diagnose(Step{URL: url, Env: env})(context.Background(), netFailure(failure.CodeRefused, url))
	if got.Class != failure.Policy || got.Code != failure.CodeEgressBlocked || !strings.Contains(got.Reason, "sinkholed") {
		t.Fatalf("got %s %s: %s\n%v", got.Class, got.Code, got.Reason, got.Evidence)
	}
}

// Squid's deny_info TCP_RESET: a denial that reads as a reset. The proxy
// probe sees the reset, the canary goes through the same Squid: the reset
// is a denial, egress-blocked.
func TestLiveSquidTCPResetDenialIsEgressBlocked(t *testing.T) {
	sq, err := proxytest.StartSquid(proxytest.SquidOptions{DenyReset: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	env := []string{"HTTPS_PROXY=" + sq.URL}
	canary := "up.allowed.test:" + upstream(t)
	p := newProber(t, Options{Env: env, Canary: canary})
	url := "https://blocked.example.com/"
	before := p.LiveStats()
	start := time.Now()
	got := p.Diagnose(Step{URL: url, Env: env})(context.Background(), netFailure(failure.CodeReset, url))
	if got.Class != failure.Policy || got.Code != failure.CodeEgressBlocked {
		t.Fatalf("got %s %s: %s\n%v", got.Class, got.Code, got.Reason, got.Evidence)
	}
	ev := strings.Join(got.Evidence, "\n")
	for _, want := range []string{"target blocked.example.com:443 (via proxy " + sq.Addr + "): reset", "canary " + canary + " (via proxy " + sq.Addr + "): connected"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	// the proxy probe (one CONNECT) and the canary (one CONNECT)
	if n, _ := sq.CountLog("blocked.example.com"); n > 1 {
		t.Errorf("the target was asked %d times", n)
	}
	checkBudget(t, p, before)
	t.Logf("Squid TCP_RESET denial decided in %s", time.Since(start))
}

// A proxy that accepts and never answers: the proxy probe and the canary
// both time out (within the prober's timeout and the live budget): the
// network is down, transient; the live check stays within its budget.
func TestLiveStalledProxyIsTransientWithinBudget(t *testing.T) {
	st, err := proxytest.NewStall()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env := []string{"HTTPS_PROXY=http://" + st.Addr}
	p := newProber(t, Options{Env: env, Canary: "github.com:443", Timeout: 300 * time.Millisecond, StatusURL: StatusOff})
	url := "https://api.example.com/"
	before := p.LiveStats()
	got := p.Diagnose(Step{URL: url, Env: env})(context.Background(), netFailure(failure.CodeTimeout, url))
	if got.Class != failure.Transient || !strings.Contains(got.Reason, "the network is down") {
		t.Fatalf("got %s %s: %s\n%v", got.Class, got.Code, got.Reason, got.Evidence)
	}
	if !hasLine(got.Evidence, "live probe of the canary github.com:443 (via proxy "+st.Addr+"): timeout") {
		t.Errorf("evidence %q", got.Evidence)
	}
	checkBudget(t, p, before)
}
