// Package clock is the injectable time source used by every wait and every
// deadline in retrywise, so that tests control time instead of sleeping.
package clock

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer; its shape matches backoff.Timer's channel and Stop.
type Timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped it.
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

func (Real) afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Fake is a manual clock for tests: time moves only when Advance is called, or,
// with auto advance, as soon as a timer is created. The deadlines of
// WithTimeout are not waits: they are not recorded by Waits, do not signal
// TimerCreated and never advance the clock; they fire when Advance reaches them.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	auto   bool
	timers []*fakeTimer
	waits  []time.Duration
	notify chan struct{}
	// changed is closed, and replaced, whenever timers changes (BlockUntil).
	changed chan struct{}
}

// NewFake returns a fake clock at start; with auto set, every new timer fires at
// once and moves the clock forward by its duration (deadlines excepted).
func NewFake(start time.Time, auto bool) *Fake {
	return &Fake{now: start, auto: auto, notify: make(chan struct{}, 1), changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer records d as a wait and returns a timer driven by Advance.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	t := &fakeTimer{f: f, at: f.now.Add(d), c: make(chan time.Time, 1)}
	f.waits = append(f.waits, d)
	f.timers = append(f.timers, t)
	f.changedLocked()
	auto := f.auto
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
	if auto {
		f.Advance(d)
	}
	return t
}

// Waits returns every duration a timer was created with, in order.
func (f *Fake) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

// Pending returns how many timers, deadlines included, are waiting to fire.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// BlockUntil waits until exactly n timers, deadlines included, are pending
// (Pending), and returns nil; or ctx's error if it ends first. Use it to wait,
// without sleeping, until the code under test has set (or stopped) its timers.
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		pending, changed := len(f.timers), f.changedChan()
		f.mu.Unlock()
		if pending == n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d timers pending, not %d: %w", pending, n, context.Cause(ctx))
		}
	}
}

// changedChan returns the channel closed at the next change of the timers;
// f.mu is held.
func (f *Fake) changedChan() chan struct{} {
	if f.changed == nil {
		f.changed = make(chan struct{})
	}
	return f.changed
}

// changedLocked wakes BlockUntil: the timers changed; f.mu is held.
func (f *Fake) changedLocked() {
	close(f.changedChan())
	f.changed = make(chan struct{})
}

// TimerCreated returns a channel that receives after a timer is created; use it
// to wait, without sleeping, until the code under test starts waiting.
func (f *Fake) TimerCreated() <-chan struct{} { return f.notify }

// Advance moves the clock forward by d and fires every timer that is due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	now := f.now
	var due, keep []*fakeTimer
	for _, t := range f.timers {
		if !t.at.After(now) {
			due = append(due, t)
		} else {
			keep = append(keep, t)
		}
	}
	f.timers = keep
	f.changedLocked()
	f.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		if t.fn != nil {
			t.fn()
			continue
		}
		t.c <- now
	}
}

// afterFunc registers a deadline: f runs inside the Advance that reaches it.
func (f *Fake) afterFunc(d time.Duration, fn func()) func() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, at: f.now.Add(d), fn: fn}
	f.timers = append(f.timers, t)
	f.changedLocked()
	return t.Stop
}

type fakeTimer struct {
	f  *Fake
	at time.Time
	c  chan time.Time // a wait's channel; nil for a deadline
	fn func()         // a deadline's function; nil for a wait
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	for i, o := range t.f.timers {
		if o == t {
			t.f.timers = append(t.f.timers[:i], t.f.timers[i+1:]...)
			t.f.changedLocked()
			return true
		}
	}
	return false
}

// Sleep waits d on clk; it returns false, at once, if ctx ends first.
func Sleep(ctx context.Context, clk Clock, d time.Duration) bool {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// afterFuncer is implemented by this package's clocks: f runs once d has passed
// (on its own goroutine for Real, inside Advance for Fake), and stop prevents it.
type afterFuncer interface {
	afterFunc(d time.Duration, f func()) (stop func() bool)
}

// WithTimeout returns a copy of ctx that is cancelled with cause once d has
// passed on clk: with Fake, when Advance reaches it. Its Err is then
// context.Canceled, not context.DeadlineExceeded, and it reports no Deadline
// (a Fake's time means nothing to the network); read the reason with
// context.Cause. Calling the CancelFunc releases the timer and cancels the copy.
//
// The copy carries its bound for Remaining: a step that must end its work
// by the bound (a kill grace inside it) reads from there how long it has.
func WithTimeout(ctx context.Context, clk Clock, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if prev, ok := Remaining(ctx); !ok || d < prev {
		ctx = context.WithValue(ctx, boundKey{}, bound{at: clk.Now().Add(d), clk: clk})
	}
	cctx, cancel := context.WithCancelCause(ctx)
	if d <= 0 {
		cancel(cause)
		return cctx, func() { cancel(nil) }
	}
	if af, ok := clk.(afterFuncer); ok {
		stop := af.afterFunc(d, func() { cancel(cause) })
		return cctx, func() { stop(); cancel(nil) }
	}
	t := clk.NewTimer(d)
	go func() {
		select {
		case <-t.C():
			cancel(cause)
		case <-cctx.Done():
			t.Stop()
		}
	}()
	return cctx, func() { cancel(nil) }
}

type boundKey struct{}

// bound is a WithTimeout's bound on the clock that set it.
type bound struct {
	at  time.Time
	clk Clock
}

// Remaining returns how long is left until the earliest bound of the
// WithTimeout contexts ctx derives from, measured on the clock that set it
// (0 once it has passed); ok is false when there is none.
func Remaining(ctx context.Context) (d time.Duration, ok bool) {
	b, ok := ctx.Value(boundKey{}).(bound)
	if !ok {
		return 0, false
	}
	return max(b.at.Sub(b.clk.Now()), 0), true
}
