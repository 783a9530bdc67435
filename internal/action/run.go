package action

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/filecmd"
	"github.com/retrywise/retrywise/internal/ghissue"
	"github.com/retrywise/retrywise/internal/gitpush"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
	"github.com/retrywise/retrywise/internal/workflowtext"
)

// FlagExceptions are the flags of a mode that are not inputs: the action
// chooses the report files, and the child's stdout is the log, so it is
// always live; an exec step's hosts are for a job's preflight, and its
// outputs for a job's validation.
var FlagExceptions = []string{"report", "summary", "stdout", "stdout-max", "hosts", "outputs"}

// Flags returns the flags of a mode that are inputs, each once, sorted:
// the flags generated from the mode's step kind (internal/step), or the
// config mode's: run's (internal/options) but its mode inputs (--config,
// --job) and the exceptions.
func Flags(m Mode) []*flag.Flag {
	fs := flag.NewFlagSet(string(m), flag.ContinueOnError)
	var modeInputs []string
	var fields []*step.Field
	if k := step.KindNamed(m.Kind()); k != nil {
		fields = k.Fields()
	} else if m == ModeJob {
		fields = (&options.Run{}).Fields()
		modeInputs = ModeInputs(m)
	}
	step.Flags(fs, fields)
	for _, f := range fields {
		if f.NoInput {
			modeInputs = append(modeInputs, f.Name) // not an input: the action chooses (or lacks) it
		}
	}
	var out []*flag.Flag
	fs.VisitAll(func(fl *flag.Flag) {
		if len(fl.Name) > 1 && !slices.Contains(FlagExceptions, fl.Name) && !slices.Contains(modeInputs, fl.Name) {
			out = append(out, fl)
		}
	})
	return out
}

// Modes are the action's modes in the order the docs list them.
var Modes = []Mode{ModeRun, ModePush, ModeHTTP, ModeJob, ModeExplain}

// Inputs returns every input the action takes: the common ones, each
// mode's own and every mode's flags, sorted; action.yml declares exactly these.
func Inputs() []string {
	set := map[string]bool{}
	for _, n := range CommonInputs() {
		set[n] = true
	}
	for _, m := range Modes {
		for _, n := range ModeInputs(m) {
			set[n] = true
		}
		for _, fl := range Flags(m) {
			set[fl.Name] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Host is what the command line gives the action: the process's streams
// and the application (its environment and services).
type Host struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// App runs the use cases, over the process's environment and services.
	App *app.App
}

// actionRun is one run of the action.
type actionRun struct {
	h      *Host
	app    *app.App
	mode   Mode
	getenv Getenv
	// input reads an input, trimmed, "" when unset.
	input func(name string) string
	// env is the steps' environment: the process's, with the workspace
	// added to git's safe.directory.
	env []string
	red *redact.Redactor
	// out is the one stream retrywise writes the log to: a command's stdout
	// and stderr, and retrywise's own lines, in the order the runner reads them.
	out            *lockedWriter
	stdout, stderr *redact.Writer
	log            *Log
	files          *Files
	// tempDir is $RUNNER_TEMP, or the system's temporary folder: the
	// step's own files (scripts, file commands).
	tempDir string
	// shareDir is where the files later steps read go (the JSON report,
	// http's body-file), and sharedAs is the path they see it at.
	shareDir, sharedAs string
	summary            bool
	issues             ghissue.Mode
	notes              []string
	// worst, when set, is the step whose failure the outputs and the
	// annotation name (explain: the worst class), instead of the first
	// that failed; headline replaces the run's; extra are outputs of the mode.
	worst    *report.Step
	headline string
	extra    map[string]string
	// issueRun, when set, is the run the failure issue is about (explain:
	// the explained run's workflow), instead of this job's; issueSkip says
	// why report-issue does nothing this time ("" when it acts).
	issueRun  *ghissue.Run
	issueSkip string
	// fw gives the exec steps' attempts file commands of their own and
	// copies the final attempts' to the runner's; nil when there are none.
	fw *filecmd.Forwarder
	// rule is hindsight's (persist-after, persist-span); mem and store
	// are the run's memory and its book, nil when hindsight is off.
	rule  hindsight.Rule
	mem   *hindsight.Memory
	store *carried
}

// lockedWriter serialises the writes of several writers onto one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// midLine is true when the last byte written ended no line.
	midLine bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if n > 0 {
		l.midLine = p[n-1] != '\n' && p[n-1] != '\r'
	}
	return n, err
}

// EndLine ends the line the stream is in the middle of, if any: a command
// must start its own line, whatever a step printed last (a line of a
// server's output left open would otherwise swallow the command that
// resumes the reading of commands).
func (l *lockedWriter) EndLine() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.midLine {
		return nil
	}
	_, err := io.WriteString(l.w, "\n")
	if err == nil {
		l.midLine = false
	}
	return err
}

// Main runs the action's mode, as `retrywise action` (the flags already
// parsed), and returns the exit code.
func Main(ctx context.Context, h *Host) int {
	envMap := environ.Map(h.App.Env)
	a := &actionRun{h: h, app: h.App, getenv: func(k string) string { return envMap[k] }}
	a.input = func(name string) string { return strings.TrimSpace(a.getenv(InputVar(name))) }
	if a.getenv("GITHUB_OUTPUT") == "" {
		return a.fail(exitcode.Config, (&MissingError{Var: "GITHUB_OUTPUT"}).Error()+"; elsewhere use retrywise exec, push, http or run")
	}
	var err error
	if a.mode, err = ChooseMode(a.input); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	if err := a.checkInputs(); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	if a.summary, err = ParseBool("step-summary", a.input("step-summary"), true); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	if a.issues, err = ghissue.ParseMode(a.input("report-issue")); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	if a.rule, err = a.hindsightRule(); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	a.placeFiles()
	a.env = a.app.Env
	if ws := a.getenv("GITHUB_WORKSPACE"); ws != "" {
		if env, err := gitpush.SafeDirectoryEnv(a.env, ws); err == nil {
			a.env = env
		} else {
			a.notes = append(a.notes, fmt.Sprintf("could not add $GITHUB_WORKSPACE to git's safe.directory: %v", err))
		}
	}
	a.env = a.gitIdentity(ctx, a.env)
	a.out = &lockedWriter{w: h.Stdout}
	a.files = NewFiles(ctx, a.getenv)
	switch a.mode {
	case ModeJob:
		return a.runJob(ctx)
	case ModeExplain:
		return a.runExplain(ctx)
	}
	return a.runStep(ctx)
}

// checkInputs refuses an input that belongs to another mode only, so that
// a setting is never silently ignored.
func (a *actionRun) checkInputs() error {
	wrong := MisplacedInputs(a.mode, a.input)
	if len(wrong) == 0 {
		return nil
	}
	return fmt.Errorf("input %s does not apply to %s mode%s", strings.Join(wrong, ", "), a.mode, modeHint(a.mode))
}

// modeHint is what a misplaced input of mode m is told besides its name.
func modeHint(m Mode) string {
	if m == ModeJob {
		return "; in config mode the job file holds the steps' settings"
	}
	return ""
}

// Applies reports whether input name applies to mode m: a common input,
// one of m's own (internal/options' table) or one of m's flags (its step
// kind's field table).
func Applies(m Mode, name string) bool {
	if slices.Contains(CommonInputs(), name) || slices.Contains(ModeInputs(m), name) {
		return true
	}
	for _, fl := range Flags(m) {
		if fl.Name == name {
			return true
		}
	}
	return false
}

// MisplacedInputs are the inputs given a value (input returns it) that do
// not apply to mode m (Applies), in Inputs' order; push: false chooses no
// mode and is never one.
func MisplacedInputs(m Mode, input func(name string) string) []string {
	var wrong []string
	for _, n := range Inputs() {
		if input(n) != "" && !(n == "push" && input(n) == "false") && !Applies(m, n) {
			wrong = append(wrong, n)
		}
	}
	return wrong
}

// ModesOf are the modes input name applies to, in Modes' order.
func ModesOf(name string) []Mode {
	var out []Mode
	for _, m := range Modes {
		if Applies(m, name) {
			out = append(out, m)
		}
	}
	return out
}

// setFields sets every non-empty input that is one of the mode's fields
// (a repeatable one takes one value per line).
func (a *actionRun) setFields(fields []*step.Field) error {
	for _, fl := range Flags(a.mode) {
		text := a.input(fl.Name)
		fd := step.Lookup(fields, fl.Name)
		if text == "" || fd == nil {
			continue
		}
		if err := fd.SetValues(Values(text, fd.Type == step.List)); err != nil {
			return errors.New(step.FieldErrors(err)[0].Render(step.InputName))
		}
	}
	return nil
}

// streams sets up the masked writers over the one log stream, and the log.
func (a *actionRun) streams(red *redact.Redactor) {
	a.red = red
	a.stdout, a.stderr = red.Writer(a.out), red.Writer(a.out)
	a.stdout.ForwardAddMask()
	a.stderr.ForwardAddMask()
	a.log = NewLog(a.out, a.getenv, red.String, a.flush)
}

func (a *actionRun) flush() {
	a.stdout.Flush()
	a.stderr.Flush()
}

func (a *actionRun) close() {
	a.stdout.Close()
	a.stderr.Close()
}

// line prints one of retrywise's own lines on the log, after what the step
// wrote: masked, then Neutral, since it may quote a name, a server's or an
// API's message, or a log line.
func (a *actionRun) line(format string, args ...any) {
	a.flush()
	a.out.EndLine()
	io.WriteString(a.stderr, Neutral(a.red.String("retrywise: "+fmt.Sprintf(format, args...)))+"\n")
	a.stderr.Flush()
}

// warn prints a warning annotation; one that cannot be written is a line.
func (a *actionRun) warn(title, msg string) {
	if err := a.log.Warning(title, msg); err != nil {
		a.line("%s: %s", title, msg)
	}
}

// foreign reports whether a kind's output comes from elsewhere (a server,
// a remote): the runner must not read workflow commands in it. A run:
// script's output is the user's and passes as it is.
func foreign(kind string) bool { return kind != "exec" }

// group returns the Attempting hook that puts each attempt's output in its
// own group, behind stop-commands when its output is foreign.
func (a *actionRun) group(label func(n, max int) string, kind string) func(n, max int) func() {
	return func(n, max int) func() {
		a.log.Group(label(n, max))
		var resume func() error
		if foreign(kind) {
			resume, _ = a.log.StopCommands()
		}
		return func() {
			a.flush()
			if resume != nil {
				resume()
			}
			a.log.EndGroup()
		}
	}
}

// runStep runs the run, push or url mode: one step of the mode's kind.
func (a *actionRun) runStep(ctx context.Context) int {
	h := a.h
	k := step.KindNamed(a.mode.Kind())
	c := k.New()
	fields := c.Fields()
	if err := a.setFields(fields); err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	switch cfg := c.(type) {
	case *step.PushConfig:
		cfg.Args = strings.Fields(a.input("push-args"))
	case *step.HTTPConfig:
		cfg.URL = a.input("url")
		if cfg.Output == "" {
			// The body is an output (body-file): stdout is the log.
			cfg.Output, _ = a.shareFile("retrywise-body-")
		}
	case *step.ExecConfig:
		cfg.Run, cfg.Shell = a.input("run"), a.input("shell")
		cfg.Stdout = "live" // the log
		if cfg.Dir = a.input("working-directory"); cfg.Dir != "" {
			if st, err := os.Stat(cfg.Dir); err != nil || !st.IsDir() {
				return a.fail(exitcode.Config, fmt.Sprintf("invalid input working-directory %q: not a folder", cfg.Dir))
			}
		}
	}
	p, err := step.Prepare(ctx, k, c)
	if err != nil && ctx.Err() != nil {
		// A file an input names (rules) waited: a FIFO no one writes.
		return a.fail(exitcode.ForCause(ctx), step.FieldErrors(err)[0].Render(step.InputName))
	}
	if err != nil {
		return a.fail(exitcode.Usage, step.FieldErrors(err)[0].Render(step.InputName))
	}
	a.streams(a.app.Redactor(append([]string{a.input("token")}, c.Shared().Masks...)...))
	defer a.close()
	if err := a.log.Mask(a.red.Given()...); err != nil {
		return a.fail(exitcode.Config, err.Error())
	}
	opts := app.StepOptions{Step: p}
	if k == step.ExecKind || k == step.PushKind {
		done, err := a.forwarder(func(name string) string {
			return fmt.Sprintf("it is only inside the output outputs (fromJSON(steps.<id>.outputs.outputs)[%q])", name)
		})
		if err != nil {
			return a.fail(exitcode.Config, "cannot create the script's file commands: "+err.Error())
		}
		defer done()
		opts.FileCommands = a.fw
	}
	opts.IO = &step.IO{
		Stdin: h.Stdin, Stdout: a.stdout, Stderr: a.stderr, Red: a.red, Env: a.env, TempDir: a.tempDir, OutputsOnly: true, Setting: step.InputSetting,
		Progress: func(at retry.Attempt, max int) {
			if line, ok := report.Progress(at, max); ok {
				a.line("%s", line)
			}
		},
		Attempting: a.group(func(n, max int) string { return fmt.Sprintf("attempt %d of %d: %s", n, max, p.Target()) }, k.Name),
	}
	start := a.app.Clock.Now()
	var targets []string
	if k == step.HTTPKind || k == step.PushKind {
		targets = targetHosts(p.Target())
	}
	if a.mem, a.store = a.openHindsight(ctx, a.rule); a.mem != nil {
		a.mem.Mask = a.red.String // a secret is never a target in the issue's book
		opts.IO.Hindsight = a.mem.Hook("step", targets, start)
	}
	rep, code, err := a.app.RunStep(ctx, opts)
	if err != nil {
		rep = report.NotRun(k.Name, p.Target(), code, err.Error(), p.Policy())
	}
	a.mem.Remember("step", rep, targets, start)
	rep.Notes = append(rep.Notes, a.notes...)
	if bf, ok := rep.Outputs["body-file"].(string); ok {
		os.Chmod(bf, 0o644) // readable by the runner's user, for whom a container's root made it
		rep.Outputs["body-file"] = a.shared(bf)
	}
	outputs := map[string]any{}
	for n, v := range rep.Outputs {
		outputs[n] = v
	}
	if a.fw != nil {
		// The script's (or a push hook's) $GITHUB_OUTPUT, copied to the
		// runner's as it ended, is in the output outputs too.
		for _, e := range a.fw.Outputs() {
			outputs[e.Name] = e.Value
		}
	}
	if k != step.ExecKind {
		a.passOutputs(rep.Outputs)
	}
	if a.mode == ModePush && !rep.OK() {
		a.explainRefusal(ctx, rep)
	}
	run := report.Single(rep, start, a.app.Clock.Now())
	return a.finish(ctx, run, outputs)
}

// placeFiles chooses the step's folders. On the runner itself and under a
// mounted $RUNNER_TEMP, everything goes there. In a container action the
// runner passes $RUNNER_TEMP as the host's path without mounting it, but
// mounts $RUNNER_TEMP/_github_home at $HOME: the files later steps read
// go to $HOME, named by their host path, and $RUNNER_TEMP is created in
// the container for the step's own files.
func (a *actionRun) placeFiles() {
	// Under act, RUNNER_TEMP (/tmp) is the action container's own: the
	// files later steps read go to act's shared folder.
	defer func() {
		if d := ActShare(a.getenv); d != "" {
			a.shareDir, a.sharedAs = d, d
		}
	}()
	a.tempDir = os.TempDir()
	t := a.getenv("RUNNER_TEMP")
	if t == "" {
		a.shareDir, a.sharedAs = a.tempDir, a.tempDir
		return
	}
	if isDir(t) {
		a.tempDir, a.shareDir, a.sharedAs = t, t, t
		return
	}
	if err := os.MkdirAll(t, 0o700); err == nil {
		a.tempDir = t
	}
	a.shareDir, a.sharedAs = a.tempDir, a.tempDir
	if home := a.getenv("HOME"); home != "" && isDir(home) && a.getenv("GITHUB_ACTIONS") == "true" {
		a.shareDir, a.sharedAs = home, filepath.Join(t, "_github_home")
	}
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// shareFile returns a fresh file for later steps: its path here and the
// path later steps see; "" when none can be made.
func (a *actionRun) shareFile(prefix string) (path, sharedAs string) {
	fh, err := os.CreateTemp(a.shareDir, prefix+"*")
	if err != nil {
		return "", ""
	}
	fh.Close()
	return fh.Name(), a.shared(fh.Name())
}

// shared is the path later steps see for a file in the share folder.
func (a *actionRun) shared(path string) string {
	if rest, ok := strings.CutPrefix(path, a.shareDir+string(filepath.Separator)); ok && a.sharedAs != a.shareDir {
		return filepath.Join(a.sharedAs, rest)
	}
	return path
}

// forwarder sets a.fw, the file commands of the run's exec steps; an
// output named like one of the action's own is not copied, and reserved
// says where it is instead. done removes their files.
func (a *actionRun) forwarder(reserved func(name string) string) (done func(), err error) {
	fw, done, err := NewForwarder(a.getenv, a.tempDir, a.files, a.red.String, a.warn)
	if err != nil {
		return nil, err
	}
	if fw != nil {
		fw.Reserved = func(name string) string {
			if !IsReserved(name) {
				return ""
			}
			return reserved(name)
		}
	}
	a.fw = fw
	return done, nil
}

// passOutputs sets a kind's outputs (body-file, status, pushed, ...) as
// the step's outputs; the action's own names win.
func (a *actionRun) passOutputs(outs map[string]any) {
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if IsReserved(n) {
			continue
		}
		if err := a.files.SetOutput(n, a.red.String(jobs.FormatOutput(outs[n]))); err != nil {
			a.warn("retrywise: output "+n, err.Error())
		}
	}
}

// runJob runs the config mode: a job of a job file, as `retrywise run` does.
func (a *actionRun) runJob(ctx context.Context) int {
	h := a.h
	dryRun, err := ParseBool("dry-run", a.input("dry-run"), false)
	if err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	preflight, err := ParseBool("preflight", a.input("preflight"), false)
	if err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	// The job's steps and retrywise's lines share the log's one stream.
	l, code, err := a.app.LoadJobFile(ctx, a.input("config"))
	if err != nil {
		var invalid *app.InvalidJobFile
		if errors.As(err, &invalid) {
			w := a.app.Redactor().Writer(a.out)
			text := workflowtext.NewLines(w)
			invalid.Errs.WriteText(text)
			text.Flush()
			w.Close()
		}
		return a.fail(code, err.Error())
	}
	jo := app.JobOptions{
		Loaded: l, Job: a.input("job"), Preflight: preflight,
		Session: jobs.SessionOptions{Env: a.env, Stdin: h.Stdin, Stdout: a.out, Stderr: a.out},
	}
	if !dryRun {
		if store := a.readBook(ctx, a.rule); store != nil {
			jo.Hindsight, jo.Persist, a.store = store, a.rule, store
			jo.HindsightPrefix = stepPrefix(a.getenv("GITHUB_ACTION"), a.input("matrix"))
		}
	}
	js, code, err := a.app.OpenJob(jo)
	if err != nil {
		return a.fail(code, err.Error())
	}
	js.Red.Add(a.input("token"))
	// A step's child may ask the runner to mask a value, as a run: script may.
	js.Stdout.ForwardAddMask()
	js.Stderr.ForwardAddMask()
	a.streams(js.Red)
	defer a.close()
	defer js.Close()
	if err := a.log.Mask(a.red.Given()...); err != nil {
		return a.fail(exitcode.Config, err.Error())
	}
	// The runner's progress lines quote the steps' targets and reasons.
	js.Runner.Log = func(line string) { js.Log(Neutral(js.Red.String(line))) }
	if dryRun {
		// Plan's text, each line defused: it quotes the job file.
		plans, err := js.Runner.DryPlan()
		if err != nil {
			js.Runner.Log(err.Error())
			return exitcode.Config
		}
		text := workflowtext.NewLines(js.Stdout)
		jobs.WritePlan(text, l.File, js.Runner.Job, plans)
		text.Flush()
		js.Stdout.Flush()
		return exitcode.OK
	}
	// Each exec step's attempts get file commands of their own; a step's
	// output named like one of the action's own is left out.
	done, err := a.forwarder(func(string) string {
		return "the action's own value is kept, and the step's is left out"
	})
	if err != nil {
		return a.fail(exitcode.Config, "cannot create the steps' file commands: "+err.Error())
	}
	defer done()
	js.Runner.Services.FileCommands = a.fw
	js.Runner.Attempting = func(id, kind string, n, max int) func() {
		flushAll := func() { js.Stdout.Flush(); js.Stderr.Flush() }
		flushAll()
		end := a.group(func(n, max int) string { return fmt.Sprintf("step %s: attempt %d of %d", id, n, max) }, kind)(n, max)
		return func() { flushAll(); end() }
	}
	a.mem = js.Runner.Memory
	run, _, _ := a.app.RunJob(ctx, js)
	if len(a.notes) > 0 && len(run.Steps) > 0 {
		run.Steps[0].Notes = append(run.Steps[0].Notes, a.notes...)
	}
	outputs := map[string]any{}
	for _, s := range run.Steps {
		if len(s.Outputs) > 0 {
			outputs[s.ID] = s.Outputs
		}
	}
	js.Stdout.Flush()
	js.Stderr.Flush()
	return a.finish(ctx, run, outputs)
}

// failedStep is the step whose failure decides the run: the first that
// failed and does not continue on error; nil when none did.
func failedStep(run *report.Run) *report.Step {
	for _, s := range run.Steps {
		if (s.Result == report.Failure || s.Result == report.Cancelled) && !s.ContinueOnError {
			return s
		}
	}
	return nil
}

// finish writes what every mode ends with: the report on the log, the
// JSON report, the outputs, the step summary, one annotation and the
// failure issue; it returns the run's exit code.
func (a *actionRun) finish(ctx context.Context, run *report.Run, outputs map[string]any) int {
	run.Mask(a.red.String)
	a.flush()
	if resume, err := a.log.StopCommands(); err == nil {
		writeNeutralText(a.stderr, run)
		a.flush()
		resume()
	}
	failed := failedStep(run)
	if a.worst != nil {
		failed = a.worst
	}
	headline := ""
	switch {
	case a.headline != "":
		headline = a.headline
		a.line("%s", headline)
	case run.Run.ExitCode != exitcode.OK:
		if len(run.Steps) == 1 && failed != nil {
			headline = failed.Headline()
		} else {
			headline = jobs.Headline(run)
		}
		a.line("%s", headline)
	}

	var reportPath string
	if path, sharedAs := a.shareFile("retrywise-report-"); path != "" {
		var b strings.Builder
		run.WriteJSON(&b)
		// Readable by the runner's user, for whom a container's root made it.
		if err := os.WriteFile(path, []byte(a.red.String(b.String())), 0o644); err == nil && os.Chmod(path, 0o644) == nil {
			reportPath = sharedAs
		}
	}
	if reportPath == "" {
		a.line("cannot write the JSON report under %s", a.shareDir)
	}
	attempts := 0
	for _, s := range run.Steps {
		attempts += s.AttemptCount()
	}
	set := map[string]string{
		"result":    string(run.Run.Result),
		"exit-code": strconv.Itoa(run.Run.ExitCode),
		"attempts":  strconv.Itoa(attempts),
		"report":    reportPath,
	}
	if failed != nil {
		set["class"], set["code"], set["reason"], set["remedy"] = failed.Class.String(), string(failed.Code), failed.Reason, failed.Remedy
	} else if run.Run.Result != report.Success && run.Run.Detail != "" {
		set["reason"] = run.Run.Detail
	}
	doc, cut, err := OutputsJSON(maskValues(outputs, a.red.String), MaxOutputsJSON)
	if err != nil {
		doc = "{}"
		a.warn("retrywise: outputs", err.Error())
	} else if cut {
		a.warn("retrywise: outputs cut", fmt.Sprintf("the outputs are over %d bytes of JSON: the longest values are replaced by a note in the output outputs; the JSON report (output report) has them", MaxOutputsJSON))
	}
	set["outputs"] = doc
	set["persistent"] = persistentOutput(run)
	for n, v := range a.extra {
		set[n] = v
	}
	for _, n := range Reserved {
		if err := a.files.SetOutput(n, a.red.String(set[n])); err != nil {
			a.line("cannot set the output %s: %v", n, err)
			break
		}
	}

	var md strings.Builder
	run.WriteMarkdown(&md)
	markdown := a.red.String(md.String())
	a.writeSummary(markdown)
	a.annotate(run, failed, headline)
	a.reportIssue(ctx, run, markdown)
	code, msg := a.files.WriteFailureExit(run.Run.ExitCode)
	if msg != "" {
		a.warn("retrywise: outputs not written", msg)
	}
	if _, ok := interrupt.FromContext(ctx); ok {
		// A signal came, during the step or while it was recorded (a
		// file command that waited on a FIFO no one reads): the exit is
		// the signal's.
		code = exitcode.ForCause(ctx)
	}
	a.flush()
	return code
}

// annotate writes one error annotation for the run's final failure, or one
// warning for each step that recovered from transient failures.
func (a *actionRun) annotate(run *report.Run, failed *report.Step, headline string) {
	if failed != nil {
		title := "retrywise: " + failed.ID + " failed"
		if failed.Class != failure.None {
			title = fmt.Sprintf("retrywise: %s failed (%s, %s)", failed.ID, failed.Class, failed.Code)
		}
		msg := headline
		if failed.Remedy != "" {
			msg += " — remedy: " + failed.Remedy
		}
		a.log.Error(title, msg)
		return
	}
	if run.Run.ExitCode != exitcode.OK {
		a.log.Error("retrywise: "+run.Run.Job+" "+string(run.Run.Result), headline)
		return
	}
	for _, s := range run.Steps {
		if s.OK() && s.AttemptCount() > 1 {
			why := ""
			for _, at := range s.Attempts {
				if !at.OK && at.Reason != "" {
					why = fmt.Sprintf(": attempt %d failed (%s: %s)", at.N, at.Class, at.Reason)
					break
				}
			}
			a.warn(fmt.Sprintf("retrywise: %s recovered", s.ID), fmt.Sprintf("%s succeeded after %d attempts%s", s.ID, s.AttemptCount(), why))
		}
	}
}

// maskValues masks every string inside outputs.
func maskValues(outputs map[string]any, mask func(string) string) map[string]any {
	s := &report.Step{Outputs: outputs}
	s.Mask(mask)
	return s.Outputs
}

// fail prints the one-line reason last on stderr and returns code. The
// reason is one line of data, masked: it may quote an input, a job file
// or an API's message.
func (a *actionRun) fail(code int, msg string) int {
	fmt.Fprintf(a.h.Stderr, "retrywise: %s\n", Neutral(a.app.Redactor().String(msg)))
	return code
}

// The identity a commit made in the action gets when nothing else names
// one: GitHub's own bot, as actions/checkout's users configure it.
const (
	botName  = "github-actions[bot]"
	botEmail = "41898282+github-actions[bot]@users.noreply.github.com"
)

// gitIdentity returns env with GIT_AUTHOR_* and GIT_COMMITTER_* set for the
// step: to the inputs git-user-name and git-user-email when given, else to
// the GitHub Actions bot when neither the environment nor the
// repository's git config names a committer (a fresh container has none,
// and git's "Author identity unknown" would fail the script).
func (a *actionRun) gitIdentity(ctx context.Context, env []string) []string {
	name, email := a.input("git-user-name"), a.input("git-user-email")
	if name == "" && email == "" {
		m := environ.Map(env)
		for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "EMAIL"} {
			if m[k] != "" {
				return env
			}
		}
		dir := a.input("working-directory")
		if dir == "" {
			dir = a.getenv("GITHUB_WORKSPACE")
		}
		cmd := exec.CommandContext(ctx, "git", "config", "--get", "user.email")
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "" {
			return env // the repository (or the user's config) names one
		} else if errors.Is(err, exec.ErrNotFound) {
			return env // no git: nothing to commit with
		}
	}
	if name == "" {
		name = botName
	}
	if email == "" {
		email = botEmail
	}
	return append(append([]string(nil), env...),
		"GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email, "GIT_COMMITTER_NAME="+name, "GIT_COMMITTER_EMAIL="+email)
}
