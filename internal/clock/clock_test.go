package clock

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

var start = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func TestFakeAdvanceFiresDueTimers(t *testing.T) {
	f := NewFake(start, false)
	a, b := f.NewTimer(2*time.Second), f.NewTimer(5*time.Second)
	f.Advance(2 * time.Second)
	select {
	case got := <-a.C():
		if !got.Equal(start.Add(2 * time.Second)) {
			t.Errorf("fired at %v", got)
		}
	default:
		t.Fatal("due timer did not fire")
	}
	select {
	case <-b.C():
		t.Fatal("timer fired early")
	default:
	}
	if !b.Stop() || b.Stop() {
		t.Error("Stop should report true once, then false")
	}
	f.Advance(time.Hour)
	select {
	case <-b.C():
		t.Fatal("stopped timer fired")
	default:
	}
	if f.Pending() != 0 || !slices.Equal(f.Waits(), []time.Duration{2 * time.Second, 5 * time.Second}) {
		t.Errorf("pending %d waits %v", f.Pending(), f.Waits())
	}
}

func TestFakeAutoAdvance(t *testing.T) {
	f := NewFake(start, true)
	tm := f.NewTimer(30 * time.Second)
	<-tm.C()
	if got := f.Now(); !got.Equal(start.Add(30 * time.Second)) {
		t.Errorf("now = %v, want start+30s", got)
	}
	select {
	case <-f.TimerCreated():
	default:
		t.Error("TimerCreated did not signal")
	}
}

var errBound = errors.New("bound reached")

func TestWithTimeoutOnFake(t *testing.T) {
	for _, auto := range []bool{false, true} {
		f := NewFake(start, auto)
		ctx, cancel := WithTimeout(context.Background(), f, time.Minute, errBound)
		defer cancel()
		// A deadline is not a wait: nothing recorded, nothing signalled, no time moved.
		select {
		case <-f.TimerCreated():
			t.Errorf("auto=%v: the deadline signalled TimerCreated", auto)
		default:
		}
		if len(f.Waits()) != 0 || !f.Now().Equal(start) || f.Pending() != 1 {
			t.Errorf("auto=%v: waits %v now %v pending %d, want no wait, no advance, one pending deadline", auto, f.Waits(), f.Now(), f.Pending())
		}
		f.Advance(59 * time.Second)
		if ctx.Err() != nil {
			t.Fatalf("auto=%v: cancelled before the deadline", auto)
		}
		f.Advance(time.Second)
		// Advance runs the deadline before it returns: no goroutine to wait for.
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != errBound {
			t.Errorf("auto=%v: err %v cause %v, want cancelled with the cause", auto, ctx.Err(), context.Cause(ctx))
		}
		if _, ok := ctx.Deadline(); ok {
			t.Errorf("auto=%v: the context reports a wall-clock deadline", auto)
		}
	}
}

func TestWithTimeoutAutoWaitsCrossIt(t *testing.T) {
	f := NewFake(start, true)
	ctx, cancel := WithTimeout(context.Background(), f, 30*time.Second, errBound)
	defer cancel()
	if !Sleep(ctx, f, 20*time.Second) || ctx.Err() != nil {
		t.Fatal("a wait inside the bound was cut short")
	}
	Sleep(context.Background(), f, 20*time.Second) // auto advance crosses the deadline
	if context.Cause(ctx) != errBound {
		t.Errorf("cause %v after crossing the deadline, want %v", context.Cause(ctx), errBound)
	}
}

func TestWithTimeoutCancelReleases(t *testing.T) {
	f := NewFake(start, false)
	parent, stop := context.WithCancelCause(context.Background())
	ctx, cancel := WithTimeout(parent, f, time.Minute, errBound)
	sig := errors.New("SIGINT")
	stop(sig)
	if context.Cause(ctx) != sig {
		t.Errorf("cause %v, want the parent's %v", context.Cause(ctx), sig)
	}
	cancel()
	if f.Pending() != 0 {
		t.Errorf("the deadline was not released: %d pending", f.Pending())
	}
	f.Advance(time.Hour)
	if context.Cause(ctx) != sig {
		t.Errorf("cause changed to %v after the released deadline passed", context.Cause(ctx))
	}
}

func TestWithTimeoutReal(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), Real{}, time.Millisecond, errBound)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the real deadline never fired")
	}
	if context.Cause(ctx) != errBound {
		t.Errorf("cause %v, want %v", context.Cause(ctx), errBound)
	}
	ctx, cancel = WithTimeout(context.Background(), Real{}, time.Hour, errBound)
	cancel()
	if context.Cause(ctx) != context.Canceled {
		t.Errorf("cancel: cause %v, want context.Canceled", context.Cause(ctx))
	}
}

// TestWithTimeoutOtherClock: a Clock from outside the package (here a Fake
// seen only through the interface) gets its deadline from NewTimer.
func TestWithTimeoutOtherClock(t *testing.T) {
	f := NewFake(start, false)
	ctx, cancel := WithTimeout(context.Background(), struct{ Clock }{f}, time.Minute, errBound)
	defer cancel()
	<-f.TimerCreated()
	f.Advance(time.Minute)
	<-ctx.Done()
	if context.Cause(ctx) != errBound {
		t.Errorf("cause %v, want %v", context.Cause(ctx), errBound)
	}
}

// TestRemaining: WithTimeout contexts carry their bound on their clock,
// the earliest of nested ones.
func TestRemaining(t *testing.T) {
	clk := NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false)
	if _, ok := Remaining(context.Background()); ok {
		t.Fatal("a bound without WithTimeout")
	}
	outer, c1 := WithTimeout(context.Background(), clk, time.Minute, nil)
	defer c1()
	inner, c2 := WithTimeout(outer, clk, time.Hour, nil)
	defer c2()
	if d, ok := Remaining(inner); !ok || d != time.Minute {
		t.Errorf("Remaining = %v, %v; want the outer minute", d, ok)
	}
	clk.Advance(10 * time.Second)
	if d, _ := Remaining(inner); d != 50*time.Second {
		t.Errorf("Remaining = %v, want 50s", d)
	}
	inner2, c3 := WithTimeout(outer, clk, time.Second, nil)
	defer c3()
	if d, _ := Remaining(inner2); d != time.Second {
		t.Errorf("Remaining = %v, want 1s", d)
	}
	clk.Advance(time.Hour)
	if d, _ := Remaining(inner2); d != 0 {
		t.Errorf("Remaining = %v after the bound, want 0", d)
	}
}

// TestFakeBlockUntil: BlockUntil returns once exactly n timers are pending,
// whether they were created, stopped or fired by another goroutine, and
// gives up when its context ends.
func TestFakeBlockUntil(t *testing.T) {
	f := NewFake(start, false)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a guard, not a wait
	defer cancel()
	if err := f.BlockUntil(ctx, 0); err != nil {
		t.Fatal(err)
	}
	made := make(chan Timer)
	go func() {
		a := f.NewTimer(time.Second)
		f.NewTimer(time.Minute)
		made <- a
	}()
	if err := f.BlockUntil(ctx, 2); err != nil {
		t.Fatal(err)
	}
	a := <-made
	go a.Stop()
	if err := f.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	go f.Advance(time.Hour)
	if err := f.BlockUntil(ctx, 0); err != nil {
		t.Fatal(err)
	}
	short, stop := context.WithCancel(t.Context())
	stop()
	if err := f.BlockUntil(short, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("BlockUntil on an ended context = %v", err)
	}
}
