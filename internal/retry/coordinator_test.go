package retry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// script is a step whose attempts return the scripted failures in turn, then nil.
type script struct {
	fails    []*failure.Failure
	calls    int
	advance  time.Duration // how long each attempt takes on the fake clock
	clk      *clock.Fake
	canRetry bool
	why      string
}

func (s *script) Attempt(ctx context.Context, n int) error {
	s.calls++
	if s.clk != nil && s.advance > 0 {
		s.clk.Advance(s.advance)
	}
	if n-1 < len(s.fails) {
		return s.fails[n-1]
	}
	return nil
}

func (s *script) CanRetry(*failure.Failure) (bool, string) { return s.canRetry, s.why }

func transient(reason string) *failure.Failure {
	return failure.New(failure.Transient, failure.CodeTimeout, reason, "")
}

func repeat(f *failure.Failure, n int) []*failure.Failure {
	out := make([]*failure.Failure, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func secs(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, s := range v {
		out[i] = time.Duration(s) * time.Second
	}
	return out
}

func TestCoordinatorWaits(t *testing.T) {
	tests := []struct {
		name        string
		policy      Policy
		failures    int
		wantWaits   []time.Duration
		wantCalls   int
		wantStop    Stop
		wantOK      bool
		wantAttempt int
	}{
		{"default exec schedule exhausted", Policy{Schedule: secs(10, 20, 60), MaxElapsed: time.Hour}, 99, secs(10, 20, 60), 4, StopAttemptsExhausted, false, 4},
		{"git push schedule exhausted", Policy{Schedule: secs(2, 4, 8, 16), MaxElapsed: time.Hour}, 99, secs(2, 4, 8, 16), 5, StopAttemptsExhausted, false, 5},
		{"recovers after two", Policy{Schedule: secs(2, 4, 8, 16), MaxElapsed: time.Hour}, 2, secs(2, 4), 3, StopSucceeded, true, 3},
		{"first try succeeds", Policy{Schedule: secs(2, 4), MaxElapsed: time.Hour}, 0, nil, 1, StopSucceeded, true, 1},
		{"more attempts repeat last wait", Policy{Schedule: secs(10, 20), MaxAttempts: 5, MaxElapsed: time.Hour}, 99, secs(10, 20, 20, 20), 5, StopAttemptsExhausted, false, 5},
		{"fewer attempts cut the schedule", Policy{Schedule: secs(10, 20, 60), MaxAttempts: 2, MaxElapsed: time.Hour}, 99, secs(10), 2, StopAttemptsExhausted, false, 2},
		{"single attempt never waits", Policy{MaxAttempts: 1, MaxElapsed: time.Hour}, 99, nil, 1, StopAttemptsExhausted, false, 1},
		{"elapsed bound stops before a wait", Policy{Schedule: secs(10, 20, 60), MaxElapsed: 45 * time.Second}, 99, secs(10, 20), 3, StopElapsedExhausted, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			st := &script{fails: repeat(transient("curl 28, operation timed out"), tt.failures), canRetry: true}
			var progress []int
			c := &Coordinator{Policy: tt.policy, Clock: clk, Progress: func(a Attempt, max int) { progress = append(progress, a.N) }}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if got := clk.Waits(); !slices.Equal(got, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			if st.calls != tt.wantCalls || len(out.Attempts) != tt.wantAttempt {
				t.Errorf("calls = %d, attempts = %d, want %d and %d", st.calls, len(out.Attempts), tt.wantCalls, tt.wantAttempt)
			}
			if out.Stop != tt.wantStop || out.OK() != tt.wantOK {
				t.Errorf("stop = %s ok=%v, want %s ok=%v", out.Stop, out.OK(), tt.wantStop, tt.wantOK)
			}
			if len(progress) != len(tt.wantWaits) {
				t.Errorf("progress called %d times, want one per wait (%d)", len(progress), len(tt.wantWaits))
			}
			if !tt.wantOK && (out.Final == nil || out.Final.Class != failure.Transient) {
				t.Errorf("final = %v, want the transient failure", out.Final)
			}
			if last := out.Attempts[len(out.Attempts)-1]; last.Wait != 0 {
				t.Errorf("last attempt records a wait of %s; the loop never waits after the last attempt", last.Wait)
			}
		})
	}
}

func TestCoordinatorStopsWithoutRetry(t *testing.T) {
	tests := []struct {
		name      string
		fail      *failure.Failure
		onUnknown OnUnknown
		canRetry  bool
		wantStop  Stop
		wantCalls int
	}{
		{"policy", failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403", ""), "", true, StopNotRetryable, 1},
		{"structural", failure.New(failure.Structural, failure.CodeGitNonFastForward, "non-fast-forward", ""), "", true, StopNotRetryable, 1},
		{"absent", failure.New(failure.Absent, failure.HTTPCode(404), "HTTP 404", ""), "", true, StopNotRetryable, 1},
		{"unknown stops by default", failure.New(failure.Unknown, failure.CodeUnknown, "unrecognised", ""), "", true, StopNotRetryable, 1},
		{"unknown retried on request", failure.New(failure.Unknown, failure.CodeUnknown, "unrecognised", ""), UnknownRetry, true, StopAttemptsExhausted, 3},
		{"transient but cannot retry in context", transient("HTTP 503"), "", false, StopCannotRetry, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			st := &script{fails: repeat(tt.fail, 10), canRetry: tt.canRetry, why: "POST is not idempotent"}
			c := &Coordinator{Policy: Policy{Schedule: secs(1, 2), MaxElapsed: time.Minute, OnUnknown: tt.onUnknown}, Clock: clk}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tt.wantStop || st.calls != tt.wantCalls {
				t.Fatalf("stop = %s after %d calls, want %s after %d", out.Stop, st.calls, tt.wantStop, tt.wantCalls)
			}
			if out.Final != tt.fail {
				t.Errorf("final = %v, want %v", out.Final, tt.fail)
			}
			if tt.wantStop == StopCannotRetry && out.Detail != "POST is not idempotent" {
				t.Errorf("detail = %q, want the step's reason", out.Detail)
			}
		})
	}
}

func TestCoordinatorRetryAfter(t *testing.T) {
	rl := func(d time.Duration) *failure.Failure {
		f := transient("HTTP 429")
		f.RetryAfter = d
		return f
	}
	tests := []struct {
		name      string
		fails     []*failure.Failure
		wantWaits []time.Duration
		wantStop  Stop
	}{
		{"longer retry-after replaces the wait", []*failure.Failure{rl(30 * time.Second)}, secs(30), StopSucceeded},
		{"shorter retry-after keeps the scheduled wait", []*failure.Failure{rl(2 * time.Second)}, secs(10), StopSucceeded},
		{"retry-after at the cap is honoured", []*failure.Failure{rl(time.Minute)}, secs(60), StopSucceeded},
		{"retry-after over the cap stops", []*failure.Failure{rl(10 * time.Minute)}, nil, StopRetryAfterOverCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			c := &Coordinator{Policy: Policy{Schedule: secs(10, 20), MaxElapsed: time.Hour, RetryAfterCap: time.Minute}, Clock: clk}
			out, err := c.Run(context.Background(), &script{fails: tt.fails, canRetry: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(clk.Waits(), tt.wantWaits) || out.Stop != tt.wantStop {
				t.Fatalf("waits %v stop %s, want %v %s", clk.Waits(), out.Stop, tt.wantWaits, tt.wantStop)
			}
			if tt.wantStop == StopRetryAfterOverCap && out.Detail != "the server asked to wait 10m0s, over the retry-after cap of 1m0s" {
				t.Errorf("detail = %q", out.Detail)
			}
		})
	}
}

func TestCoordinatorElapsedCountsAttemptTime(t *testing.T) {
	// Each attempt takes 20s and each wait 10s: attempt 1 ends at 20s, attempt 2
	// at 50s, attempt 3 at 80s.
	tests := []struct {
		name       string
		maxElapsed time.Duration
		wantCalls  int
		wantDetail string
	}{
		{"a wait that ends at the bound leaves no time for an attempt", time.Minute, 2, "the loop reached its max elapsed time of 1m0s before attempt 3"},
		{"the bound falls inside an attempt", 65 * time.Second, 3, "the loop reached its max elapsed time of 1m5s during attempt 3"},
		{"the next wait would cross the bound", 85 * time.Second, 3, "waiting 10s more would cross the max elapsed time of 1m25s (1m20s spent)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			st := &script{fails: repeat(transient("timeout"), 10), canRetry: true, clk: clk, advance: 20 * time.Second}
			c := &Coordinator{Policy: Policy{Schedule: secs(10), MaxAttempts: 10, MaxElapsed: tt.maxElapsed}, Clock: clk}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != StopElapsedExhausted || st.calls != tt.wantCalls || out.Detail != tt.wantDetail {
				t.Fatalf("stop = %s after %d attempts (%q), want elapsed after %d (%q)", out.Stop, st.calls, out.Detail, tt.wantCalls, tt.wantDetail)
			}
			if out.Attempts[0].Duration != 20*time.Second || out.Attempts[0].Wait != 10*time.Second {
				t.Errorf("attempt record = %+v", out.Attempts[0])
			}
			if !slices.Equal(clk.Waits(), secs(10, 10)) {
				t.Errorf("waits = %v, want [10s 10s]", clk.Waits())
			}
		})
	}
}

// blocker is a step whose attempts block until their context ends, as a hung
// request or child does; started receives each attempt's number as it begins.
type blocker struct{ started chan int }

func (b *blocker) Attempt(ctx context.Context, n int) error {
	b.started <- n
	<-ctx.Done()
	return failure.FromError(ctx.Err())
}

func (*blocker) CanRetry(*failure.Failure) (bool, string) { return true, "" }

// TestCoordinatorElapsedCancelsRunningAttempt: the bound is on the loop's
// clock, so an attempt still running when the fake clock passes it is stopped.
func TestCoordinatorElapsedCancelsRunningAttempt(t *testing.T) {
	clk := clock.NewFake(t0, false)
	st := &blocker{started: make(chan int, 1)}
	c := &Coordinator{Policy: Policy{Schedule: secs(10), MaxElapsed: time.Minute}, Clock: clk}
	done := make(chan *Outcome)
	go func() {
		out, _ := c.Run(context.Background(), st)
		done <- out
	}()
	<-st.started // the deadline is set before the first attempt starts
	clk.Advance(59 * time.Second)
	select {
	case out := <-done:
		t.Fatalf("stopped before the bound: %s %s", out.Stop, out.Detail)
	default:
	}
	clk.Advance(time.Second)
	out := <-done
	if out.Stop != StopElapsedExhausted || out.Detail != "the loop reached its max elapsed time of 1m0s during attempt 1" {
		t.Fatalf("stop = %s (%q), want elapsed during attempt 1", out.Stop, out.Detail)
	}
	if len(out.Attempts) != 1 || out.Final == nil || out.Final.Class != failure.Transient ||
		out.Attempts[0].Class != failure.Transient || out.Attempts[0].Reason != "attempt 1 was stopped at the max elapsed time of 1m0s" || out.Attempts[0].Duration != time.Minute {
		t.Fatalf("attempts = %+v final = %v; want the one attempt, transient, stopped at the bound", out.Attempts, out.Final)
	}
	if out.Cause != nil || len(clk.Waits()) != 0 || clk.Pending() != 0 {
		t.Errorf("cause %v waits %v pending %d: want no cause, no wait, the deadline released", out.Cause, clk.Waits(), clk.Pending())
	}
}

// TestCoordinatorElapsedWaitNotStarted: a wait that would cross the bound on
// the fake clock is not started; the waits before it are.
func TestCoordinatorElapsedWaitNotStarted(t *testing.T) {
	clk := clock.NewFake(t0, false)
	st := &script{fails: repeat(transient("HTTP 503"), 10), canRetry: true, clk: clk, advance: 5 * time.Second}
	c := &Coordinator{Policy: Policy{Schedule: secs(10, 30), MaxElapsed: 45 * time.Second}, Clock: clk}
	done := make(chan *Outcome)
	go func() {
		out, _ := c.Run(context.Background(), st)
		done <- out
	}()
	<-clk.TimerCreated() // attempt 1 took 5s; the 10s wait fits (15s)
	clk.Advance(10 * time.Second)
	// attempt 2 ends at 20s: 20s + 30s would cross 45s
	out := <-done
	if !slices.Equal(clk.Waits(), secs(10)) || st.calls != 2 {
		t.Fatalf("waits %v after %d attempts, want [10s] after 2", clk.Waits(), st.calls)
	}
	if out.Stop != StopElapsedExhausted || out.Detail != "waiting 30s more would cross the max elapsed time of 45s (20s spent)" || out.Attempts[1].Wait != 0 {
		t.Fatalf("stop = %s (%q) attempts %+v", out.Stop, out.Detail, out.Attempts)
	}
	if out.Final.Reason != "HTTP 503" {
		t.Errorf("final = %v, want the attempt's own failure", out.Final)
	}
}

// TestCoordinatorCancelDuringAttemptIsNotElapsed: SIGINT cancels the parent
// context while an attempt runs; that is cancellation, whatever the clock says.
func TestCoordinatorCancelDuringAttemptIsNotElapsed(t *testing.T) {
	clk := clock.NewFake(t0, false)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigErr := errors.New("received SIGINT")
	st := &blocker{started: make(chan int, 1)}
	c := &Coordinator{Policy: Policy{Schedule: secs(10), MaxElapsed: time.Minute}, Clock: clk}
	done := make(chan *Outcome)
	go func() {
		out, _ := c.Run(ctx, st)
		done <- out
	}()
	<-st.started
	clk.Advance(30 * time.Second)
	cancel(sigErr)
	out := <-done
	if out.Stop != StopCancelled || !errors.Is(out.Cause, sigErr) || out.Detail != "cancelled: received SIGINT" {
		t.Fatalf("stop = %s cause = %v (%q), want cancelled by %v", out.Stop, out.Cause, out.Detail, sigErr)
	}
	if len(out.Attempts) != 1 || clk.Pending() != 0 {
		t.Errorf("attempts %d pending %d; want the one attempt and the deadline released", len(out.Attempts), clk.Pending())
	}
}

func TestCoordinatorCancelDuringWait(t *testing.T) {
	clk := clock.NewFake(t0, false)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigErr := errors.New("received SIGTERM")
	done := make(chan *Outcome)
	c := &Coordinator{Policy: Policy{Schedule: secs(10, 20, 60), MaxElapsed: time.Hour}, Clock: clk}
	go func() {
		out, _ := c.Run(ctx, &script{fails: repeat(transient("reset"), 10), canRetry: true})
		done <- out
	}()
	<-clk.TimerCreated() // the loop is now waiting 10s
	cancel(sigErr)
	out := <-done
	if out.Stop != StopCancelled || !errors.Is(out.Cause, sigErr) {
		t.Fatalf("stop = %s cause = %v, want cancelled by %v", out.Stop, out.Cause, sigErr)
	}
	if len(out.Attempts) != 1 || out.Final == nil {
		t.Fatalf("attempts = %d final = %v; want the one attempt and its failure", len(out.Attempts), out.Final)
	}
	if clk.Pending() != 0 {
		t.Errorf("the wait's timer was not stopped")
	}
}

func TestCoordinatorDiagnoseReclassifies(t *testing.T) {
	clk := clock.NewFake(t0, true)
	denied := failure.New(failure.Policy, failure.HTTPCode(403), "dev.to:443 is not on the egress allowlist", "add dev.to to the allowlist")
	calls := 0
	c := &Coordinator{
		Policy: Policy{Schedule: secs(2, 4, 8, 16), MaxElapsed: time.Hour},
		Clock:  clk,
		Diagnose: func(ctx context.Context, f *failure.Failure) *failure.Failure {
			calls++
			return denied
		},
	}
	st := &script{fails: repeat(transient("CONNECT 403"), 10), canRetry: true}
	out, err := c.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stop != StopNotRetryable || out.Final != denied || st.calls != 1 || calls != 1 || len(clk.Waits()) != 0 {
		t.Fatalf("stop=%s final=%v attempts=%d diagnose=%d waits=%v", out.Stop, out.Final, st.calls, calls, clk.Waits())
	}
	if out.Attempts[0].Class != failure.Policy {
		t.Errorf("attempt record class = %q, want the diagnosed class", out.Attempts[0].Class)
	}
}

func TestCoordinatorDiagnoseSeesEveryFailure(t *testing.T) {
	// A bare 403 from a proxy is policy; a canary refused the same way shows the
	// proxy failing for everyone, so Diagnose turns it transient and the loop retries.
	clk := clock.NewFake(t0, true)
	bare := failure.New(failure.Policy, failure.HTTPCode(403), "proxy refused CONNECT with HTTP 403 Forbidden", "")
	failing := failure.New(failure.Transient, failure.CodeTimeout, "proxy answers the canary the same way", "")
	var seen []failure.Class
	c := &Coordinator{
		Policy: Policy{Schedule: secs(2, 4), MaxElapsed: time.Hour},
		Clock:  clk,
		Diagnose: func(ctx context.Context, f *failure.Failure) *failure.Failure {
			seen = append(seen, f.Class)
			if f == bare {
				return failing
			}
			return f
		},
	}
	st := &script{fails: []*failure.Failure{bare, failure.New(failure.Structural, failure.CodeGitNonFastForward, "non-fast-forward", "")}, canRetry: true}
	out, err := c.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []failure.Class{failure.Policy, failure.Structural}) {
		t.Errorf("Diagnose saw %v, want every failure (policy, structural)", seen)
	}
	if st.calls != 2 || out.Stop != StopNotRetryable || out.Attempts[0].Class != failure.Transient || !slices.Equal(clk.Waits(), secs(2)) {
		t.Fatalf("calls=%d stop=%s attempts=%+v waits=%v", st.calls, out.Stop, out.Attempts, clk.Waits())
	}
}

func TestCoordinatorOnlyFinalFailureSurfaced(t *testing.T) {
	clk := clock.NewFake(t0, true)
	first, second := transient("reset"), failure.New(failure.Structural, failure.CodeGitNonFastForward, "non-fast-forward", "pull --rebase")
	out, err := (&Coordinator{Policy: Policy{Schedule: secs(1), MaxElapsed: time.Minute}, Clock: clk}).
		Run(context.Background(), &script{fails: []*failure.Failure{first, second}, canRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != second || len(out.Attempts) != 2 || out.Attempts[0].Reason != "reset" || out.Attempts[1].Class != failure.Structural {
		t.Fatalf("final=%v attempts=%+v", out.Final, out.Attempts)
	}
}

func TestPolicyNormalize(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		wantErr bool
		wantMax int
	}{
		{"derives attempts", Policy{Schedule: secs(10, 20, 60), MaxElapsed: time.Minute}, false, 4},
		{"keeps explicit attempts", Policy{Schedule: secs(1), MaxAttempts: 7, MaxElapsed: time.Minute}, false, 7},
		{"no schedule one attempt", Policy{MaxElapsed: time.Minute}, false, 1},
		{"attempts without schedule", Policy{MaxAttempts: 3, MaxElapsed: time.Minute}, true, 0},
		{"unbounded elapsed", Policy{Schedule: secs(1)}, true, 0},
		{"negative attempts", Policy{Schedule: secs(1), MaxAttempts: -1, MaxElapsed: time.Minute}, true, 0},
		{"bad on-unknown", Policy{MaxElapsed: time.Minute, OnUnknown: "maybe"}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.p.Normalize()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && p.MaxAttempts != tt.wantMax {
				t.Errorf("max attempts = %d, want %d", p.MaxAttempts, tt.wantMax)
			}
		})
	}
}

func TestParseSchedule(t *testing.T) {
	got, err := ParseSchedule("10s, 20s,1m")
	if err != nil || !slices.Equal(got, secs(10, 20, 60)) {
		t.Fatalf("ParseSchedule = %v, %v", got, err)
	}
	for _, bad := range []string{"10", "10s,,20s", "-1s", "fast"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", bad)
		}
	}
}

func TestPolicyBackOff(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		want []time.Duration // the waits before backoff.Stop
	}{
		{"one per schedule entry", Policy{Schedule: secs(10, 20, 60), MaxAttempts: 4}, secs(10, 20, 60)},
		{"more attempts repeat the last wait", Policy{Schedule: secs(10, 20), MaxAttempts: 5}, secs(10, 20, 20, 20)},
		{"fewer attempts cut the schedule", Policy{Schedule: secs(10, 20, 60), MaxAttempts: 2}, secs(10)},
		{"one attempt, no wait", Policy{Schedule: secs(10), MaxAttempts: 1}, nil},
		{"zero attempts derive from the schedule", Policy{Schedule: secs(2, 4)}, secs(2, 4)},
		{"no schedule, no wait", Policy{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.p.BackOff()
			for range 2 { // and again after Reset
				var got []time.Duration
				for d := b.NextBackOff(); d != backoff.Stop; d = b.NextBackOff() {
					got = append(got, d)
					if len(got) > 10 {
						t.Fatalf("no Stop after %v", got)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("waits = %v, want %v", got, tt.want)
				}
				b.Reset()
			}
		})
	}
}

// TestPolicyRendering pins the policy's JSON and one-line forms, which the
// report and its readers depend on.
func TestPolicyRendering(t *testing.T) {
	p, err := Policy{Schedule: secs(10, 20, 60), MaxElapsed: 15 * time.Minute, RetryAfterCap: 5 * time.Minute}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"schedule":["10s","20s","1m0s"],"max_attempts":4,"max_elapsed":"15m0s","retry_after_cap":"5m0s","on_unknown":"stop","jitter":0}`
	if string(b) != wantJSON {
		t.Errorf("JSON = %s\nwant   %s", b, wantJSON)
	}
	var back Policy
	if err := json.Unmarshal(b, &back); err != nil || back.String() != p.String() {
		t.Errorf("round trip = %v (%v), want %v", back, err, p)
	}
	if got, want := p.String(), "schedule 10s,20s,1m0s; 4 attempts; max elapsed 15m0s; retry-after cap 5m0s; on unknown stop"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// rechecking is a script that asks for one re-check of a policy failure.
type rechecking struct {
	script
	asked int
}

func (r *rechecking) Recheck(f *failure.Failure) (time.Duration, string, bool) {
	r.asked++
	if f.Class != failure.Policy {
		return 0, "", false
	}
	return 5 * time.Second, "a fresh token may propagate", true
}

func TestCoordinatorRecheckIsOneRecordedAttempt(t *testing.T) {
	refused := failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403", "")
	tests := []struct {
		name      string
		fails     []*failure.Failure
		maxElapse time.Duration
		wantCalls int
		wantWaits []time.Duration
		wantStop  Stop
	}{
		{"accepted on the re-check", []*failure.Failure{refused}, time.Hour, 2, secs(5), StopSucceeded},
		{"refused twice: only one re-check", []*failure.Failure{refused, refused, refused}, time.Hour, 2, secs(5), StopNotRetryable},
		{"a re-check after a retry", []*failure.Failure{transient("reset"), refused}, time.Hour, 3, secs(2, 5), StopSucceeded},
		{"a re-check that would cross max elapsed is not made", []*failure.Failure{refused}, 3 * time.Second, 1, nil, StopNotRetryable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			st := &rechecking{script: script{fails: tt.fails, canRetry: true}}
			var progress []Attempt
			c := &Coordinator{Policy: Policy{Schedule: secs(2, 4), MaxElapsed: tt.maxElapse}, Clock: clk,
				Progress: func(a Attempt, _ int) { progress = append(progress, a) }}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if st.calls != tt.wantCalls || out.Stop != tt.wantStop || !slices.Equal(clk.Waits(), tt.wantWaits) {
				t.Fatalf("calls %d stop %s waits %v, want %d %s %v", st.calls, out.Stop, clk.Waits(), tt.wantCalls, tt.wantStop, tt.wantWaits)
			}
			if len(out.Attempts) != tt.wantCalls {
				t.Errorf("%d attempts recorded for %d calls", len(out.Attempts), st.calls)
			}
			// Every wait has its progress line; the re-check's (the 5s wait) says why.
			if len(progress) != len(tt.wantWaits) {
				t.Errorf("%d progress lines for the waits %v, want one per wait", len(progress), tt.wantWaits)
			}
			for _, a := range progress {
				if (a.Class == failure.Policy) != (a.Recheck != "") || (a.Recheck != "") != (a.Wait == 5*time.Second) {
					t.Errorf("progress %+v: a re-check must say why, a retry must not", a)
				}
			}
		})
	}
}

// cleaner is a script with a clean-up before every retry and a command per attempt.
type cleaner struct {
	script
	cleanups []int
	failAt   int
}

func (c *cleaner) BeforeRetry(_ context.Context, n int) error {
	c.cleanups = append(c.cleanups, n)
	if n == c.failAt {
		return errors.New("sh -c 'rm -rf build' exited 1")
	}
	return nil
}

func (c *cleaner) Ran(n int) (string, string) {
	if n == 1 {
		return "agent run", "the command"
	}
	return "agent resume", "--continue-with: a retry continues the session"
}

// TestCoordinatorBeforeRetry: the clean-up runs after each wait, before each
// retry; a failing one stops the loop with the last failure as the final
// one, and every attempt records which command it ran.
func TestCoordinatorBeforeRetry(t *testing.T) {
	for _, tt := range []struct {
		name     string
		failAt   int
		cleanups []int
		stop     Stop
		attempts int
	}{
		{"clean-ups pass", 0, []int{2, 3}, StopSucceeded, 3},
		{"second clean-up fails", 3, []int{2, 3}, StopCleanupFailed, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &cleaner{script: script{fails: repeat(transient("reset"), 2), canRetry: true}, failAt: tt.failAt}
			c := &Coordinator{Policy: Policy{Schedule: secs(1, 2), MaxElapsed: time.Hour}, Clock: clock.NewFake(t0, true)}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tt.stop || len(out.Attempts) != tt.attempts || !slices.Equal(st.cleanups, tt.cleanups) {
				t.Fatalf("stop %s, %d attempts, clean-ups %v", out.Stop, len(out.Attempts), st.cleanups)
			}
			if tt.stop == StopCleanupFailed && (out.Final == nil || out.Final.Reason != "reset" || !strings.Contains(out.Detail, "rm -rf build")) {
				t.Errorf("final %+v, detail %q", out.Final, out.Detail)
			}
			if out.Attempts[0].Command != "agent run" || out.Attempts[1].Command != "agent resume" || out.Attempts[1].Why == "" {
				t.Errorf("attempts %+v", out.Attempts)
			}
		})
	}
}

// TestAttemptsCountedInWords: one attempt is "1 attempt", in the policy's
// line and in the detail of a loop that used every attempt.
func TestAttemptsCountedInWords(t *testing.T) {
	tests := []struct {
		max                    int
		wantPolicy, wantDetail string
	}{
		{1, "schedule 10s; 1 attempt; max elapsed 1h0m0s; retry-after cap 5m0s; on unknown stop", "the only attempt allowed (max attempts 1) failed"},
		{2, "schedule 10s; 2 attempts; max elapsed 1h0m0s; retry-after cap 5m0s; on unknown stop", "all 2 attempts failed"},
	}
	for _, tt := range tests {
		p, err := Policy{Schedule: secs(10), MaxAttempts: tt.max, MaxElapsed: time.Hour, RetryAfterCap: 5 * time.Minute}.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		if got := p.String(); got != tt.wantPolicy {
			t.Errorf("max %d: String = %q, want %q", tt.max, got, tt.wantPolicy)
		}
		c := &Coordinator{Policy: p, Clock: clock.NewFake(t0, true)}
		out, err := c.Run(context.Background(), &script{fails: repeat(transient("connection refused"), 9), canRetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.Stop != StopAttemptsExhausted || out.Detail != tt.wantDetail {
			t.Errorf("max %d: stop %s, detail %q, want %q", tt.max, out.Stop, out.Detail, tt.wantDetail)
		}
	}
}
