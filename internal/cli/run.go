package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/report"
)

const runSynopsis = `Usage: retrywise run [flags]

Runs one job of a job file (--config, default .github/retrywise.yml, then
retrywise.yml): its steps in order, each with its own retry policy, one
circuit-breaker registry and one egress prober for the whole run, into one
report. The file is validated first; an invalid file runs nothing (exit 78).
Exit 0, or the code of the first failing step that is not continue-on-error.`

const validateSynopsis = `Usage: retrywise validate [flags]

Validates a job file (--config, default .github/retrywise.yml, then
retrywise.yml) without running anything: every error is printed as
FILE:LINE:COL: message, with a one-line fix. Exit 78 on errors; 0 and one
line on stdout when the file is valid.`

// loadJobSource validates src, read from path; ctx stops it.
func (f *factory) loadJobSource(ctx context.Context, path string, src []byte) (*jobs.Loaded, jobs.Errors, error) {
	return jobs.LoadSource(ctx, path, src, f.env)
}

// countSteps counts the steps of every job.
func countSteps(file *jobs.File) int {
	n := 0
	for _, j := range file.Jobs {
		n += len(j.Steps)
	}
	return n
}

// validateOptions is what `retrywise validate` checks.
type validateOptions struct {
	f *factory
	// config is the job file ("" means the default places); workflow, when
	// set, a workflow file to check instead.
	config, workflow string
	// json prints the errors as one JSON array on stdout.
	json bool
}

// parseValidate parses `retrywise validate`'s flags into its options.
func parseValidate(f *factory, args []string) (*validateOptions, int, bool) {
	var opt options.Validate
	fs := fieldFlagSet("validate", validateSynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return nil, code, true
	}
	if len(pos) > 0 {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", pos[0])), true
	}
	if opt.Format != "text" && opt.Format != "json" {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("invalid --format %q: want text or json", opt.Format)), true
	}
	return &validateOptions{f: f, config: opt.Config, workflow: opt.Workflow, json: opt.Format == "json"}, 0, false
}

// runValidate loads the job file (app.LoadJobFile), or checks the
// workflow, and prints every error and warning with its position: exit 78
// when there is an error, 0 when there are only warnings.
func runValidate(ctx context.Context, o *validateOptions) int {
	f := o.f
	var l *jobs.Loaded
	var errs jobs.Errors
	if o.workflow != "" {
		var err error
		if errs, err = action.CheckWorkflow(ctx, o.workflow, f.env); err != nil {
			return f.failLoad(ctx, err)
		}
	} else {
		var code int
		var err error
		var invalid *app.InvalidJobFile
		l, code, err = f.application().LoadJobFile(ctx, o.config)
		switch {
		case errors.As(err, &invalid):
			errs = invalid.Errs
		case err != nil:
			return f.fail(code, err.Error())
		default:
			errs = l.File.Warnings
		}
	}
	red := f.redactor()
	// The messages may quote the file's values: masked before they are
	// encoded, since JSON escapes what it writes.
	nerr := 0
	for _, e := range errs {
		e.Path, e.Msg, e.Fix = red.String(e.Path), red.String(e.Msg), red.String(e.Fix)
		if !e.Warning {
			nerr++
		}
	}
	if o.json {
		w := red.Writer(f.stdout)
		defer w.Close()
		if errs == nil {
			errs = jobs.Errors{}
		}
		errs.WriteJSON(w)
		if nerr > 0 {
			return exitcode.Config
		}
		return exitcode.OK
	}
	if len(errs) > 0 {
		// Warnings are printed with the errors, or before the ok line.
		w := red.Writer(f.stderr)
		errs.WriteText(w)
		w.Close()
	}
	if nerr > 0 {
		return f.fail(exitcode.Config, fmt.Sprintf("%s: %s", errs[0].Path, report.Count(nerr, "error")))
	}
	if l == nil {
		fmt.Fprintf(f.stdout, "%s: ok\n", o.workflow)
		return exitcode.OK
	}
	fmt.Fprintf(f.stdout, "%s: ok (%s, %s)\n", l.File.Path, report.Count(len(l.File.Jobs), "job"), report.Count(countSteps(l.File), "step"))
	return exitcode.OK
}

// runOptions is what `retrywise run` (and the demo) runs.
type runOptions struct {
	f *factory
	// job is the job's name; "" means the file's only job.
	job string
	// reportPath and summaryPath receive the JSON and Markdown reports.
	reportPath, summaryPath string
	// dryRun prints the plan and runs nothing.
	dryRun bool
	// config is the job file's path; "" means the default places.
	config string
	// preflight probes every host the job will touch before its first step.
	preflight bool
	// history keeps the job's failures across runs (hindsight); "" means none.
	history string
	// persist is the hindsight rule of the command line.
	persist hindsight.Rule
}

// parseRun parses `retrywise run`'s flags into its options.
func parseRun(f *factory, args []string) (*runOptions, int, bool) {
	var opt options.Run
	fs := fieldFlagSet("run", runSynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return nil, code, true
	}
	if len(pos) > 0 {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", pos[0])), true
	}
	if err := opt.Persist.Check("--persist-after", "--persist-span"); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	return &runOptions{f: f, config: opt.Config, job: opt.Job, dryRun: opt.DryRun, preflight: opt.Preflight, reportPath: opt.Report, summaryPath: opt.Summary,
		history: opt.History, persist: opt.Persist}, 0, false
}

// runRun loads the job file (app.LoadJobFile) and runs its job.
func runRun(ctx context.Context, o *runOptions) int {
	f := o.f
	l, code, ok := f.loadValid(ctx, o.config)
	if !ok {
		return code
	}
	return f.runJob(ctx, l, *o)
}

// loadValid loads the job file at path ("" means the default places) for a
// command that runs it (app.LoadJobFile): an invalid file prints every
// error and runs nothing (78).
func (f *factory) loadValid(ctx context.Context, path string) (*jobs.Loaded, int, bool) {
	l, code, err := f.application().LoadJobFile(ctx, path)
	if err != nil {
		return nil, f.failErr(code, err), false
	}
	return l, 0, true
}

// failLoad is the exit of a job file that could not be loaded: 78, or
// 130/143 when a signal stopped the loading.
func (f *factory) failLoad(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		return f.fail(exitcode.ForCause(ctx), "stopped while loading the job file: "+err.Error())
	}
	return f.fail(exitcode.Config, err.Error())
}

// runJob runs one job of a loaded file (or prints its plan), writes its
// reports and returns the run's exit code.
func (f *factory) runJob(ctx context.Context, l *jobs.Loaded, o runOptions) int {
	jo := app.JobOptions{Loaded: l, Job: o.job, Preflight: o.preflight, Session: f.jobStreams(), Persist: o.persist}
	if o.history != "" && !o.dryRun {
		hist, code, err := f.application().OpenHindsight(o.history)
		if err != nil {
			return f.failErr(code, err)
		}
		defer hist.Close()
		jo.Hindsight = hist
	}
	js, code, err := f.application().OpenJob(jo)
	if err != nil {
		return f.failErr(code, err)
	}
	defer js.Close()
	if o.dryRun {
		return js.Plan()
	}
	// Create the report files first, so that a bad path fails before anything runs.
	files, err := jobs.CreateReportFiles(ctx, o.reportPath, o.summaryPath)
	if err != nil {
		return f.failOpen(ctx, err)
	}
	// Inside a workflow, each exec step's attempts get file commands of
	// their own, and the final attempts' reach the runner's.
	wf, err := f.workflowFiles(ctx, js.Red, js.Stderr)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	js.Runner.Services.FileCommands = wf.forwarder()
	rep, code, _ := f.application().RunJob(ctx, js)
	files.Write(ctx, rep, js.Red, js.TextStderr)
	wf.writeSummary()
	js.Finish(rep)
	return wf.exit(code)
}

// jobStreams are a job's streams: the process's, as they are for the
// steps' output, and for retrywise's own text (defused inside a workflow).
func (f *factory) jobStreams() jobs.SessionOptions {
	return jobs.SessionOptions{
		Stdin: f.stdin, Stdout: f.rawStdout, Stderr: f.rawStderr, TextStdout: f.stdout, TextStderr: f.stderr,
		StdoutTerminal: f.stdoutTerminal(),
	}
}
