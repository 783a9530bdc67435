package breaker

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newBreaker(t *testing.T) (*Breaker, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0, false)
	return NewRegistry(clk).Get("api.example.com:443", Settings{Threshold: DefaultThreshold}), clk
}

// record asks for a ticket and records r; it fails the test if the breaker refuses.
func record(t *testing.T, b *Breaker, r Result) {
	t.Helper()
	tk, err := b.Allow()
	if err != nil {
		t.Fatalf("Allow: %v (state %s)", err, b.State())
	}
	b.Done(tk, r, "HTTP 500 Internal Server Error")
}

func TestResultOf(t *testing.T) {
	tests := []struct {
		f    *failure.Failure
		want Result
	}{
		{nil, Success},
		{failure.New(failure.Transient, failure.CodeTimeout, "HTTP 503", ""), Failure},
		{failure.New(failure.Unknown, failure.CodeUnknown, "unrecognised", ""), Failure},
		{failure.New(failure.Absent, failure.HTTPCode(404), "HTTP 404", ""), Neutral},
		{failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403", ""), Neutral},
		{failure.New(failure.Structural, failure.CodeGitNonFastForward, "HTTP 422", ""), Neutral},
	}
	for _, tt := range tests {
		if got := ResultOf(tt.f); got != tt.want {
			t.Errorf("ResultOf(%v) = %d, want %d", tt.f, got, tt.want)
		}
	}
}

func TestOpensAfterThresholdConsecutiveFailures(t *testing.T) {
	b, _ := newBreaker(t)
	record(t, b, Failure)
	record(t, b, Failure)
	if b.State() != Closed {
		t.Fatalf("open after 2 failures")
	}
	record(t, b, Failure)
	if b.State() != Open {
		t.Fatalf("state %s after 3 failures, want open", b.State())
	}
	_, err := b.Allow()
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Failures != 3 || oe.Key != "api.example.com:443" || oe.Last != "HTTP 500 Internal Server Error" || !oe.Until.Equal(t0.Add(DefaultCooldown)) {
		t.Fatalf("Allow on open breaker = %#v", err)
	}
	if got := err.Error(); got != "circuit breaker open for api.example.com:443 after 3 consecutive failures" {
		t.Errorf("Error() = %q", got)
	}
}

func TestNeutralAnswersNeverCount(t *testing.T) {
	b, _ := newBreaker(t)
	record(t, b, Failure)
	record(t, b, Failure)
	// A storm of absent/policy answers neither opens nor resets the breaker.
	for i := 0; i < 50; i++ {
		record(t, b, ResultOf(failure.New(failure.Absent, failure.HTTPCode(404), "HTTP 404 Not Found", "")))
		record(t, b, ResultOf(failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403 Forbidden", "")))
	}
	if n, _ := b.Failures(); n != 2 || b.State() != Closed {
		t.Fatalf("failures %d, state %s: neutral answers changed the count", n, b.State())
	}
	record(t, b, Failure)
	if b.State() != Open {
		t.Fatalf("the third real failure did not open the breaker")
	}
}

func TestSuccessResets(t *testing.T) {
	b, _ := newBreaker(t)
	record(t, b, Failure)
	record(t, b, Failure)
	record(t, b, Success)
	record(t, b, Failure)
	record(t, b, Failure)
	if n, last := b.Failures(); n != 2 || last == "" || b.State() != Closed {
		t.Fatalf("failures %d (%q), state %s: success did not reset the count", n, last, b.State())
	}
}

func TestCooldownOnTheClockThenOneHalfOpenTrial(t *testing.T) {
	b, clk := newBreaker(t)
	for i := 0; i < 3; i++ {
		record(t, b, Failure)
	}
	clk.Advance(DefaultCooldown - time.Nanosecond)
	if _, err := b.Allow(); err == nil || b.State() != Open {
		t.Fatalf("allowed before the cooldown ended")
	}
	clk.Advance(time.Nanosecond)
	if b.State() != HalfOpen {
		t.Fatalf("state %s after the cooldown, want half-open", b.State())
	}
	trial, err := b.Allow()
	if err != nil {
		t.Fatalf("half-open refused its trial: %v", err)
	}
	// While the trial runs, every other request is short-circuited.
	_, err = b.Allow()
	var oe *OpenError
	if !errors.As(err, &oe) || !oe.TrialInFlight {
		t.Fatalf("second request during the trial: %v", err)
	}
	b.Done(trial, Success, "")
	if b.State() != Closed {
		t.Fatalf("state %s after a successful trial, want closed", b.State())
	}
	if n, _ := b.Failures(); n != 0 {
		t.Fatalf("count %d after a successful trial", n)
	}
}

func TestFailedTrialReopensForAnotherCooldown(t *testing.T) {
	b, clk := newBreaker(t)
	for i := 0; i < 3; i++ {
		record(t, b, Failure)
	}
	clk.Advance(DefaultCooldown)
	trial, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	b.Done(trial, Failure, "connection refused")
	_, err = b.Allow()
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Last != "connection refused" || !oe.Until.Equal(clk.Now().Add(DefaultCooldown)) {
		t.Fatalf("after a failed trial: %v", err)
	}
}

func TestNeutralTrialReleasesTheSlot(t *testing.T) {
	b, clk := newBreaker(t)
	for i := 0; i < 3; i++ {
		record(t, b, Failure)
	}
	clk.Advance(DefaultCooldown)
	trial, err := b.Allow()
	if err != nil {
		t.Fatalf("half-open refused its trial: %v", err)
	}
	// The trial holds the one slot until it is done.
	var oe *OpenError
	if _, err := b.Allow(); !errors.As(err, &oe) || !oe.TrialInFlight {
		t.Fatalf("a second request during the trial: %v, want refused with the trial in flight", err)
	}
	b.Done(trial, Neutral, "")
	if b.State() != HalfOpen {
		t.Fatalf("state %s after a neutral trial, want half-open", b.State())
	}
	if n, _ := b.Failures(); n != 3 {
		t.Errorf("count %d after a neutral trial, want 3: neutral neither counts nor resets", n)
	}
	next, err := b.Allow()
	if err != nil {
		t.Fatalf("the next trial was refused after a neutral one: %v", err)
	}
	b.Done(next, Success, "")
	if b.State() != Closed {
		t.Errorf("state %s after the next trial succeeded, want closed", b.State())
	}
}

func TestStaleTicketsAreIgnored(t *testing.T) {
	b, clk := newBreaker(t)
	// Two slow requests granted while closed, from before the outage.
	early1, err1 := b.Allow()
	early2, err2 := b.Allow()
	if err1 != nil || err2 != nil {
		t.Fatalf("Allow on a closed breaker: %v, %v", err1, err2)
	}
	for i := 0; i < 3; i++ {
		record(t, b, Failure)
	}
	b.Done(early1, Success, "")
	if b.State() != Open {
		t.Fatalf("a stale success closed the breaker")
	}
	// Half-open, then closed again by a successful trial.
	clk.Advance(DefaultCooldown)
	record(t, b, Success)
	if b.State() != Closed {
		t.Fatalf("state %s after the trial, want closed", b.State())
	}
	// A closed breaker counts the failures of its current tickets only: the
	// slow request's failure belongs to the outage that is over.
	b.Done(early2, Failure, "late failure from before the outage")
	if n, last := b.Failures(); n != 0 || last != "" {
		t.Fatalf("a stale failure was counted after the breaker closed again: %d (%q)", n, last)
	}
	record(t, b, Failure)
	record(t, b, Failure)
	if b.State() != Closed {
		t.Errorf("opened after 2 new failures: the stale one was counted")
	}
}

func TestDisabledAndSettings(t *testing.T) {
	clk := clock.NewFake(t0, false)
	reg := NewRegistry(clk)
	b := reg.Get("h:80", Settings{Threshold: 0})
	for i := 0; i < 10; i++ {
		record(t, b, Failure)
	}
	if b.State() != Closed {
		t.Fatalf("a disabled breaker opened")
	}
	if reg.Get("h:80", Settings{Threshold: 1}) != b {
		t.Fatalf("Get returned a new breaker for the same key")
	}
	if reg.Get("h:8080", Settings{Threshold: 1}) == b {
		t.Fatalf("different ports share a breaker")
	}
	record(t, b, Failure)
	if b.State() != Open {
		t.Fatalf("threshold 1 did not open on the first failure")
	}
	if b2 := reg.Get("h:80", Settings{Threshold: 1, Cooldown: time.Minute}); b2.State() != Open {
		t.Fatalf("state lost")
	}
}

// TestConcurrentUse: goroutines racing on one breaker (run with -race). Each
// sends a request and reports a failure; whatever the interleaving, exactly
// Threshold failures are counted (the reports of tickets granted before the
// breaker opened are stale), it ends open, and every later request is refused.
// Then, after the cooldown, concurrent requests get exactly one trial.
func TestConcurrentUse(t *testing.T) {
	clk := clock.NewFake(t0, false)
	reg := NewRegistry(clk)
	const goroutines, threshold = 8, 3
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted, refused := 0, 0
	start := make(chan struct{})
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := reg.Get("h:443", Settings{Threshold: threshold})
			<-start
			for i := 0; i < 50; i++ {
				tk, err := b.Allow()
				mu.Lock()
				if err == nil {
					granted++
				} else {
					refused++
				}
				mu.Unlock()
				if err == nil {
					b.Done(tk, Failure, "HTTP 502 Bad Gateway")
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	b := reg.Get("h:443", Settings{Threshold: threshold})
	if st := b.State(); st != Open {
		t.Fatalf("state %s after %d concurrent failures, want open", st, granted)
	}
	if n, last := b.Failures(); n != threshold || last != "HTTP 502 Bad Gateway" {
		t.Errorf("counted %d failures (%q), want exactly %d", n, last, threshold)
	}
	if granted < threshold || granted > threshold+goroutines-1 || granted+refused != goroutines*50 {
		t.Errorf("%d requests granted, %d refused: want %d to %d granted (those in flight when it opened), the rest refused",
			granted, refused, threshold, threshold+goroutines-1)
	}

	clk.Advance(DefaultCooldown)
	trials := make(chan Ticket, goroutines)
	start = make(chan struct{})
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if tk, err := b.Allow(); err == nil {
				trials <- tk
			}
		}()
	}
	close(start)
	wg.Wait()
	close(trials)
	if len(trials) != 1 {
		t.Fatalf("%d of %d concurrent requests got a half-open trial, want exactly 1", len(trials), goroutines)
	}
	b.Done(<-trials, Success, "")
	if b.State() != Closed {
		t.Errorf("state %s after the trial succeeded, want closed", b.State())
	}
}

func TestRefusal(t *testing.T) {
	b, clk := newBreaker(t)
	if why, n := b.Refusal(); why != "" || n != 0 {
		t.Fatalf("closed: %q %d", why, n)
	}
	for i := 0; i < DefaultThreshold; i++ {
		record(t, b, Failure)
	}
	want := "circuit breaker open for api.example.com:443 after 3 consecutive failures: no more requests to it in this run until its cooldown ends"
	if why, n := b.Refusal(); why != want || n != 3 {
		t.Fatalf("open: %q %d, want %q 3", why, n, want)
	}
	clk.Advance(DefaultCooldown)
	if why, _ := b.Refusal(); why != "" {
		t.Fatalf("half-open: %q, want the trial allowed", why)
	}
	if why, n := (*Breaker)(nil).Refusal(); why != "" || n != 0 {
		t.Fatalf("nil: %q %d", why, n)
	}
}
