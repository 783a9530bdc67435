package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/schedule"
	"github.com/retrywise/retrywise/internal/schedule/metrics"
)

// ScheduleOptions is the job file whose jobs run on their cron: triggers.
type ScheduleOptions struct {
	// Loaded is the job file (LoadJobFile).
	Loaded *jobs.Loaded
	// History is the folder of run reports and the lock; "" means
	// $XDG_STATE_HOME/retrywise, else ~/.local/state/retrywise.
	History string
	// Keep is how many reports are kept per job.
	Keep int
	// Grace is how long a running job may go on after SIGTERM.
	Grace time.Duration
	// Listen serves /healthz and /metrics on this address; "" means off.
	Listen string
	// Once runs the jobs that fell due since their last run, once; with
	// Job, that job now. LockWait is how long Once with Job waits for a
	// history another scheduler holds.
	Once     bool
	Job      string
	LockWait time.Duration
	// Log prints one line of the scheduler's log.
	Log func(line string)
	// Run runs one job of the file as the front-end wires it (opening it
	// with store as its JobOptions.Hindsight), and returns its report (nil
	// when it could not run), its exit code and the report's masked JSON
	// for the history.
	Run func(ctx context.Context, job string, store hindsight.Store) (rep *report.Run, code int, masked []byte)
}

// Schedule runs the file's jobs on their cron: triggers until ctx is
// done (serve), or once (Once); it returns the exit code: the first
// failing job's with Once, the signal's when one stopped an idle
// scheduler.
func (a *App) Schedule(ctx context.Context, o ScheduleOptions) (int, error) {
	l := o.Loaded
	triggers := schedule.TriggersOf(l.File)
	if o.Job != "" {
		if l.File.Job(o.Job) == nil {
			return fail(exitcode.Usage, fmt.Sprintf("no job %q in %s", o.Job, l.File.Path))
		}
		if !hasTrigger(triggers, o.Job) {
			// Once with Job runs the job now, whatever its cron: it needs none.
			triggers = append(triggers, schedule.Trigger{Job: o.Job, Cron: []string{"@daily"}})
		}
	}
	if len(triggers) == 0 {
		return fail(exitcode.Config, fmt.Sprintf("no job of %s has a cron: trigger (add cron: [\"*/30 * * * *\"] to a job, or use retrywise run)", l.File.Path))
	}
	dir := o.History
	if dir == "" {
		var err error
		if dir, err = schedule.DefaultDir(environ.Map(a.Env)); err != nil {
			return fail(exitcode.Config, err.Error())
		}
	}
	hist, err := schedule.OpenHistory(dir, o.Keep)
	if err != nil {
		return fail(exitcode.Config, "cannot open the history: "+err.Error())
	}
	defer hist.Close()

	m := metrics.New()
	clk := a.Clock
	s := &schedule.Scheduler{
		Triggers: triggers, Clock: clk, History: hist, Grace: o.Grace, Log: o.Log,
		LockWait: o.LockWait,
		Run: func(ctx context.Context, name string) (int, []byte) {
			rep, code, masked := o.Run(ctx, name, hist)
			if rep == nil {
				return code, nil
			}
			m.Observe(rep)
			for _, t := range triggers {
				if t.Job == name && len(t.Cron) > 0 {
					m.SetNext(name, schedule.Next(t, clk.Now()))
				}
			}
			return code, masked
		},
	}
	if o.Once {
		return s.Once(ctx, o.Job), nil
	}
	for _, t := range triggers {
		m.SetNext(t.Job, schedule.Next(t, clk.Now()))
	}
	if o.Listen != "" {
		health := &metrics.Health{}
		srvCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		bound, err := metrics.Serve(srvCtx, o.Listen, metrics.Mux(m, health), o.Log)
		if err != nil {
			return fail(exitcode.Config, "--listen: "+err.Error())
		}
		o.Log("serving /healthz and /metrics on " + bound)
		go func() {
			<-ctx.Done()
			health.SetServing(false) // 503 while the running jobs get their grace
		}()
	}
	names := make([]string, len(triggers))
	for i, t := range triggers {
		names[i] = t.Job + " (" + strings.Join(t.Cron, ", ") + ")"
	}
	o.Log(fmt.Sprintf("history %s; jobs %s", hist.Dir(), strings.Join(names, "; ")))
	code := s.Serve(ctx)
	if code == exitcode.OK && ctx.Err() != nil {
		// Stopped by a signal with nothing running: the signal's code, as every command.
		return exitcode.ForCause(ctx), nil
	}
	return code, nil
}

// OpenHindsight opens the history folder dir for run --history: the
// job's final failures across runs (hindsight) are kept there, as
// schedule keeps them. The caller closes it.
func (a *App) OpenHindsight(dir string) (*schedule.History, int, error) {
	hist, err := schedule.OpenHistory(dir, 0)
	if err != nil {
		code, err := fail(exitcode.Config, "cannot open the history: "+err.Error())
		return nil, code, err
	}
	return hist, exitcode.OK, nil
}

// hasTrigger reports whether job has a trigger.
func hasTrigger(ts []schedule.Trigger, job string) bool {
	for _, t := range ts {
		if t.Job == job {
			return true
		}
	}
	return false
}
