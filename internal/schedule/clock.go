package schedule

import (
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/retrywise/retrywise/internal/clock"
)

// gocronClock is the scheduler's clock.Clock as gocron's clock interface
// (clockwork.Clock), the one adapter between the two: gocron's cron timers
// run on the same clock as the jitter, the grace, the history's lock and
// the jobs' retry waits, a fake one in tests included. A timer's function
// (AfterFunc) runs on a goroutine of its own once the timer fires, as
// time.AfterFunc's does.
type gocronClock struct{ c clock.Clock }

// Now returns the clock's time.
func (g gocronClock) Now() time.Time { return g.c.Now() }

// Since returns the time elapsed since t on the clock.
func (g gocronClock) Since(t time.Time) time.Duration { return g.c.Now().Sub(t) }

// Until returns the time until t on the clock.
func (g gocronClock) Until(t time.Time) time.Duration { return t.Sub(g.c.Now()) }

// After returns the channel of a new timer of d.
func (g gocronClock) After(d time.Duration) <-chan time.Time { return g.NewTimer(d).Chan() }

// Sleep waits d on the clock.
func (g gocronClock) Sleep(d time.Duration) { <-g.After(d) }

// NewTimer returns a timer whose channel receives the time once d has passed.
func (g gocronClock) NewTimer(d time.Duration) clockwork.Timer {
	ch := make(chan time.Time, 1)
	t := &gocronTimer{c: g.c, ch: ch, f: func(now time.Time) {
		select {
		case ch <- now:
		default:
		}
	}}
	t.start(d)
	return t
}

// AfterFunc returns a timer that runs f once d has passed.
func (g gocronClock) AfterFunc(d time.Duration, f func()) clockwork.Timer {
	t := &gocronTimer{c: g.c, f: func(time.Time) { f() }}
	t.start(d)
	return t
}

// NewTicker returns a ticker of period d (gocron's interval jobs; the
// scheduler has only cron ones).
func (g gocronClock) NewTicker(d time.Duration) clockwork.Ticker {
	tk := &gocronTicker{ch: make(chan time.Time, 1), period: d}
	tk.t = &gocronTimer{c: g.c, f: tk.tick}
	tk.t.start(d)
	return tk
}

// gocronTimer is a clock.Timer as a clockwork.Timer: f runs on its own
// goroutine when the clock's timer fires.
type gocronTimer struct {
	c  clock.Clock
	ch chan time.Time // NewTimer's channel; nil for AfterFunc
	f  func(time.Time)

	mu   sync.Mutex
	t    clock.Timer
	stop chan struct{} // closed by Stop: the goroutine of t ends
}

// start sets a timer of d on the clock and its goroutine; t.mu is held,
// or t is not shared yet.
func (t *gocronTimer) start(d time.Duration) {
	ct, stop := t.c.NewTimer(d), make(chan struct{})
	t.t, t.stop = ct, stop
	go func() {
		select {
		case now := <-ct.C():
			t.f(now)
		case <-stop:
		}
	}()
}

// Chan returns NewTimer's channel (nil for AfterFunc).
func (t *gocronTimer) Chan() <-chan time.Time { return t.ch }

// Stop prevents the timer from firing; false when it had fired or was stopped.
func (t *gocronTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopLocked()
}

func (t *gocronTimer) stopLocked() bool {
	if !t.t.Stop() {
		return false
	}
	close(t.stop)
	return true
}

// Reset sets the timer to fire d from now; it reports whether it was pending.
func (t *gocronTimer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	pending := t.stopLocked()
	t.start(d)
	return pending
}

// gocronTicker is a ticker made of timers on the clock.
type gocronTicker struct {
	ch chan time.Time
	t  *gocronTimer

	mu      sync.Mutex
	period  time.Duration
	stopped bool
}

// tick delivers a tick (dropped when the last is unread) and sets the next.
func (tk *gocronTicker) tick(now time.Time) {
	select {
	case tk.ch <- now:
	default:
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if !tk.stopped {
		tk.t.Reset(tk.period)
	}
}

// Chan returns the ticks.
func (tk *gocronTicker) Chan() <-chan time.Time { return tk.ch }

// Reset changes the period and starts it from now.
func (tk *gocronTicker) Reset(d time.Duration) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.period, tk.stopped = d, false
	tk.t.Reset(d)
}

// Stop stops the ticks.
func (tk *gocronTicker) Stop() {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.stopped = true
	tk.t.Stop()
}
