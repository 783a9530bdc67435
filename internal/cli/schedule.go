package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/schedule"
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
	f                            *factory
	config, history, listen, job string
	keep                         int
	grace, lockWait              time.Duration
	once                         bool
	persist                      hindsight.Rule
}

// parseSchedule parses `retrywise schedule`'s flags into its options.
func parseSchedule(f *factory, args []string) (*scheduleOptions, int, bool) {
	var opt options.Schedule
	fs := fieldFlagSet("schedule", scheduleSynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return nil, code, true
	}
	o := &scheduleOptions{f: f, config: opt.Config, history: opt.History, listen: opt.Listen, job: opt.Job,
		keep: opt.Keep, grace: opt.Grace, lockWait: opt.LockWait, once: opt.Once, persist: opt.Persist}
	lockWaitSet := false
	fs.Visit(func(fl *flag.Flag) { lockWaitSet = lockWaitSet || fl.Name == "lock-wait" })
	switch {
	case len(pos) > 0:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", pos[0])), true
	case o.job != "" && !o.once:
		return nil, f.fail(exitcode.Usage, "--job needs --once: the scheduler runs every job on its cron"), true
	case o.keep < 1:
		return nil, f.fail(exitcode.Usage, "--keep must be at least 1"), true
	case o.persist.Check("--persist-after", "--persist-span") != nil:
		return nil, f.fail(exitcode.Usage, o.persist.Check("--persist-after", "--persist-span").Error()), true
	case o.grace < 0:
		return nil, f.fail(exitcode.Usage, "--grace must not be negative"), true
	case lockWaitSet && o.job == "":
		return nil, f.fail(exitcode.Usage, "--lock-wait needs --once --job: plain --once skips a history another scheduler holds, and the scheduler refuses it"), true
	case o.lockWait < 0 || o.lockWait > schedule.MaxLockWait:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("--lock-wait must be between 0 and %s", schedule.MaxLockWait)), true
	case o.listen != "" && o.once:
		return nil, f.fail(exitcode.Usage, "--listen serves a running scheduler; --once exits after its runs"), true
	}
	return o, 0, false
}

// runSchedule loads the job file and runs its jobs on their cron
// (app.Schedule); the log's lines go to stderr, masked.
func runSchedule(ctx context.Context, o *scheduleOptions) int {
	f := o.f
	l, code, ok := f.loadValid(ctx, o.config)
	if !ok {
		return code
	}
	logf := func(line string) {
		fmt.Fprintf(f.stderr, "retrywise schedule: %s\n", f.redactor().String(line))
	}
	code, err := f.application().Schedule(ctx, app.ScheduleOptions{
		Loaded: l, History: o.history, Keep: o.keep, Grace: o.grace, Listen: o.listen,
		Once: o.once, Job: o.job, LockWait: o.lockWait, Log: logf,
		Run: func(ctx context.Context, name string, store hindsight.Store) (*report.Run, int, []byte) {
			js, code, err := f.application().OpenJob(app.JobOptions{Loaded: l, Job: name, Session: f.jobStreams(), Hindsight: store, Persist: o.persist})
			if err != nil {
				logf(err.Error())
				return nil, code, nil
			}
			defer js.Close()
			// Inside a workflow (a cron workflow's --once), each exec
			// step's attempts get file commands of their own, as in run.
			wf, err := f.workflowFiles(ctx, js.Red, js.Stderr)
			if err != nil {
				logf(err.Error())
				return nil, exitcode.Config, nil
			}
			js.Runner.Services.FileCommands = wf.forwarder()
			rep, code, _ := f.application().RunJob(ctx, js)
			wf.writeSummary()
			js.Finish(rep)
			rep.Run.ExitCode = wf.exit(code)
			return rep, rep.Run.ExitCode, rep.MaskedJSON(js.Red.String)
		},
	})
	if err != nil {
		return f.failErr(code, err)
	}
	return code
}
