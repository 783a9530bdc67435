package retry

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

const forever = time.Duration(math.MaxInt64)

// hugeRecheck asks for one re-check after a policy failure, with a wait of
// its choosing.
type hugeRecheck struct {
	script
	wait time.Duration
}

func (r *hugeRecheck) Recheck(*failure.Failure) (time.Duration, string, bool) {
	return r.wait, "a fresh token may propagate", true
}

// TestCoordinatorHugeWaitsSaturate: a wait near the largest duration, from
// the schedule, a server's Retry-After under a huge cap or a re-check, is
// added to the time already spent without wrapping around: the loop stops
// on its bound at once instead of sleeping for centuries.
func TestCoordinatorHugeWaitsSaturate(t *testing.T) {
	rl := func(d time.Duration) *failure.Failure {
		f := transient("HTTP 429")
		f.RetryAfter = d
		return f
	}
	refused := failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403", "")
	tests := []struct {
		name     string
		policy   Policy
		fails    []*failure.Failure
		recheck  time.Duration // > 0: the step re-checks with this wait
		wantStop Stop
	}{
		{"largest schedule entry", Policy{Schedule: []time.Duration{forever}, MaxAttempts: 3, MaxElapsed: time.Second}, repeat(transient("curl 28"), 3), 0, StopElapsedExhausted},
		{"schedule entry just under the largest", Policy{Schedule: []time.Duration{forever - time.Millisecond}, MaxElapsed: time.Second}, repeat(transient("curl 28"), 3), 0, StopElapsedExhausted},
		{"huge Retry-After under a huge cap", Policy{Schedule: secs(1), MaxAttempts: 3, MaxElapsed: time.Minute, RetryAfterCap: forever}, []*failure.Failure{rl(forever)}, 0, StopElapsedExhausted},
		{"Retry-After of 292 years minus a second", Policy{Schedule: secs(1), MaxAttempts: 3, MaxElapsed: time.Minute, RetryAfterCap: forever}, []*failure.Failure{rl(forever - time.Second)}, 0, StopElapsedExhausted},
		{"huge Retry-After over the cap", Policy{Schedule: secs(1), MaxAttempts: 3, MaxElapsed: time.Minute, RetryAfterCap: time.Minute}, []*failure.Failure{rl(forever)}, 0, StopRetryAfterOverCap},
		{"huge re-check wait", Policy{Schedule: secs(1), MaxElapsed: time.Minute}, []*failure.Failure{refused}, forever, StopNotRetryable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			sc := script{fails: tt.fails, canRetry: true, clk: clk, advance: time.Millisecond}
			var st Step = &sc
			if tt.recheck > 0 {
				st = &hugeRecheck{script: sc, wait: tt.recheck}
			}
			out, err := (&Coordinator{Policy: tt.policy, Clock: clk}).Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tt.wantStop {
				t.Errorf("stop = %s (%s), want %s", out.Stop, out.Detail, tt.wantStop)
			}
			if w := clk.Waits(); len(w) != 0 {
				t.Errorf("waited %v; no wait should start", w)
			}
			if out.Elapsed > time.Second {
				t.Errorf("elapsed %s on the fake clock, want at most the first attempt", out.Elapsed)
			}
			if len(out.Attempts) != 1 {
				t.Errorf("%d attempts, want 1", len(out.Attempts))
			}
		})
	}
}

// TestAddSaturates: the sum of two durations stays at the largest (or
// smallest) one instead of wrapping.
func TestAddSaturates(t *testing.T) {
	for _, tc := range []struct{ a, b, want time.Duration }{
		{time.Second, time.Second, 2 * time.Second},
		{forever, time.Nanosecond, forever},
		{time.Millisecond, forever, forever},
		{forever - time.Second, forever - time.Second, forever},
		{time.Duration(math.MinInt64), -time.Second, time.Duration(math.MinInt64)},
		{forever, time.Duration(math.MinInt64), -time.Nanosecond},
	} {
		if got := Add(tc.a, tc.b); got != tc.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestScheduleRepeatFloor: a wait the schedule repeats (its last once the
// list is used up) is at least MinRepeatWait; the entries as written run as
// written.
func TestScheduleRepeatFloor(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		policy    Policy
		wantWaits []time.Duration
	}{
		{"0s repeated", Policy{Schedule: []time.Duration{0}, MaxAttempts: 5, MaxElapsed: time.Hour}, []time.Duration{0, 100 * ms, 100 * ms, 100 * ms}},
		{"0s once is as written", Policy{Schedule: []time.Duration{0}, MaxAttempts: 2, MaxElapsed: time.Hour}, []time.Duration{0}},
		{"explicit zeros are as written", Policy{Schedule: []time.Duration{0, 0, 0}, MaxElapsed: time.Hour}, []time.Duration{0, 0, 0}},
		{"1ms repeated", Policy{Schedule: []time.Duration{0, ms}, MaxAttempts: 4, MaxElapsed: time.Hour}, []time.Duration{0, ms, 100 * ms}},
		{"a long last wait repeats as it is", Policy{Schedule: secs(1, 2), MaxAttempts: 4, MaxElapsed: time.Hour}, secs(1, 2, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			out, err := (&Coordinator{Policy: tt.policy, Clock: clk}).Run(context.Background(), &script{fails: repeat(transient("curl 28"), 99), canRetry: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := clk.Waits(); !slices.Equal(got, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			if out.Stop != StopAttemptsExhausted {
				t.Errorf("stop = %s", out.Stop)
			}
		})
	}
}

// TestPolicyBounds: a policy over the documented bounds is refused.
func TestPolicyBounds(t *testing.T) {
	tests := []struct {
		name    string
		policy  Policy
		wantErr bool
	}{
		{"max elapsed at the limit", Policy{MaxAttempts: 1, MaxElapsed: MaxElapsedLimit}, false},
		{"max elapsed over the limit", Policy{MaxAttempts: 1, MaxElapsed: MaxElapsedLimit + time.Nanosecond}, true},
		{"max elapsed of 292 years", Policy{MaxAttempts: 1, MaxElapsed: 2562047 * time.Hour}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.policy.Normalize(); (err != nil) != tt.wantErr {
				t.Errorf("Normalize error %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestCoordinatorKeepsBoundedRecords: a forced run of many attempts keeps
// the first and last KeepAttempts/2 records and counts the ones between.
func TestCoordinatorKeepsBoundedRecords(t *testing.T) {
	for _, n := range []int{10, KeepAttempts, KeepAttempts + 1, 2500} {
		clk := clock.NewFake(t0, true)
		p := Policy{Schedule: []time.Duration{time.Second}, MaxAttempts: n, MaxElapsed: MaxElapsedLimit}
		out, err := (&Coordinator{Policy: p, Clock: clk}).Run(context.Background(), &script{fails: repeat(transient("curl 28"), n), canRetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.Stop != StopAttemptsExhausted {
			t.Fatalf("%d: stop = %s (%s)", n, out.Stop, out.Detail)
		}
		want := min(n, KeepAttempts)
		if len(out.Attempts) != want || out.Omitted != n-want || out.Count() != n {
			t.Fatalf("%d attempts: kept %d, omitted %d, count %d; want %d kept", n, len(out.Attempts), out.Omitted, out.Count(), want)
		}
		half := KeepAttempts / 2
		for i, a := range out.Attempts {
			wantN := i + 1
			if n > KeepAttempts && i >= half {
				wantN = n - (KeepAttempts - i) + 1
			}
			if a.N != wantN {
				t.Fatalf("%d attempts: record %d is attempt %d, want %d", n, i, a.N, wantN)
			}
		}
	}
}
