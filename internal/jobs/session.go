package jobs

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/step"
	"github.com/retrywise/retrywise/internal/userfile"
)

// Loaded is a validated job file with the egress prober its runs share,
// built from the file's defaults.
type Loaded struct {
	File   *File
	Prober *egress.Prober
}

// LoadFile reads and validates path ("" means the default places) with
// the step kinds' catalog; errs holds every finding of an invalid file,
// err an operational failure (no file, unreadable). env is the process's
// environment (the prober's proxies).
func LoadFile(ctx context.Context, path string, env []string) (*Loaded, Errors, error) {
	if path == "" {
		p, err := Find(".")
		if err != nil {
			return nil, nil, err
		}
		path = p
	}
	src, err := ReadFile(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("cannot read the job file: %w", err)
	}
	return LoadSource(ctx, path, src, env)
}

// LoadSource validates src, read from path; ctx stops it (its cause is
// then err).
func LoadSource(ctx context.Context, path string, src []byte, env []string) (*Loaded, Errors, error) {
	file, errs, err := LoadContext(ctx, path, src, Steps())
	if err != nil {
		return nil, nil, err
	}
	if len(errs) > 0 {
		// An error may quote the file's own secrets (timeout: "<token>").
		red := redact.New(redact.Options{Values: redact.FileSecrets(src)})
		for _, e := range errs {
			e.Path, e.Msg, e.Fix = red.String(e.Path), red.String(e.Msg), red.String(e.Fix)
		}
		return nil, errs, nil
	}
	if len(file.Warnings) > 0 {
		// A warning may quote a value too.
		red := redact.New(redact.Options{Values: redact.FileSecrets(src)})
		for _, e := range file.Warnings {
			e.Path, e.Msg, e.Fix = red.String(e.Path), red.String(e.Msg), red.String(e.Fix)
		}
	}
	// The run's one prober, from the egress keys of defaults.
	var e step.EgressConfig
	fields := step.EgressFields(&e)
	for _, s := range file.Defaults.Run {
		if fd := step.Lookup(fields, s.Key); fd != nil {
			if err := fd.SetValues(s.Values); err != nil {
				return nil, Errors{{Path: path, Pos: s.Pos, Msg: fmt.Sprintf("%s: %v", s.Key, err)}}, nil
			}
		}
	}
	p, err := e.Prober(env, 0)
	if err != nil {
		return nil, Errors{{Path: path, Msg: "defaults: " + err.Error()}}, nil
	}
	return &Loaded{File: file, Prober: p}, nil, nil
}

// Pick returns the job named name, or the file's only job.
func (f *File) Pick(name string) (*Job, error) {
	names := make([]string, len(f.Jobs))
	for i, j := range f.Jobs {
		names[i] = j.Name
	}
	sort.Strings(names)
	if name != "" {
		if j := f.Job(name); j != nil {
			return j, nil
		}
		return nil, fmt.Errorf("no job %q in %s: the jobs are %s", name, f.Path, strings.Join(names, ", "))
	}
	if len(f.Jobs) == 1 {
		return f.Jobs[0], nil
	}
	return nil, fmt.Errorf("%s has %d jobs: choose one with --job (%s)", f.Path, len(f.Jobs), strings.Join(names, ", "))
}

// SessionOptions are what a run of a job writes to and runs with.
type SessionOptions struct {
	// Env is the process's environment.
	Env []string
	// Stdin is the run's standard input; Stdout and Stderr its streams,
	// masked by the session.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TextStdout and TextStderr take retrywise's own text (the plan, the
	// progress lines, the report); nil means Stdout and Stderr. The
	// command line inside a workflow defuses them, as the steps' output
	// is not.
	TextStdout, TextStderr io.Writer
	// Redactor returns the process's masker with extra values (the file's
	// secrets).
	Redactor func(masks ...string) *redact.Redactor
	// Services are the step services; the session sets their prober to
	// the file's.
	Services *step.Services
	// Clock drives every wait.
	Clock clock.Clock
	// StdoutTerminal is true when the process's stdout is a terminal.
	StdoutTerminal bool
	// Preflight probes every host the job will touch before its first
	// step, as the job's preflight: true does.
	Preflight bool
	// Memory is the job's hindsight across runs; nil means none.
	Memory *hindsight.Memory
}

// Session is one run of a job: its masked streams and its runner.
type Session struct {
	Red *redact.Redactor
	// Stdout and Stderr are the steps' streams, masked.
	Stdout, Stderr *redact.Writer
	// TextStdout and TextStderr are retrywise's own text, masked
	// (SessionOptions.TextStdout).
	TextStdout, TextStderr *redact.Writer
	Runner                 *Runner
}

// NewSession prepares a run of job: every value the defaults name as
// secret, and the file's own secrets, are masked before anything is printed.
func NewSession(l *Loaded, job *Job, o SessionOptions) *Session {
	env := environ.Map(o.Env)
	var secrets []string
	for _, name := range l.File.Defaults.Secrets {
		if v, ok := env[name]; ok && v != "" {
			secrets = append(secrets, v)
		}
	}
	s := &Session{Red: o.Redactor(secrets...)}
	registerFileSecrets(s.Red, job)
	if o.Memory != nil {
		o.Memory.Mask = s.Red.String // a secret is never a target in the book
	}
	s.Stdout, s.Stderr = s.Red.Writer(o.Stdout), s.Red.Writer(o.Stderr)
	s.TextStdout, s.TextStderr = s.Stdout, s.Stderr
	if o.TextStdout != nil {
		s.TextStdout = s.Red.Writer(o.TextStdout)
	}
	if o.TextStderr != nil {
		s.TextStderr = s.Red.Writer(o.TextStderr)
	}
	svc := *o.Services
	svc.Prober = l.Prober
	svc.Rules = l.File.Defaults.Rules
	s.Runner = &Runner{
		File: l.File, Job: job, Env: o.Env, Stdin: o.Stdin, Stdout: s.Stdout, Stderr: s.Stderr, Redactor: s.Red, Clock: o.Clock,
		Log: s.Log, Services: &svc, StdoutTerminal: o.StdoutTerminal, Preflight: o.Preflight,
		Memory: o.Memory,
	}
	return s
}

// Log prints one progress line on stderr, after what the steps wrote.
func (s *Session) Log(line string) {
	s.Stdout.Flush()
	s.Stderr.Flush()
	fmt.Fprintf(s.TextStderr, "retrywise: %s\n", line)
	s.TextStderr.Flush()
}

// Run runs the job and returns its report, masked.
func (s *Session) Run(ctx context.Context) *report.Run {
	rep := s.Runner.Run(ctx)
	rep.Mask(s.Red.String)
	s.Stdout.Flush()
	s.Stderr.Flush()
	return rep
}

// Plan prints the plan of a dry run on stdout (DryPlan); a plan that
// cannot be made is logged and exits 78.
func (s *Session) Plan() int {
	plans, err := s.Runner.DryPlan()
	if err != nil {
		s.Log(err.Error())
		return exitcode.Config
	}
	WritePlan(s.TextStdout, s.Runner.File, s.Runner.Job, plans)
	s.TextStdout.Flush()
	return exitcode.OK
}

// Finish prints the report on stderr, and the one-line headline last on a failure.
func (s *Session) Finish(rep *report.Run) {
	s.Stdout.Flush()
	s.Stderr.Flush()
	rep.WriteText(s.TextStderr)
	if rep.Run.ExitCode != exitcode.OK {
		fmt.Fprintf(s.TextStderr, "retrywise: %s\n", Headline(rep))
	}
	s.TextStderr.Flush()
}

// Close flushes the streams.
func (s *Session) Close() {
	s.Stdout.Close()
	s.Stderr.Close()
	if s.TextStdout != s.Stdout {
		s.TextStdout.Close()
	}
	if s.TextStderr != s.Stderr {
		s.TextStderr.Close()
	}
}

// registerFileSecrets masks what the job file itself holds as secret, before
// anything (the plan included) is printed: every value of a secret key
// (mask, token), and the env: values whose names mark a secret.
func registerFileSecrets(red *redact.Redactor, job *Job) {
	envVars := func(vs []EnvVar) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.Name + "=" + v.Value
		}
		return out
	}
	red.AddEnv(envVars(job.Env))
	for _, st := range job.Steps {
		red.AddEnv(envVars(st.Env))
		for _, k := range st.Kind.Keys() {
			if !k.Secret {
				continue
			}
			if s, ok := st.Settings.Get(k.Name); ok {
				red.Add(s.Values...)
			}
		}
		if s, ok := st.Settings.Get("run"); ok {
			for _, v := range s.Values {
				red.Add(redact.ScriptMasks(v)...)
			}
		}
	}
}

// Headline is the one line printed last on a failing run.
func Headline(r *report.Run) string {
	if r.Run.Detail != "" {
		return fmt.Sprintf("job %s %s (exit %d): %s", r.Run.Job, r.Run.Result, r.Run.ExitCode, r.Run.Detail)
	}
	for _, s := range r.Steps {
		if (s.Result == report.Failure || s.Result == report.Cancelled) && !s.ContinueOnError {
			msg := fmt.Sprintf("job %s failed at step %s (exit %d)", r.Run.Job, s.ID, r.Run.ExitCode)
			if s.Class != failure.None {
				msg += ": " + s.Class.String()
			}
			if s.Reason != "" {
				msg += ": " + s.Reason
			}
			return msg
		}
	}
	return fmt.Sprintf("job %s %s (exit %d)", r.Run.Job, r.Run.Result, r.Run.ExitCode)
}

// WritePlan prints what a run would do: each step's kind, target, settings
// (masked by the writer, one line per value) and policy.
func WritePlan(w io.Writer, file *File, job *Job, plans []Plan) {
	fmt.Fprintf(w, "plan of job %s (%s): %s; nothing is sent\n", job.Name, file.Path, report.Count(len(plans), "step"))
	if job.Timeout > 0 {
		fmt.Fprintf(w, "  timeout: %s\n", job.Timeout)
	}
	retryKeys := map[string]bool{}
	for _, k := range Steps().Retry {
		retryKeys[k.Name] = true
	}
	for _, p := range plans {
		st := p.Step
		fmt.Fprintf(w, "step %s: %s %s\n", st.ID, st.Kind.Name(), p.Target)
		if st.If != nil {
			planValue(w, "if", st.If.Source)
		}
		if st.ContinueOnError {
			fmt.Fprintf(w, "  continue-on-error: true\n")
		}
		for _, e := range p.Env {
			planValue(w, "env "+e.Name, e.Value)
		}
		for _, s := range p.Settings {
			if retryKeys[s.Key] {
				continue // the policy line shows them
			}
			// One line per value: a value the masker cuts (a credential
			// header) never hides the next one.
			for _, v := range s.Values {
				planValue(w, s.Key, v)
			}
		}
		fmt.Fprintf(w, "  policy: %s\n", p.Policy)
	}
}

// planValue prints one setting of the plan: on its line, or, when the
// value has several lines (a multi-line run:), as a block whose every line
// is indented under its key.
func planValue(w io.Writer, key, v string) {
	if !strings.Contains(v, "\n") {
		fmt.Fprintf(w, "  %s: %s\n", key, v)
		return
	}
	fmt.Fprintf(w, "  %s: |\n", key)
	for _, line := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
		if line == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// ReportFiles are a run's JSON and Markdown report files, created before
// it runs, so that a bad path fails before anything is sent.
type ReportFiles struct {
	json, markdown *os.File
}

// CreateReportFiles creates the files at the given paths ("" means none).
// A FIFO is opened once its reader comes; ctx abandons the wait, and the
// error is then a *userfile.WaitError.
func CreateReportFiles(ctx context.Context, jsonPath, mdPath string) (*ReportFiles, error) {
	rf := &ReportFiles{}
	var err error
	if jsonPath != "" {
		if rf.json, err = userfile.Open(ctx, jsonPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
			return nil, fmt.Errorf("cannot create the report file: %w", err)
		}
	}
	if mdPath != "" {
		if rf.markdown, err = userfile.Open(ctx, mdPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
			if rf.json != nil {
				rf.json.Close()
				userfile.RemoveIfRegular(jsonPath)
			}
			return nil, fmt.Errorf("cannot create the summary file: %w", err)
		}
	}
	return rf, nil
}

// Write renders r into the files, masked; a failure is printed on stderr.
// The writes are abandoned on a signal, or FinishGrace after one that came
// before (userfile.Finishing): a FIFO whose reader does not read cannot
// hold the process.
func (rf *ReportFiles) Write(ctx context.Context, r *report.Run, red *redact.Redactor, stderr io.Writer) {
	rf.WriteWith(ctx, r.WriteJSON, r.WriteMarkdown, red, stderr)
}

// WriteWith renders into the files with asJSON and asMarkdown, masked, as
// Write does: explain --since writes its table so.
func (rf *ReportFiles) WriteWith(ctx context.Context, asJSON, asMarkdown func(io.Writer) error, red *redact.Redactor, stderr io.Writer) {
	ctx, cancel := userfile.Finishing(ctx)
	defer cancel()
	put := func(f *os.File, what string, render func(io.Writer) error) {
		if f == nil {
			return
		}
		var b strings.Builder
		err := render(&b)
		if err == nil {
			err = userfile.WriteClose(ctx, f, []byte(red.String(b.String())))
		} else {
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "retrywise: cannot write the %s: %v\n", what, err)
		}
	}
	put(rf.json, "JSON report", asJSON)
	put(rf.markdown, "Markdown summary", asMarkdown)
}
