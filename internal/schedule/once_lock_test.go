package schedule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// TestOnceJobWaitsForTheLock: Once asked for one job while another process
// holds the history's lock waits for it, on the clock, trying again every
// LockPoll for at most LockWait: the job runs once the lock is released
// within the bound; past it, or with no wait, Once returns 75 naming the
// lock and its holder, and the job does not run; a signal during the wait
// returns the signal's code at once. Plain Once still skips with 0.
func TestOnceJobWaitsForTheLock(t *testing.T) {
	tests := []struct {
		name string
		only string
		wait time.Duration
		// during acts while Once waits (it has a timer on the clock);
		// nil: Once does not wait.
		during func(clk *clock.Fake, unlock func(), cancel context.CancelCauseFunc)
		want   int
		ran    bool
		log    string
	}{
		{name: "released within the bound: the job runs", only: "j", wait: time.Minute,
			during: func(clk *clock.Fake, unlock func(), _ context.CancelCauseFunc) {
				clk.Advance(20 * time.Second)
				unlock()
				clk.Advance(LockPoll)
			},
			want: exitcode.OK, ran: true, log: "waiting up to 1m0s for the history's lock"},
		{name: "held past the bound: 75", only: "j", wait: time.Minute,
			during: func(clk *clock.Fake, _ func(), _ context.CancelCauseFunc) { clk.Advance(time.Minute) },
			want:   exitcode.Transient, log: "not run: job j: the history's lock is still held after waiting 1m0s"},
		{name: "no wait: 75 at once", only: "j", wait: 0,
			want: exitcode.Transient, log: "not run: job j: the history's lock is still held after waiting 0s"},
		{name: "SIGTERM while waiting: 143 at once", only: "j", wait: time.Hour,
			during: func(_ *clock.Fake, _ func(), cancel context.CancelCauseFunc) {
				cancel(&interrupt.Signal{Sig: syscall.SIGTERM})
			},
			want: exitcode.Terminated, log: "not run: job j: stopped while waiting for the history's lock"},
		{name: "plain once: skipped, 0", wait: time.Minute,
			want: exitcode.OK, log: "skipped: another scheduler uses this history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			h := openHistory(t, 0, nil)
			other, err := OpenHistory(h.Dir(), 0) // its own open of the lock, as another process's
			if err != nil {
				t.Fatal(err)
			}
			unlock, err := other.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			l := newLogs()
			s := &Scheduler{Triggers: []Trigger{{Job: "j", Cron: []string{"0 10 * * *"}}}, Run: r.run, Clock: clk, History: h, Log: l.add, LockWait: tt.wait}
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			result := make(chan int, 1)
			go func() { result <- s.Once(ctx, tt.only) }()
			if tt.during != nil {
				blockUntil(t, clk, 1) // Once waits on the clock
				tt.during(clk, unlock, cancel)
			}
			if code := waitResult(t, result); code != tt.want {
				t.Errorf("Once = %d, want %d; log:\n%s", code, tt.want, l.all())
			}
			if ran := len(r.Calls()) > 0; ran != tt.ran {
				t.Errorf("ran %v, want %v; log:\n%s", r.Calls(), tt.ran, l.all())
			}
			if !strings.Contains(l.all(), tt.log) {
				t.Errorf("no %q in the log:\n%s", tt.log, l.all())
			}
			if tt.want == exitcode.Transient {
				holder := fmt.Sprintf("%s is held by process %d", filepath.Join(h.Dir(), ".lock"), os.Getpid())
				if !strings.Contains(l.all(), holder) {
					t.Errorf("the log does not name the lock and its holder (%q):\n%s", holder, l.all())
				}
			}
			if tt.ran {
				if c := r.Calls()[0]; !c.at.Equal(t0.Add(20*time.Second + LockPoll)) {
					t.Errorf("ran at %v, want once the lock was free", c.at)
				}
			}
		})
	}
}

// TestLockWithinIsBounded: the wait tries the lock again once per
// LockPoll of the clock (the last wait cut to the bound), and gives up at
// the bound with the holder.
func TestLockWithinIsBounded(t *testing.T) {
	h := openHistory(t, 0, nil)
	other, err := OpenHistory(h.Dir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := other.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, bound := range []time.Duration{0, LockPoll / 2, 10 * LockPoll, 10*LockPoll + LockPoll/3} {
		clk := clock.NewFake(t0, true) // every wait passes at once
		told := 0
		_, err := h.LockWithin(t.Context(), clk, bound, func(*LockedError) { told++ })
		if le, ok := err.(*LockedError); !ok || le.PID != os.Getpid() {
			t.Fatalf("bound %v: LockWithin = %v, want a *LockedError naming this process", bound, err)
		}
		var sum time.Duration
		for _, w := range clk.Waits() {
			if w > LockPoll || w <= 0 {
				t.Errorf("bound %v: a wait of %v", bound, w)
			}
			sum += w
		}
		if sum != bound || clk.Now().Sub(t0) != bound {
			t.Errorf("bound %v: waited %v (%v on the clock)", bound, sum, clk.Now().Sub(t0))
		}
		if n, want := len(clk.Waits()), int((bound+LockPoll-1)/LockPoll); n != want {
			t.Errorf("bound %v: %d waits, want %d", bound, n, want)
		}
		if want := min(1, int(bound)); told != want {
			t.Errorf("bound %v: told of the wait %d times, want %d", bound, told, want)
		}
	}
}
