package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/schedule"
	"github.com/retrywise/retrywise/internal/schedule/metrics"
)

const scheduleSynopsis = `Usage: retrywise schedule [flags]

Runs the job file's jobs on their cron: triggers until stopped (SIGINT or
SIGTERM), outside GitHub: a long-running container, a server, a laptop. A job
never overlaps itself (an overlapping start is skipped and logged); runs missed
while the process was down are not replayed unless the job says catch-up: true
(then once). Each run's JSON report goes to the history folder, named by job
and start time; one process per history folder (a second one exits 78, naming
the holder's pid). On SIGTERM no new run starts, a running job may finish for
--grace, then it is cancelled; its report is written, exit 143.

--once runs each job whose cron fell due since its last run in the history
(with no history: within the last minute), at most once each, and exits with
the first failing job's code; --once --job NAME runs that job now. A history
another scheduler holds is a logged skip and 0 for --once, but --once --job
waits for it, up to --lock-wait, then exits 75 naming the holder.`

// scheduleOptions is what `retrywise schedule` runs.
type scheduleOptions struct {
	config, history, listen, job string
	keep                         int
	grace, lockWait              time.Duration
	once                         bool
}

// runSchedule is `retrywise schedule`.
func runSchedule(ctx context.Context, f *factory, args []string) int {
	fs := newFlagSet("schedule", scheduleSynopsis)
	var o scheduleOptions
	fs.StringVar(&o.config, "config", "", "the job `FILE`; empty means .github/retrywise.yml, then retrywise.yml")
	fs.StringVar(&o.history, "history", "", "the history `DIR` of run reports (and the lock); empty means $XDG_STATE_HOME/retrywise, else ~/.local/state/retrywise")
	fs.IntVar(&o.keep, "keep", schedule.DefaultKeep, "the reports kept per job in the history; older ones are removed")
	fs.DurationVar(&o.grace, "grace", schedule.DefaultGrace, "on SIGTERM, how long a running job may go on before it is cancelled (below Kubernetes' 30s termination grace)")
	fs.StringVar(&o.listen, "listen", "", "serve /healthz and /metrics (Prometheus) on `ADDR`; a bare :PORT is 127.0.0.1:PORT; empty means off")
	fs.BoolVar(&o.once, "once", false, "run the jobs that fell due since their last recorded run, once, and exit")
	fs.StringVar(&o.job, "job", "", "with --once, run this job (`NAME`) now, whatever its cron")
	fs.DurationVar(&o.lockWait, "lock-wait", schedule.DefaultLockWait, fmt.Sprintf("with --once --job, how long to wait for the history's lock another scheduler holds, then exit 75; 0 means do not wait; at most %s", schedule.MaxLockWait))
	pos, code, done := f.parse(fs, args)
	if done {
		return code
	}
	lockWaitSet := false
	fs.Visit(func(fl *flag.Flag) { lockWaitSet = lockWaitSet || fl.Name == "lock-wait" })
	switch {
	case len(pos) > 0:
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", pos[0]))
	case o.job != "" && !o.once:
		return f.fail(exitcode.Usage, "--job needs --once: the scheduler runs every job on its cron")
	case o.keep < 1:
		return f.fail(exitcode.Usage, "--keep must be at least 1")
	case o.grace < 0:
		return f.fail(exitcode.Usage, "--grace must not be negative")
	case lockWaitSet && o.job == "":
		return f.fail(exitcode.Usage, "--lock-wait needs --once --job: plain --once skips a history another scheduler holds, and the scheduler refuses it")
	case o.lockWait < 0 || o.lockWait > schedule.MaxLockWait:
		return f.fail(exitcode.Usage, fmt.Sprintf("--lock-wait must be between 0 and %s", schedule.MaxLockWait))
	case o.listen != "" && o.once:
		return f.fail(exitcode.Usage, "--listen serves a running scheduler; --once exits after its runs")
	}
	l, code, ok := f.loadValid(ctx, o.config)
	if !ok {
		return code
	}
	triggers := schedule.TriggersOf(l.File)
	if o.job != "" {
		if l.File.Job(o.job) == nil {
			return f.fail(exitcode.Usage, fmt.Sprintf("no job %q in %s", o.job, l.File.Path))
		}
		if !hasTrigger(triggers, o.job) {
			// --once --job runs the job now, whatever its cron: it needs none.
			triggers = append(triggers, schedule.Trigger{Job: o.job, Cron: []string{"@daily"}})
		}
	}
	if len(triggers) == 0 {
		return f.fail(exitcode.Config, fmt.Sprintf("no job of %s has a cron: trigger (add cron: [\"*/30 * * * *\"] to a job, or use retrywise run)", l.File.Path))
	}
	dir := o.history
	if dir == "" {
		var err error
		if dir, err = schedule.DefaultDir(environ.Map(f.env)); err != nil {
			return f.fail(exitcode.Config, err.Error())
		}
	}
	hist, err := schedule.OpenHistory(dir, o.keep)
	if err != nil {
		return f.fail(exitcode.Config, "cannot open the history: "+err.Error())
	}
	defer hist.Close()

	m := metrics.New()
	clk := clockwork.NewRealClock()
	logf := func(line string) {
		fmt.Fprintf(f.stderr, "retrywise schedule: %s\n", f.redactor().String(line))
	}
	s := &schedule.Scheduler{
		Triggers: triggers, Clock: clk, History: hist, Grace: o.grace, Log: logf,
		LockWait: o.lockWait, LockClock: f.clock,
		Run: func(ctx context.Context, name string) (int, []byte) {
			job := l.File.Job(name)
			js := f.jobSession(l, job)
			defer js.Close()
			// Inside a workflow (a cron workflow's --once), each exec
			// step's attempts get file commands of their own, as in run.
			wf, err := f.workflowFiles(ctx, js.Red, js.Stderr)
			if err != nil {
				logf(err.Error())
				return exitcode.Config, nil
			}
			js.Runner.Services.FileCommands = wf.forwarder()
			rep := js.Run(ctx)
			wf.writeSummary()
			js.Finish(rep)
			rep.Run.ExitCode = wf.exit(rep.Run.ExitCode)
			m.Observe(rep)
			for _, t := range triggers {
				if t.Job == name && len(t.Cron) > 0 {
					m.SetNext(name, schedule.Next(t, clk.Now()))
				}
			}
			return rep.Run.ExitCode, rep.MaskedJSON(js.Red.String)
		},
	}
	if o.once {
		return s.Once(ctx, o.job)
	}
	for _, t := range triggers {
		m.SetNext(t.Job, schedule.Next(t, clk.Now()))
	}
	if o.listen != "" {
		health := &metrics.Health{}
		srvCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		bound, err := metrics.Serve(srvCtx, o.listen, metrics.Mux(m, health), logf)
		if err != nil {
			return f.fail(exitcode.Config, "--listen: "+err.Error())
		}
		logf("serving /healthz and /metrics on " + bound)
		go func() {
			<-ctx.Done()
			health.SetServing(false) // 503 while the running jobs get their grace
		}()
	}
	names := make([]string, len(triggers))
	for i, t := range triggers {
		names[i] = t.Job + " (" + strings.Join(t.Cron, ", ") + ")"
	}
	logf(fmt.Sprintf("history %s; jobs %s", hist.Dir(), strings.Join(names, "; ")))
	code = s.Serve(ctx)
	if code == exitcode.OK && ctx.Err() != nil {
		// Stopped by a signal with nothing running: the signal's code, as every command.
		return exitForCause(ctx)
	}
	return code
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

// exitForCause is the exit code of a command stopped by ctx: the signal's
// (130 for SIGINT, 143 for SIGTERM), else 130.
func exitForCause(ctx context.Context) int {
	var sig *interrupt.Signal
	if errors.As(context.Cause(ctx), &sig) {
		return sig.ExitCode()
	}
	return exitcode.Interrupted
}
