package schedule

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
)

func TestOnce(t *testing.T) {
	now := t0.Add(7*time.Minute + 30*time.Second) // 10:07:30
	every5 := Trigger{Job: "often", Cron: []string{"*/5 * * * *"}}
	hourly := Trigger{Job: "hourly", Cron: []string{"0 * * * *"}}
	tests := []struct {
		name     string
		triggers []Trigger
		history  map[string][]time.Time
		codes    map[string]int
		only     string
		held     bool // another process holds the history's lock
		want     int
		runs     []string
		log      string // a substring of the log
	}{
		{name: "exactly the due jobs", triggers: []Trigger{every5, hourly},
			history: map[string][]time.Time{"often": {t0}, "hourly": {t0}},
			want:    exitcode.OK, runs: []string{"often"}, log: "not due: job hourly; next at 2025-03-03T11:00:00Z"},
		{name: "only: the job whatever its cron, and its code", triggers: []Trigger{every5, hourly},
			history: map[string][]time.Time{"often": {t0}, "hourly": {t0}}, codes: map[string]int{"hourly": exitcode.Transient},
			only: "hourly", want: exitcode.Transient, runs: []string{"hourly"}},
		{name: "only names no trigger", triggers: []Trigger{every5, hourly}, only: "nope",
			want: exitcode.Usage, log: `no scheduled job "nope" (scheduled: often, hourly)`},
		{name: "no history: due within the last minute, not an hour ago",
			triggers: []Trigger{{Job: "now", Cron: []string{"7 10 * * *"}}, {Job: "before", Cron: []string{"7 9 * * *"}}},
			want:     exitcode.OK, runs: []string{"now"}},
		{name: "the first failing code", triggers: []Trigger{every5, hourly, {Job: "third", Cron: []string{"@every 1m"}}},
			history: map[string][]time.Time{"often": {t0}, "hourly": {t0.Add(-time.Hour)}, "third": {t0}},
			codes:   map[string]int{"often": exitcode.OK, "hourly": exitcode.Policy, "third": exitcode.Transient},
			want:    exitcode.Policy, runs: []string{"often", "hourly", "third"}},
		{name: "a held lock: skipped", triggers: []Trigger{every5}, history: map[string][]time.Time{"often": {t0}}, held: true,
			want: exitcode.OK, log: "skipped: another scheduler uses this history"},
		{name: "a bad trigger", triggers: []Trigger{{Job: "bad", Cron: []string{"* * *"}}}, want: exitcode.Config, log: "not run: job bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(now, false)
			r := newFakeRun(clk)
			for job, code := range tt.codes {
				r.codes[job] = code
			}
			h := openHistory(t, 0, tt.history)
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
			s := &Scheduler{Triggers: tt.triggers, Run: r.run, Clock: clk, History: h, Log: l.add}
			if code := s.Once(t.Context(), tt.only); code != tt.want {
				t.Errorf("Once = %d, want %d; log:\n%s", code, tt.want, l.all())
			}
			var runs []string
			for _, c := range r.Calls() {
				runs = append(runs, c.job)
				if !c.at.Equal(now) {
					t.Errorf("%s ran at %v, want %v (no jitter)", c.job, c.at, now)
				}
			}
			if !reflect.DeepEqual(runs, tt.runs) {
				t.Errorf("runs %v, want %v", runs, tt.runs)
			}
			if !strings.Contains(l.all(), tt.log) {
				t.Errorf("no %q in the log:\n%s", tt.log, l.all())
			}
			for _, job := range tt.runs {
				if last, ok, err := h.Last(job); err != nil || !ok || !last.Equal(now) {
					t.Errorf("%s: no report of the run: %v %v %v", job, last, ok, err)
				}
			}
		})
	}
}

func TestOnceTwiceRunsOnce(t *testing.T) {
	clk := clock.NewFake(t0.Add(30*time.Second), false)
	r := newFakeRun(clk)
	h := openHistory(t, 0, nil)
	s := &Scheduler{Triggers: []Trigger{{Job: "j", Cron: []string{"0 10 * * *"}}}, Run: r.run, Clock: clk, History: h}
	for range 2 {
		if code := s.Once(t.Context(), ""); code != exitcode.OK {
			t.Fatalf("Once = %d", code)
		}
	}
	if n := len(r.Calls()); n != 1 {
		t.Errorf("%d runs, want 1: the first saved its report", n)
	}
}

// TestOnceShutdown: a signal (or a cancellation) during a --once run cuts
// it at once, with no grace and no timer: the run's context ends with the
// signal as its cause, its report is saved, no other run starts and Once
// returns the signal's code.
func TestOnceShutdown(t *testing.T) {
	tests := []struct {
		name  string
		cause error
		want  int
	}{
		{name: "SIGTERM", cause: &interrupt.Signal{Sig: syscall.SIGTERM}, want: exitcode.Terminated},
		{name: "SIGINT", cause: &interrupt.Signal{Sig: syscall.SIGINT}, want: exitcode.Interrupted},
		{name: "cancelled", cause: context.Canceled, want: exitcode.Interrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			r.blockJob("a")
			hist, err := OpenHistory(t.TempDir(), DefaultKeep)
			if err != nil {
				t.Fatal(err)
			}
			s := &Scheduler{
				Triggers: []Trigger{{Job: "a", Cron: []string{"0 10 * * *"}}, {Job: "b", Cron: []string{"0 10 * * *"}}},
				Run:      r.run, Clock: clk, Grace: time.Minute, History: hist,
			}
			ctx, cancel := context.WithCancelCause(t.Context())
			result := make(chan int, 1)
			go func() { result <- s.Once(ctx, "") }()
			r.waitStarted(t)
			cancel(tt.cause)
			if cause := <-r.ended; !errors.Is(cause, tt.cause) {
				t.Errorf("the run's context ended with %v, want %v", cause, tt.cause)
			}
			if code := waitResult(t, result); code != tt.want {
				t.Errorf("Once = %d, want %d", code, tt.want)
			}
			if calls := r.Calls(); len(calls) != 1 {
				t.Errorf("runs %v: another started after the signal", calls)
			}
			if reps, _ := hist.Reports("a"); len(reps) != 1 {
				t.Errorf("history holds %d reports of the cut run, want 1", len(reps))
			}
		})
	}
}
