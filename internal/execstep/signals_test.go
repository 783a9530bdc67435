package execstep

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// These tests drive every stop on a fake clock and check the events: the
// signals the group receives (the leader's trap says so), the timers the
// step sets (how long each grace is) and that the group is empty once the
// attempt returns. Wall time is only bounded generously (stuck).

// stuck is how long a test waits for an event before it gives up.
const stuck = 30 * time.Second

// trapScript's leader traps SIGTERM and SIGINT (saying which it got) and
// starts a background job that ignores both; both print their pids.
// The job says its pid once its own trap is set, so no signal comes before.
const trapScript = `trap 'echo got TERM >&2' TERM; trap 'echo got INT >&2' INT; echo "leader $$" >&2; sh -c 'trap "" TERM INT; echo "bg $$" >&2; exec sleep 71' & while :; do sleep 0.05; done`

// events is a writer tests wait on for a line.
type events struct {
	mu     sync.Mutex
	b      bytes.Buffer
	notify chan struct{}
}

func newEvents() *events { return &events{notify: make(chan struct{}, 1)} }

func (e *events) Write(p []byte) (int, error) {
	e.mu.Lock()
	n, _ := e.b.Write(p)
	e.mu.Unlock()
	select {
	case e.notify <- struct{}{}:
	default:
	}
	return n, nil
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.b.String()
}

// count returns how many times want was written.
func (e *events) count(want string) int { return strings.Count(e.String(), want) }

// waitCount waits until want was written n times.
func (e *events) waitCount(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.After(stuck)
	for e.count(want) < n {
		select {
		case <-e.notify:
		case <-deadline:
			t.Fatalf("%q not written %d times:\n%s", want, n, e.String())
		}
	}
}

// pid waits for "LABEL PID" and returns the pid.
func (e *events) pid(t *testing.T, label string) int {
	t.Helper()
	re := regexp.MustCompile(label + ` (\d+)\n`)
	deadline := time.After(stuck)
	for re.FindStringSubmatch(e.String()) == nil {
		select {
		case <-e.notify:
		case <-deadline:
			t.Fatalf("no %s pid in:\n%s", label, e.String())
		}
	}
	pid, _ := strconv.Atoi(re.FindStringSubmatch(e.String())[1])
	return pid
}

// waitTimers waits until the clock has had n timers made, and returns their durations.
func waitTimers(t *testing.T, clk *clock.Fake, n int) []time.Duration {
	t.Helper()
	deadline := time.After(stuck)
	for len(stops(clk.Waits())) < n {
		select {
		case <-clk.TimerCreated():
		case <-deadline:
			t.Fatalf("%d timers, want %d: %v", len(stops(clk.Waits())), n, clk.Waits())
		}
	}
	return stops(clk.Waits())
}

// stops drops the group checks' polls from waits: the stops' timers remain.
func stops(waits []time.Duration) []time.Duration {
	return slices.DeleteFunc(slices.Clone(waits), func(d time.Duration) bool { return d == groupPoll })
}

// members returns the live processes of process group pgid, from /proc.
func members(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupEmpty fails the test unless process group pgid is empty soon: a
// SIGKILLed process takes a moment to die, so /proc is checked until stuck.
func groupEmpty(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(stuck)
	for {
		left := members(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has %v", pgid, left)
		}
		time.Sleep(5 * time.Millisecond) // polling /proc, not waiting for behaviour
	}
}

// run is one attempt under test, on a fake clock.
type run struct {
	t      *testing.T
	clk    *clock.Fake
	ev     *events
	leader int
	done   chan error
}

// startRun starts an attempt of trapScript with opts on a fake clock, in ctx
// (made by mkctx from a context that can be signalled), and waits for both
// pids; the clean-up kills the group whatever happened.
func startRun(t *testing.T, opts Options, mkctx func(context.Context, clock.Clock) context.Context) (*run, func(syscall.Signal)) {
	t.Helper()
	r := &run{t: t, clk: clock.NewFake(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false), ev: newEvents(), done: make(chan error, 1)}
	opts.Clock, opts.Stderr = r.clk, r.ev
	s := newShStep(t, trapScript, opts)
	ctx, deliver := interrupt.WithSignal(context.Background())
	t.Cleanup(func() { deliver(0) })
	actx := ctx
	if mkctx != nil {
		actx = mkctx(ctx, r.clk)
	}
	go func() { r.done <- s.Attempt(actx, 1) }()
	r.leader = r.ev.pid(t, "leader")
	r.ev.pid(t, "bg")
	t.Cleanup(func() { syscall.Kill(-r.leader, syscall.SIGKILL) })
	return r, deliver
}

// ended waits for the attempt's verdict and checks that its group is empty.
func (r *run) ended() error {
	r.t.Helper()
	select {
	case err := <-r.done:
		groupEmpty(r.t, r.leader)
		return err
	case <-time.After(stuck):
		r.t.Fatalf("the attempt did not end:\n%s", r.ev.String())
	}
	return nil
}

// running fails the test if the attempt has ended.
func (r *run) running(when string) {
	r.t.Helper()
	select {
	case err := <-r.done:
		r.t.Fatalf("%s: the attempt ended (%v) too early:\n%s", when, err, r.ev.String())
	default:
	}
}

// outer bounds the attempt's context like --max-elapsed or a job's timeout: on the clock.
func outer(d time.Duration) func(context.Context, clock.Clock) context.Context {
	return func(ctx context.Context, clk clock.Clock) context.Context {
		c, cancel := clock.WithTimeout(ctx, clk, d, context.DeadlineExceeded)
		_ = cancel // released when the test's context is
		return c
	}
}

// TestBoundIncludesGrace: with a bound (the Timeout or the context's, as
// --max-elapsed and a job's timeout: set it), SIGTERM comes the grace before
// it and SIGKILL at it; a grace longer than half the time to the bound is
// shortened to that half.
func TestBoundIncludesGrace(t *testing.T) {
	for _, tc := range []struct {
		name        string
		timeout     time.Duration
		ctxBound    time.Duration
		grace       time.Duration
		term, kill  time.Duration // SIGTERM after term, SIGKILL kill later
		wantTimeout bool
	}{
		{"timeout 2s grace 30s", 2 * time.Second, 0, 30 * time.Second, time.Second, time.Second, true},
		{"timeout 10m default grace", 10 * time.Minute, 0, 0, 10*time.Minute - DefaultKillGrace, DefaultKillGrace, true},
		{"max-elapsed 2s grace 30s", 0, 2 * time.Second, 30 * time.Second, time.Second, time.Second, false},
		{"job timeout 1m grace 5m", 0, time.Minute, MaxKillGrace, 30 * time.Second, 30 * time.Second, false},
		{"outer 1m under timeout 10m", 10 * time.Minute, time.Minute, 20 * time.Second, 40 * time.Second, 20 * time.Second, false},
		{"timeout 30s under outer 1h", 30 * time.Second, time.Hour, 5 * time.Second, 25 * time.Second, 5 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mk func(context.Context, clock.Clock) context.Context
			if tc.ctxBound > 0 {
				mk = outer(tc.ctxBound)
			}
			r, _ := startRun(t, Options{Timeout: tc.timeout, KillGrace: tc.grace}, mk)
			if got := waitTimers(t, r.clk, 1); got[0] != tc.term {
				t.Fatalf("SIGTERM timer %v, want %v", got[0], tc.term)
			}
			r.clk.Advance(tc.term - time.Millisecond)
			r.running("before the SIGTERM")
			r.clk.Advance(time.Millisecond)
			r.ev.waitCount(t, "got TERM", 1)
			if got := waitTimers(t, r.clk, 2); got[1] != tc.kill {
				t.Fatalf("SIGKILL timer %v, want %v (timers %v)", got[1], tc.kill, got)
			}
			r.clk.Advance(tc.kill - time.Millisecond)
			r.running("before the SIGKILL")
			if left := members(r.leader); len(left) < 2 {
				t.Errorf("the group lost members before its SIGKILL: %v", left)
			}
			r.clk.Advance(time.Millisecond) // the bound: SIGKILL
			err := r.ended()
			if err == nil {
				t.Fatal("a stopped attempt succeeded")
			}
			if f := failure.FromError(err); f.Class != failure.Transient && tc.wantTimeout {
				t.Errorf("a timeout is %v: %v", f.Class, err)
			}
			if got, want := strings.Contains(err.Error(), "timed out"), tc.wantTimeout; got != want {
				t.Errorf("verdict %q: says timed out %v, want %v", err, got, want)
			}
		})
	}
}

// TestSignalCutsEveryGrace: whatever began the grace (the Timeout, the
// context's bound, a cancellation), a signal retrywise receives during it
// is forwarded to the group at once and SIGKILL follows cancelGrace later.
func TestSignalCutsEveryGrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     Options
		mk       func(context.Context, clock.Clock) context.Context
		cancel   bool // the grace begins with a plain cancellation
		sig      syscall.Signal
		begin    time.Duration // the SIGTERM timer's duration
		beganBy  string
		trapSays string
	}{
		{"timeout/TERM", Options{Timeout: 2 * time.Second, KillGrace: MaxKillGrace}, nil, false, syscall.SIGTERM, time.Second, "timeout", "got TERM"},
		{"timeout/INT", Options{Timeout: 2 * time.Minute, KillGrace: MaxKillGrace}, nil, false, syscall.SIGINT, time.Minute, "timeout", "got INT"},
		{"max-elapsed/TERM", Options{KillGrace: 60 * time.Second}, outer(4 * time.Minute), false, syscall.SIGTERM, 3 * time.Minute, "bound", "got TERM"},
		{"job-timeout/INT", Options{KillGrace: 60 * time.Second}, outer(4 * time.Minute), false, syscall.SIGINT, 3 * time.Minute, "bound", "got INT"},
		{"cancelled/TERM", Options{KillGrace: MaxKillGrace}, nil, true, syscall.SIGTERM, 0, "cancel", "got TERM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stop context.CancelFunc
			mk := tc.mk
			if tc.cancel {
				mk = func(ctx context.Context, _ clock.Clock) context.Context {
					c, cancel := context.WithCancel(ctx)
					stop = cancel
					return c
				}
			}
			r, deliver := startRun(t, tc.opts, mk)
			n := 1
			if tc.cancel {
				stop()
				n = 1 // the kill timer is the first
			} else {
				waitTimers(t, r.clk, 1)
				r.clk.Advance(tc.begin)
				n = 2
			}
			r.ev.waitCount(t, "got TERM", 1) // the grace has begun
			waitTimers(t, r.clk, n)
			r.running("in the grace")
			before := r.ev.count(tc.trapSays)
			deliver(tc.sig)
			r.ev.waitCount(t, tc.trapSays, before+1) // forwarded at once, no time passed
			got := waitTimers(t, r.clk, n+1)
			if got[n] != cancelGrace {
				t.Fatalf("after the signal a %v timer, want cancelGrace %v (timers %v)", got[n], cancelGrace, got)
			}
			r.clk.Advance(cancelGrace - time.Millisecond)
			r.running("just before cancelGrace")
			r.clk.Advance(time.Millisecond)
			if err := r.ended(); err == nil {
				t.Error("a killed attempt succeeded")
			}
		})
	}
}

// TestSignalBeforeAnyBound: a signal before any grace is forwarded and the
// group is killed cancelGrace later, also when the context's bound was
// cancelled first for another reason; KillGrace shorter than cancelGrace is
// kept.
func TestSignalBeforeAnyBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace time.Duration
		want  time.Duration
	}{{"default grace", 0, cancelGrace}, {"short grace", 100 * time.Millisecond, 100 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, deliver := startRun(t, Options{KillGrace: tc.grace}, nil)
			deliver(syscall.SIGINT)
			r.ev.waitCount(t, "got INT", 1)
			if got := waitTimers(t, r.clk, 1); got[0] != tc.want {
				t.Fatalf("kill timer %v, want %v", got[0], tc.want)
			}
			r.running("before the grace ended")
			r.clk.Advance(tc.want)
			r.ended()
		})
	}
}

// TestNewHoldsTheKillGraceCap: New refuses a grace above MaxKillGrace and
// takes one at it (the flag's bounds are internal/step's field table).
func TestNewHoldsTheKillGraceCap(t *testing.T) {
	for _, d := range []time.Duration{MaxKillGrace + time.Nanosecond, 1000 * time.Hour} {
		if _, err := New(Options{Args: []string{"true"}, KillGrace: d}); err == nil || !strings.Contains(err.Error(), "cap") {
			t.Errorf("New took a %v grace: %v", d, err)
		}
	}
	if _, err := New(Options{Args: []string{"true"}, KillGrace: MaxKillGrace}); err != nil {
		t.Errorf("New refused a grace at the cap: %v", err)
	}
}
