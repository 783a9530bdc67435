package retry

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// TestJitteredBounds checks the three rules of Jittered over many draws:
// a scheduled wait stays within w·[1−j, 1+j]; a server's wait is a floor
// jitter only adds to, never past the cap; and nothing overflows.
func TestJitteredBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		w := time.Duration(r.Int64N(int64(time.Hour)))
		j := r.Float64()
		u := r.Float64()
		got := Jittered(w, 0, 5*time.Minute, j, u)
		lo, hi := float64(w)*(1-j), float64(w)*(1+j)
		if float64(got) < lo-1 || float64(got) > hi+1 {
			t.Fatalf("Jittered(%s, j=%v, u=%v) = %s, outside [%v, %v]", w, j, u, got, lo, hi)
		}
		R := time.Duration(r.Int64N(int64(5 * time.Minute)))
		got = Jittered(w, R, 5*time.Minute, j, u)
		if got < R || got < min(w, 5*time.Minute) {
			t.Fatalf("Jittered(%s, R=%s) = %s: under the server's wait or the schedule", w, R, got)
		}
		if floor := max(w, R); floor < 5*time.Minute && got > 5*time.Minute {
			t.Fatalf("Jittered(%s, R=%s) = %s: past the cap", w, R, got)
		}
		if extra := got - max(w, R); extra > time.Duration(float64(min(R, w))*j)+1 {
			t.Fatalf("Jittered(%s, R=%s, j=%v) added %s, more than j·min(R, w)", w, R, j, extra)
		}
	}
	if got := Jittered(10*time.Second, 0, time.Minute, 0, 0.99); got != 10*time.Second {
		t.Errorf("jitter 0 changed the wait: %s", got)
	}
	if got := Jittered(10*time.Second, 30*time.Second, time.Minute, 0, 0.99); got != 30*time.Second {
		t.Errorf("jitter 0 with Retry-After 30s: %s, want 30s", got)
	}
	if got := Jittered(time.Duration(math.MaxInt64), 0, time.Minute, 1, 0.999); got != time.Duration(math.MaxInt64) {
		t.Errorf("a wait of the largest duration with jitter 1 = %s, want saturation", got)
	}
	if got := Jittered(2_562_047*time.Hour, 0, time.Minute, 0.5, 0.99); got <= 0 {
		t.Errorf("2,562,047h with jitter 0.5 overflowed: %s", got)
	}
}

// TestCoordinatorJitter runs a loop with jitter 0.5 over 200ms waits on the
// fake clock: every wait is within [100ms, 300ms], and two seeds draw
// different waits; jitter 0 keeps them exact.
func TestCoordinatorJitter(t *testing.T) {
	waits := func(j float64, seed uint64) []time.Duration {
		clk := clock.NewFake(time.Unix(0, 0), true)
		r := rand.New(rand.NewPCG(seed, seed))
		c := &Coordinator{Policy: Policy{Schedule: []time.Duration{200 * time.Millisecond, 200 * time.Millisecond}, MaxElapsed: time.Minute, Jitter: j}, Clock: clk, Rand: r.Float64}
		fail := &failure.Failure{Class: failure.Transient, Code: "t", Reason: "blip"}
		out, err := c.Run(context.Background(), StepFunc(func(context.Context, int) error { return fail }))
		if err != nil {
			t.Fatal(err)
		}
		var ws []time.Duration
		for _, a := range out.Attempts {
			if a.Wait > 0 {
				ws = append(ws, a.Wait)
			}
		}
		if got := clk.Waits(); len(got) != len(ws) {
			t.Fatalf("clock waited %v, attempts recorded %v", got, ws)
		}
		return ws
	}
	a, b := waits(0.5, 1), waits(0.5, 2)
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("waits %v and %v, want 2 each", a, b)
	}
	for _, w := range append(a, b...) {
		if w < 100*time.Millisecond || w > 300*time.Millisecond {
			t.Errorf("wait %s outside [100ms, 300ms]", w)
		}
	}
	if a[0] == b[0] && a[1] == b[1] {
		t.Errorf("two seeds drew the same waits %v", a)
	}
	for _, w := range waits(0, 3) {
		if w != 200*time.Millisecond {
			t.Errorf("jitter 0: wait %s, want exactly 200ms", w)
		}
	}
}

// TestPolicyJitterRange refuses a jitter outside [0, 1].
func TestPolicyJitterRange(t *testing.T) {
	for _, j := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		if _, err := (Policy{MaxElapsed: time.Minute, Jitter: j}).Normalize(); err == nil {
			t.Errorf("jitter %v accepted", j)
		}
	}
	for _, j := range []float64{0, 0.2, 1} {
		if _, err := (Policy{MaxElapsed: time.Minute, Jitter: j}).Normalize(); err != nil {
			t.Errorf("jitter %v refused: %v", j, err)
		}
	}
}
