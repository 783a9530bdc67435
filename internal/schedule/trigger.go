package schedule

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/retrywise/retrywise/internal/cronexpr"
	"github.com/retrywise/retrywise/internal/jobs"
)

// noHistoryWindow is how far back Due looks for a job with no report.
const noHistoryWindow = time.Minute

// Trigger is when one job runs: its cron lines, read in Location.
type Trigger struct {
	// Job is the job's name.
	Job string
	// Cron are the job's expressions: five fields or a descriptor.
	Cron []string
	// Location is the zone the expressions are read in; nil means UTC.
	Location *time.Location
	// StartJitter is the most a scheduled start is delayed by at random.
	StartJitter time.Duration
	// CatchUp runs the job once when the scheduler starts after a missed run.
	CatchUp bool
}

// TriggersOf returns the triggers of f's jobs that have cron:, in file order.
func TriggersOf(f *jobs.File) []Trigger {
	var out []Trigger
	for _, j := range f.Jobs {
		if len(j.Cron) == 0 {
			continue
		}
		out = append(out, Trigger{Job: j.Name, Cron: append([]string(nil), j.Cron...), Location: j.Location, StartJitter: j.StartJitter, CatchUp: j.CatchUp})
	}
	return out
}

// TriggerError is a trigger the scheduler cannot run.
type TriggerError struct {
	// Job is the trigger's job.
	Job string
	// Err says why: a *cronexpr.Error for a bad expression.
	Err error
}

// Error names the job and the reason.
func (e *TriggerError) Error() string { return fmt.Sprintf("job %s: %v", e.Job, e.Err) }

// Unwrap returns the reason.
func (e *TriggerError) Unwrap() error { return e.Err }

// Check reports, as a *TriggerError, a trigger with no expression, a bad
// one or a negative start jitter.
func (t Trigger) Check() error {
	if len(t.Cron) == 0 {
		return &TriggerError{Job: t.Job, Err: fmt.Errorf("no cron expression")}
	}
	if t.StartJitter < 0 {
		return &TriggerError{Job: t.Job, Err: fmt.Errorf("negative start jitter %s", t.StartJitter)}
	}
	for _, expr := range t.Cron {
		if _, err := cronexpr.Parse(expr, t.Location); err != nil {
			return &TriggerError{Job: t.Job, Err: err}
		}
	}
	return nil
}

// schedules are the trigger's parsed expressions; bad ones are left out
// (Check reports them).
func (t Trigger) schedules() []cron.Schedule {
	var out []cron.Schedule
	for _, expr := range t.Cron {
		if s, err := cronexpr.Parse(expr, t.Location); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// Due reports whether t has a run due in (last, now]: a time of one of its
// expressions in that span. With no history (hasLast false) the span is
// (now-1m, now], and an "@every" line, which has no times of its own, is due.
func Due(t Trigger, last time.Time, hasLast bool, now time.Time) bool {
	_, due := firstDue(t, last, hasLast, now)
	return due
}

// firstDue returns the earliest time of t in the span Due looks at.
func firstDue(t Trigger, last time.Time, hasLast bool, now time.Time) (time.Time, bool) {
	from := last
	if !hasLast {
		from = now.Add(-noHistoryWindow)
	}
	var first time.Time
	for _, s := range t.schedules() {
		if !hasLast && cronexpr.IsInterval(s) {
			return now, true
		}
		if n := s.Next(from); !n.IsZero() && !n.After(now) && (first.IsZero() || n.Before(first)) {
			first = n
		}
	}
	return first, !first.IsZero()
}

// Next returns t's first time after now, zero if it has none.
func Next(t Trigger, now time.Time) time.Time {
	var next time.Time
	for _, s := range t.schedules() {
		if n := s.Next(now); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}
