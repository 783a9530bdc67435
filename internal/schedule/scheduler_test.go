package schedule

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
)

func TestServeFiresAtEachSlot(t *testing.T) {
	tests := []struct {
		name    string
		start   time.Time
		trigger Trigger
		steps   []time.Duration // advance by each, one run expected after each
		want    []time.Time
	}{
		{
			name:    "every five minutes, for ten",
			start:   t0,
			trigger: Trigger{Job: "j", Cron: []string{"*/5 * * * *"}},
			steps:   []time.Duration{5 * time.Minute, 5 * time.Minute},
			want:    []time.Time{t0.Add(5 * time.Minute), t0.Add(10 * time.Minute)},
		},
		{
			name:    "in the trigger's zone",
			start:   t0,
			trigger: Trigger{Job: "j", Cron: []string{"30 11 * * *"}, Location: mustZone(t, "Europe/Paris")}, // 10:30 UTC
			steps:   []time.Duration{30 * time.Minute, 24 * time.Hour},
			want:    []time.Time{t0.Add(30 * time.Minute), t0.Add(24*time.Hour + 30*time.Minute)},
		},
		{
			name:    "an @every line",
			start:   t0,
			trigger: Trigger{Job: "j", Cron: []string{"@every 90s"}},
			steps:   []time.Duration{90 * time.Second, 90 * time.Second},
			want:    []time.Time{t0.Add(90 * time.Second), t0.Add(180 * time.Second)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(tt.start, false)
			r := newFakeRun(clk)
			h := openHistory(t, 0, nil)
			l := newLogs()
			s := &Scheduler{Triggers: []Trigger{tt.trigger}, Run: r.run, Clock: clk, History: h, Log: l.add}
			stop, result := serve(t, s)
			for _, d := range tt.steps {
				blockUntil(t, clk, 1)
				clk.Advance(d)
				r.waitStarted(t)
				l.wait(t, "ended: job j")
			}
			stop(nil)
			if code := waitResult(t, result); code != exitcode.OK {
				t.Errorf("Serve = %d, want 0", code)
			}
			var got []time.Time
			for _, c := range r.Calls() {
				got = append(got, c.at)
			}
			if !equalTimes(got, tt.want) {
				t.Errorf("runs at %v, want %v", got, tt.want)
			}
			reports, err := h.Reports("j")
			if err != nil || len(reports) != len(tt.want) {
				t.Errorf("reports %v %v, want %d", reports, err, len(tt.want))
			}
		})
	}
}

// equalTimes reports whether a and b hold the same instants.
func equalTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func TestServeSkipsAnOverlappingStart(t *testing.T) {
	tests := []struct {
		name    string
		cron    []string
		waiters int // the clock's timers while the first run blocks: one per line
		skips   []string
	}{
		{name: "the same line", cron: []string{"*/5 * * * *"}, waiters: 1,
			skips: []string{"skipped: job j (cron */5 * * * *) is still running since 2025-03-03T10:05:00Z"}},
		{name: "two lines of the job", cron: []string{"*/5 * * * *", "*/10 * * * *"}, waiters: 2,
			skips: []string{"(cron */5 * * * *) is still running since 2025-03-03T10:05:00Z", "(cron */10 * * * *) is still running since 2025-03-03T10:05:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			release := r.blockJob("j")
			l := newLogs()
			s := &Scheduler{Triggers: []Trigger{{Job: "j", Cron: tt.cron}}, Run: r.run, Clock: clk, Log: l.add}
			stop, result := serve(t, s)

			blockUntil(t, clk, len(tt.cron))
			clk.Advance(5 * time.Minute) // 10:05: the first run starts and blocks
			r.waitStarted(t)
			blockUntil(t, clk, tt.waiters)
			clk.Advance(5 * time.Minute) // 10:10: the next start overlaps it
			for range tt.skips {
				l.wait(t, "skipped: job j")
			}
			for _, want := range tt.skips {
				if !strings.Contains(l.all(), want) {
					t.Errorf("no %q in the log:\n%s", want, l.all())
				}
			}
			close(release)
			if err := <-r.ended; err != nil {
				t.Fatalf("the run was cancelled: %v", err)
			}
			l.wait(t, "ended: job j")

			blockUntil(t, clk, len(tt.cron))
			clk.Advance(5 * time.Minute) // 10:15: it runs again
			if c := r.waitStarted(t); !c.at.Equal(t0.Add(15 * time.Minute)) {
				t.Errorf("second run at %v", c.at)
			}
			<-r.ended
			stop(nil)
			waitResult(t, result)
			if n := len(r.Calls()); n != 2 {
				t.Errorf("%d runs, want 2: %v", n, r.Calls())
			}
		})
	}
}

func TestServeCatchUp(t *testing.T) {
	start := t0.Add(2 * time.Minute) // 10:02; slots at 09:55 and 10:00 passed
	tests := []struct {
		name    string
		catchUp bool
		last    []time.Time // the job's reports
		want    []time.Time // the runs once the clock reaches 10:05
	}{
		{name: "last run two slots ago: one run at the start", catchUp: true, last: []time.Time{t0.Add(-10 * time.Minute)},
			want: []time.Time{start, t0.Add(5 * time.Minute)}},
		{name: "last run a day ago: still one run", catchUp: true, last: []time.Time{t0.Add(-24 * time.Hour)},
			want: []time.Time{start, t0.Add(5 * time.Minute)}},
		{name: "without catch-up, missed runs are not replayed", last: []time.Time{t0.Add(-10 * time.Minute)},
			want: []time.Time{t0.Add(5 * time.Minute)}},
		{name: "last run after the last slot", catchUp: true, last: []time.Time{t0.Add(time.Minute)},
			want: []time.Time{t0.Add(5 * time.Minute)}},
		{name: "no history, no slot in the last minute", catchUp: true,
			want: []time.Time{t0.Add(5 * time.Minute)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(start, false)
			r := newFakeRun(clk)
			h := openHistory(t, 0, map[string][]time.Time{"j": tt.last})
			l := newLogs()
			tr := Trigger{Job: "j", Cron: []string{"*/5 * * * *"}, CatchUp: tt.catchUp}
			s := &Scheduler{Triggers: []Trigger{tr}, Run: r.run, Clock: clk, History: h, Log: l.add}
			stop, result := serve(t, s)
			later := tt.want
			if tt.want[0].Equal(start) {
				r.waitStarted(t) // the catch-up, with no advance
				l.wait(t, "ended: job j")
				later = later[1:]
			}
			for range later {
				blockUntil(t, clk, 1)
				clk.Advance(3 * time.Minute)
				r.waitStarted(t)
				l.wait(t, "ended: job j")
			}
			stop(nil)
			waitResult(t, result)
			var got []time.Time
			for _, c := range r.Calls() {
				got = append(got, c.at)
			}
			if !equalTimes(got, tt.want) {
				t.Errorf("runs at %v, want %v; log:\n%s", got, tt.want, l.all())
			}
			if n := l.count("(catch-up:"); (n > 0) != (len(tt.want) == 2) {
				t.Errorf("%d catch-up lines:\n%s", n, l.all())
			}
		})
	}
}

func TestServeStartJitter(t *testing.T) {
	tests := []struct {
		name   string
		jitter time.Duration
		rand   time.Duration // what Rand returns
		wait   time.Duration // the wait expected before the run
	}{
		{name: "Rand's duration", jitter: time.Minute, rand: 30 * time.Second, wait: 30 * time.Second},
		{name: "capped at the jitter", jitter: time.Minute, rand: time.Hour, wait: time.Minute},
		{name: "no jitter", rand: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			l := newLogs()
			var asked []time.Duration
			s := &Scheduler{
				Triggers: []Trigger{{Job: "j", Cron: []string{"*/5 * * * *"}, StartJitter: tt.jitter}},
				Run:      r.run, Clock: clk, Log: l.add,
				Rand: func(max time.Duration) time.Duration { asked = append(asked, max); return tt.rand },
			}
			stop, result := serve(t, s)
			blockUntil(t, clk, 1)
			clk.Advance(5 * time.Minute)
			if tt.wait > 0 {
				blockUntil(t, clk, 2) // the next slot and the jitter
				clk.Advance(tt.wait - time.Second)
				if n := len(r.Calls()); n != 0 {
					t.Fatalf("ran %d times before the jitter was over", n)
				}
				clk.Advance(time.Second)
			}
			c := r.waitStarted(t)
			stop(nil)
			waitResult(t, result)
			if want := t0.Add(5*time.Minute + tt.wait); !c.at.Equal(want) {
				t.Errorf("run at %v, want %v", c.at, want)
			}
			var wantAsked []time.Duration
			if tt.jitter > 0 {
				wantAsked = []time.Duration{tt.jitter}
			}
			if !reflect.DeepEqual(asked, wantAsked) {
				t.Errorf("Rand asked %v, want %v", asked, wantAsked)
			}
		})
	}
}

func TestServeShutdown(t *testing.T) {
	const grace = 20 * time.Second
	signal := &interrupt.Signal{}
	tests := []struct {
		name   string
		finish bool // the run ends within the grace
		want   int
	}{
		{name: "a run cut after the grace", want: ShutdownCode},
		{name: "a run ending within the grace", finish: true, want: exitcode.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			release := r.blockJob("slow")
			l := newLogs()
			s := &Scheduler{
				Triggers: []Trigger{{Job: "slow", Cron: []string{"*/5 * * * *"}}, {Job: "later", Cron: []string{"6 10 * * *"}}},
				Run:      r.run, Clock: clk, Log: l.add,
			}
			stop, result := serve(t, s)
			blockUntil(t, clk, 2)
			clk.Advance(5 * time.Minute)
			r.waitStarted(t)
			blockUntil(t, clk, 2) // the next slots
			stop(signal)
			blockUntil(t, clk, 3) // and the grace
			clk.Advance(grace - time.Second)
			select {
			case err := <-r.ended:
				t.Fatalf("the run ended before the grace was over: %v", err)
			case <-result:
				t.Fatal("Serve returned before the grace was over")
			default:
			}
			if tt.finish {
				close(release)
			} else {
				clk.Advance(time.Second)
			}
			err := <-r.ended
			if code := waitResult(t, result); code != tt.want {
				t.Errorf("Serve = %d, want %d", code, tt.want)
			}
			var ge *GraceError
			switch {
			case tt.finish && err != nil:
				t.Errorf("the run was cancelled: %v", err)
			case !tt.finish && (!errors.As(err, &ge) || ge.Grace != grace || !errors.Is(err, signal)):
				t.Errorf("the run's cause %v, want a *GraceError of %s wrapping the signal", err, grace)
			}
			if n := len(r.Calls()); n != 1 {
				t.Errorf("%d runs, want 1", n)
			}
		})
	}
}

func TestServeStartsNothingAfterTheShutdown(t *testing.T) {
	clk := clock.NewFake(t0, false)
	r := newFakeRun(clk)
	release := r.blockJob("slow")
	l := newLogs()
	s := &Scheduler{
		Triggers: []Trigger{{Job: "slow", Cron: []string{"*/5 * * * *"}}, {Job: "later", Cron: []string{"6 10 * * *"}}},
		Run:      r.run, Clock: clk, Log: l.add, Grace: 5 * time.Minute,
	}
	stop, result := serve(t, s)
	blockUntil(t, clk, 2)
	clk.Advance(5 * time.Minute)
	r.waitStarted(t)
	blockUntil(t, clk, 2)
	stop(nil)
	blockUntil(t, clk, 3)
	clk.Advance(time.Minute) // 10:06: later's slot, within slow's grace
	l.wait(t, "not started: job later")
	close(release)
	if code := waitResult(t, result); code != exitcode.OK {
		t.Errorf("Serve = %d", code)
	}
	if calls := r.Calls(); len(calls) != 1 || calls[0].job != "slow" {
		t.Errorf("runs %v", calls)
	}
}

func TestServeRefuses(t *testing.T) {
	h := openHistory(t, 0, nil)
	tests := []struct {
		name     string
		triggers []Trigger
		held     bool
		want     int
		log      string
	}{
		{name: "a bad line", triggers: []Trigger{{Job: "j", Cron: []string{"61 * * * *"}}}, want: exitcode.Config, log: "not serving: job j"},
		{name: "two triggers of a job", triggers: []Trigger{{Job: "j", Cron: []string{"@daily"}}, {Job: "j", Cron: []string{"@hourly"}}}, want: exitcode.Config, log: "two triggers"},
		{name: "the history is held", triggers: []Trigger{{Job: "j", Cron: []string{"@daily"}}}, held: true, want: exitcode.Config, log: "another scheduler uses this history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.held {
				other, err := OpenHistory(h.Dir(), 0)
				if err != nil {
					t.Fatal(err)
				}
				unlock, err := other.Lock()
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
			}
			l := newLogs()
			r := newFakeRun(clock.NewFake(t0, false))
			s := &Scheduler{Triggers: tt.triggers, Run: r.run, Clock: clock.NewFake(t0, false), History: h, Log: l.add}
			if code := s.Serve(context.Background()); code != tt.want || !strings.Contains(l.all(), tt.log) {
				t.Errorf("Serve = %d, log:\n%s\nwant %d and %q", code, l.all(), tt.want, tt.log)
			}
		})
	}
}

// TestGocronClock: the adapter gives gocron the scheduler's clock: its
// time, timers whose function runs once the clock reaches them, Stop and
// Reset, a timer's channel and a ticker.
func TestGocronClock(t *testing.T) {
	clk := clock.NewFake(t0, false)
	c := gocronClock{clk}
	if !c.Now().Equal(t0) || c.Since(t0.Add(-time.Minute)) != time.Minute || c.Until(t0.Add(time.Hour)) != time.Hour {
		t.Errorf("Now %v Since %v Until %v", c.Now(), c.Since(t0.Add(-time.Minute)), c.Until(t0.Add(time.Hour)))
	}
	fired := make(chan time.Time, 10)
	at := c.AfterFunc(time.Minute, func() { fired <- clk.Now() })
	stopped := c.AfterFunc(time.Minute, func() { t.Error("a stopped timer's function ran") })
	blockUntil(t, clk, 2)
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop should report true once, then false")
	}
	blockUntil(t, clk, 1)
	clk.Advance(time.Minute)
	select {
	case now := <-fired:
		if !now.Equal(t0.Add(time.Minute)) {
			t.Errorf("ran at %v", now)
		}
	case <-waitCtx(t).Done():
		t.Fatal("the function did not run")
	}
	if at.Stop() {
		t.Error("Stop of a timer that fired reported true")
	}

	timer := c.NewTimer(time.Hour)
	blockUntil(t, clk, 1)
	if !timer.Reset(2 * time.Hour) {
		t.Error("Reset of a pending timer reported false")
	}
	blockUntil(t, clk, 1)
	clk.Advance(time.Hour)
	select {
	case <-timer.Chan():
		t.Fatal("a reset timer fired at its first time")
	default:
	}
	clk.Advance(time.Hour)
	select {
	case now := <-timer.Chan():
		if !now.Equal(t0.Add(2*time.Hour + time.Minute)) {
			t.Errorf("fired at %v", now)
		}
	case <-waitCtx(t).Done():
		t.Fatal("the reset timer did not fire")
	}

	tk := c.NewTicker(time.Second)
	for i := range 2 {
		blockUntil(t, clk, 1)
		clk.Advance(time.Second)
		select {
		case <-tk.Chan():
		case <-waitCtx(t).Done():
			t.Fatalf("no tick %d", i+1)
		}
	}
	blockUntil(t, clk, 1)
	tk.Stop()
	blockUntil(t, clk, 0)
}

func TestServeShutdownCancelsTheStartJitter(t *testing.T) {
	clk := clock.NewFake(t0, false)
	r := newFakeRun(clk)
	l := newLogs()
	s := &Scheduler{
		Triggers: []Trigger{{Job: "j", Cron: []string{"*/5 * * * *"}, StartJitter: time.Hour}},
		Run:      r.run, Clock: clk, Log: l.add,
		Rand: func(time.Duration) time.Duration { return 30 * time.Minute },
	}
	stop, result := serve(t, s)
	blockUntil(t, clk, 1)
	clk.Advance(5 * time.Minute)
	blockUntil(t, clk, 2) // the next slot and the jitter
	stop(nil)
	if code := waitResult(t, result); code != exitcode.OK {
		t.Errorf("Serve = %d, want 0: no run was cut", code)
	}
	if n := len(r.Calls()); n != 0 {
		t.Errorf("%d runs after the shutdown", n)
	}
	if !strings.Contains(l.all(), "not started: job j: shutting down during its start jitter") {
		t.Errorf("log:\n%s", l.all())
	}
}
