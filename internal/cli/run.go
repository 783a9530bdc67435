package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/redact"
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

// loaded is a validated job file with the services its run shares.
type loaded struct {
	file *jobs.File
	// run holds the services every step of the run shares; its prober is
	// built from the file's defaults.
	run *runServices
}

// loadJobFile reads and validates path ("" means the default places) with
// the kinds' catalog; errs holds every finding of an invalid file, err an
// operational failure (no file, unreadable).
func (f *factory) loadJobFile(ctx context.Context, path string) (*loaded, jobs.Errors, error) {
	if path == "" {
		p, err := jobs.Find(".")
		if err != nil {
			return nil, nil, err
		}
		path = p
	}
	src, err := jobs.ReadFile(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("cannot read the job file: %w", err)
	}
	return f.loadJobSource(ctx, path, src)
}

// loadJobSource validates src, read from path; ctx stops it (its cause
// is then err).
func (f *factory) loadJobSource(ctx context.Context, path string, src []byte) (*loaded, jobs.Errors, error) {
	run := &runServices{}
	file, errs, err := jobs.LoadContext(ctx, path, src, f.catalog(run))
	if err != nil {
		return nil, nil, err
	}
	if len(errs) > 0 {
		return nil, errs, nil
	}
	// The run's one prober, from the egress keys of defaults.
	fs := flag.NewFlagSet("defaults", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ef := addEgressFlags(fs)
	for _, s := range file.Defaults.Run {
		if fs.Lookup(s.Key) == nil {
			continue
		}
		for _, v := range s.Values {
			if err := fs.Set(s.Key, v); err != nil {
				return nil, jobs.Errors{{Path: path, Pos: s.Pos, Msg: fmt.Sprintf("%s: %v", s.Key, err)}}, nil
			}
		}
	}
	p, err := f.prober(ef, 0)
	if err != nil {
		return nil, jobs.Errors{{Path: path, Msg: "defaults: " + err.Error()}}, nil
	}
	run.prober = p
	return &loaded{file: file, run: run}, nil, nil
}

// countSteps counts the steps of every job.
func countSteps(file *jobs.File) int {
	n := 0
	for _, j := range file.Jobs {
		n += len(j.Steps)
	}
	return n
}

// runValidate is `retrywise validate`.
func runValidate(ctx context.Context, f *factory, args []string) int {
	fs := newFlagSet("validate", validateSynopsis)
	config := fs.String("config", "", "the job `FILE`; empty means .github/retrywise.yml, then retrywise.yml")
	format := fs.String("format", "text", "how errors are printed: text (FILE:LINE:COL: message) or json (one JSON array on stdout)")
	if code, done := f.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0)))
	}
	if *format != "text" && *format != "json" {
		return f.fail(exitcode.Usage, fmt.Sprintf("invalid --format %q: want text or json", *format))
	}
	l, errs, err := f.loadJobFile(ctx, *config)
	if err != nil {
		return f.failLoad(ctx, err)
	}
	red := f.redactor()
	// The messages may quote the file's values: masked before they are
	// encoded, since JSON escapes what it writes.
	for _, e := range errs {
		e.Path, e.Msg, e.Fix = red.String(e.Path), red.String(e.Msg), red.String(e.Fix)
	}
	if *format == "json" {
		w := red.Writer(f.stdout)
		defer w.Close()
		if errs == nil {
			errs = jobs.Errors{}
		}
		errs.WriteJSON(w)
		if len(errs) > 0 {
			return exitcode.Config
		}
		return exitcode.OK
	}
	if len(errs) > 0 {
		w := red.Writer(f.stderr)
		errs.WriteText(w)
		w.Close()
		return f.fail(exitcode.Config, fmt.Sprintf("%s: %d error(s)", errs[0].Path, len(errs)))
	}
	fmt.Fprintf(f.stdout, "%s: ok (%d jobs, %d steps)\n", l.file.Path, len(l.file.Jobs), countSteps(l.file))
	return exitcode.OK
}

// runOptions is what `retrywise run` (and the demo) runs.
type runOptions struct {
	// job is the job's name; "" means the file's only job.
	job string
	// reportPath and summaryPath receive the JSON and Markdown reports.
	reportPath, summaryPath string
	// dryRun prints the plan and runs nothing.
	dryRun bool
	// config is the job file's path; "" means the default places.
	config string
}

// addRunFlags registers the flags run and demo share.
func addRunFlags(fs *flag.FlagSet, o *runOptions) {
	fs.StringVar(&o.reportPath, "report", "", "also write the run's report as JSON to `FILE` (docs/report.schema.json)")
	fs.StringVar(&o.summaryPath, "summary", "", "also write the run's report as Markdown to `FILE`")
}

// defineRunFlags registers `retrywise run`'s flags on fs.
func defineRunFlags(fs *flag.FlagSet, o *runOptions) {
	fs.StringVar(&o.config, "config", "", "the job `FILE`; empty means .github/retrywise.yml, then retrywise.yml")
	fs.StringVar(&o.job, "job", "", "the job to run (`NAME`); empty means the file's only job")
	fs.BoolVar(&o.dryRun, "dry-run", false, "validate, resolve every policy and setting known before the run, print the plan, and send nothing")
	addRunFlags(fs, o)
}

// runRun is `retrywise run`.
func runRun(ctx context.Context, f *factory, args []string) int {
	fs := newFlagSet("run", runSynopsis)
	var o runOptions
	defineRunFlags(fs, &o)
	if code, done := f.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0)))
	}
	l, code, ok := f.loadValid(ctx, o.config)
	if !ok {
		return code
	}
	return f.runJob(ctx, l, o)
}

// loadValid loads the job file at path ("" means the default places) for a
// command that runs it: an invalid file prints every error and runs nothing
// (78).
func (f *factory) loadValid(ctx context.Context, path string) (*loaded, int, bool) {
	l, errs, err := f.loadJobFile(ctx, path)
	if err != nil {
		return nil, f.failLoad(ctx, err), false
	}
	if len(errs) > 0 {
		w := f.redactor().Writer(f.stderr)
		errs.WriteText(w)
		w.Close()
		return nil, f.fail(exitcode.Config, fmt.Sprintf("%s is invalid (%d error(s)): nothing ran", errs[0].Path, len(errs))), false
	}
	return l, 0, true
}

// failLoad is the exit of a job file that could not be loaded: 78, or
// 130/143 when a signal stopped the loading.
func (f *factory) failLoad(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		return f.fail(exitForCause(ctx), "stopped while loading the job file: "+err.Error())
	}
	return f.fail(exitcode.Config, err.Error())
}

// runJob runs one job of a loaded file (or prints its plan), writes its
// reports and returns the run's exit code.
func (f *factory) runJob(ctx context.Context, l *loaded, o runOptions) int {
	job, code := pickJob(f, l.file, o.job)
	if job == nil {
		return code
	}
	js := f.jobSession(l, job)
	defer js.close()
	if o.dryRun {
		plans, err := js.runner.DryPlan()
		if err != nil {
			js.log(err.Error())
			return exitcode.Config
		}
		writePlan(js.stdout, l.file, job, plans)
		return exitcode.OK
	}
	// Create the report files first, so that a bad path fails before anything runs.
	files, err := createReportFiles(o.reportPath, o.summaryPath)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	rep := js.run(ctx)
	files.write(rep, js.red, js.stderr)
	js.finish(rep)
	return rep.Run.ExitCode
}

// jobSession is one run of a job: its masked streams and its runner.
type jobSession struct {
	red            *redact.Redactor
	stdout, stderr *redact.Writer
	runner         *jobs.Runner
}

// jobSession prepares a run of job: every value the defaults name as
// secret, and the file's own secrets, are masked before anything is printed.
func (f *factory) jobSession(l *loaded, job *jobs.Job) *jobSession {
	env := environ.Map(f.env)
	var secrets []string
	for _, name := range l.file.Defaults.Secrets {
		if v, ok := env[name]; ok && v != "" {
			secrets = append(secrets, v)
		}
	}
	js := &jobSession{red: f.redactor(secrets...)}
	registerFileSecrets(js.red, job)
	js.stdout, js.stderr = js.red.Writer(f.stdout), js.red.Writer(f.stderr)
	js.runner = &jobs.Runner{
		File: l.file, Job: job, Env: f.env, Stdin: f.stdin, Stdout: js.stdout, Stderr: js.stderr, Redactor: js.red, Clock: f.clock,
		Log: js.log,
	}
	return js
}

// log prints one progress line on stderr, after what the steps wrote.
func (js *jobSession) log(line string) {
	js.stdout.Flush()
	js.stderr.Flush()
	fmt.Fprintf(js.stderr, "retrywise: %s\n", line)
	js.stderr.Flush()
}

// run runs the job and returns its report, masked.
func (js *jobSession) run(ctx context.Context) *report.Run {
	rep := js.runner.Run(ctx)
	rep.Mask(js.red.String)
	js.stdout.Flush()
	js.stderr.Flush()
	return rep
}

// finish prints the report on stderr, and the one-line headline last on a failure.
func (js *jobSession) finish(rep *report.Run) {
	rep.WriteText(js.stderr)
	if rep.Run.ExitCode != exitcode.OK {
		fmt.Fprintf(js.stderr, "retrywise: %s\n", runHeadline(rep))
	}
	js.stderr.Flush()
}

// close flushes the streams.
func (js *jobSession) close() {
	js.stdout.Close()
	js.stderr.Close()
}

// registerFileSecrets masks what the job file itself holds as secret, before
// anything (the plan included) is printed: every mask and token value, and
// the env: values whose names mark a secret.
func registerFileSecrets(red *redact.Redactor, job *jobs.Job) {
	envVars := func(vs []jobs.EnvVar) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.Name + "=" + v.Value
		}
		return out
	}
	red.AddEnv(envVars(job.Env))
	for _, st := range job.Steps {
		red.AddEnv(envVars(st.Env))
		for _, key := range []string{"mask", "token"} {
			if s, ok := st.Settings.Get(key); ok {
				red.Add(s.Values...)
			}
		}
	}
}

// pickJob returns the job named name, or the file's only job; otherwise it
// prints why and returns the usage code.
func pickJob(f *factory, file *jobs.File, name string) (*jobs.Job, int) {
	names := make([]string, len(file.Jobs))
	for i, j := range file.Jobs {
		names[i] = j.Name
	}
	sort.Strings(names)
	if name != "" {
		if j := file.Job(name); j != nil {
			return j, 0
		}
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("no job %q in %s: the jobs are %s", name, file.Path, strings.Join(names, ", ")))
	}
	if len(file.Jobs) == 1 {
		return file.Jobs[0], 0
	}
	return nil, f.fail(exitcode.Usage, fmt.Sprintf("%s has %d jobs: choose one with --job (%s)", file.Path, len(file.Jobs), strings.Join(names, ", ")))
}

// runHeadline is the one line printed last on a failing run.
func runHeadline(r *report.Run) string {
	if r.Run.Detail != "" {
		return fmt.Sprintf("job %s %s (exit %d): %s", r.Run.Job, r.Run.Result, r.Run.ExitCode, r.Run.Detail)
	}
	for _, s := range r.Steps {
		if (s.Result == report.Failure || s.Result == report.Cancelled) && !s.ContinueOnError {
			msg := fmt.Sprintf("job %s failed at step %s (exit %d)", r.Run.Job, s.ID, r.Run.ExitCode)
			if s.Class != "" {
				msg += ": " + s.Class
			}
			if s.Reason != "" {
				msg += ": " + s.Reason
			}
			return msg
		}
	}
	return fmt.Sprintf("job %s %s (exit %d)", r.Run.Job, r.Run.Result, r.Run.ExitCode)
}

// writePlan prints what a run would do: each step's kind, target, settings
// (masked by the writer) and policy.
func writePlan(w io.Writer, file *jobs.File, job *jobs.Job, plans []jobs.Plan) {
	fmt.Fprintf(w, "plan of job %s (%s): %d steps; nothing is sent\n", job.Name, file.Path, len(plans))
	if job.Timeout > 0 {
		fmt.Fprintf(w, "  timeout: %s\n", job.Timeout)
	}
	for _, p := range plans {
		st := p.Step
		fmt.Fprintf(w, "step %s: %s %s\n", st.ID, st.Kind.Name(), p.Target)
		if st.If != nil {
			fmt.Fprintf(w, "  if: %s\n", st.If.Source)
		}
		if st.ContinueOnError {
			fmt.Fprintf(w, "  continue-on-error: true\n")
		}
		for _, e := range st.Env {
			fmt.Fprintf(w, "  env %s: %s\n", e.Name, e.Value)
		}
		for _, s := range p.Settings {
			if contains(retryFlagNames, s.Key) {
				continue
			}
			fmt.Fprintf(w, "  %s: %s\n", s.Key, strings.Join(s.Values, " | "))
		}
		fmt.Fprintf(w, "  policy: %s\n", p.Policy)
	}
}

// reportFiles are a run's JSON and Markdown report files, created before it runs.
type reportFiles struct {
	json, markdown *os.File
}

// createReportFiles creates the files at the given paths ("" means none).
func createReportFiles(jsonPath, mdPath string) (*reportFiles, error) {
	rf := &reportFiles{}
	var err error
	if jsonPath != "" {
		if rf.json, err = os.OpenFile(jsonPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
			return nil, fmt.Errorf("cannot create the report file: %w", err)
		}
	}
	if mdPath != "" {
		if rf.markdown, err = os.OpenFile(mdPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
			if rf.json != nil {
				rf.json.Close()
				os.Remove(jsonPath)
			}
			return nil, fmt.Errorf("cannot create the summary file: %w", err)
		}
	}
	return rf, nil
}

// write renders r into the files, masked; a failure is printed on stderr.
func (rf *reportFiles) write(r *report.Run, red *redact.Redactor, stderr io.Writer) {
	put := func(f *os.File, what string, render func(io.Writer) error) {
		if f == nil {
			return
		}
		var b strings.Builder
		err := render(&b)
		if err == nil {
			_, err = io.WriteString(f, red.String(b.String()))
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "retrywise: cannot write the %s: %v\n", what, err)
		}
	}
	put(rf.json, "JSON report", r.WriteJSON)
	put(rf.markdown, "Markdown summary", r.WriteMarkdown)
}
