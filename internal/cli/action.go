package cli

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

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gitpush"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const actionSynopsis = `Usage: retrywise action

The GitHub Action's entry point (action.yml: args: [action]). It reads the
action's inputs from INPUT_* as the runner sets them, runs the mode they
choose (run, push, url or config) with the mode's own defaults, and writes
the outputs, the step summary, one annotation and the JSON report under
$RUNNER_TEMP. It exits with the code the same work exits with on the
command line. See the README, "Use in a workflow".`

// actionFlagExceptions are the flags of a mode that are not inputs: the
// action chooses the report files, and the child's stdout is the log, so
// it is always live.
var actionFlagExceptions = []string{"report", "summary", "stdout", "stdout-max"}

// actionKind returns the step kind a mode runs; nil for the job mode.
func actionKind(m action.Mode) *kindDef {
	for _, k := range kinds() {
		if k.name == m.Kind() {
			return k
		}
	}
	return nil
}

// actionFlags returns the flags of a mode that are inputs, each once, sorted.
func actionFlags(m action.Mode) []*flag.Flag {
	var fs *flag.FlagSet
	if k := actionKind(m); k != nil {
		fs = newFlagSet(k.name, k.synopsis)
		k.define(fs)
	} else {
		fs = newFlagSet("run", runSynopsis)
		defineRunFlags(fs, &runOptions{})
	}
	var out []*flag.Flag
	fs.VisitAll(func(fl *flag.Flag) {
		if len(fl.Name) > 1 && !slices.Contains(actionFlagExceptions, fl.Name) && !(m == action.ModeJob && (fl.Name == "config" || fl.Name == "job")) {
			out = append(out, fl)
		}
	})
	return out
}

// actionModes are the action's modes in the order the README lists them.
var actionModes = []action.Mode{action.ModeRun, action.ModePush, action.ModeHTTP, action.ModeJob}

// actionInputs returns every input the action takes: the common ones, each
// mode's own and every mode's flags, sorted; action.yml declares exactly these.
func actionInputs() []string {
	set := map[string]bool{}
	for _, n := range action.CommonInputs {
		set[n] = true
	}
	for _, m := range actionModes {
		for _, n := range action.ModeInputs[m] {
			set[n] = true
		}
		for _, fl := range actionFlags(m) {
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

// actionRun is one run of the action.
type actionRun struct {
	f      *factory
	mode   action.Mode
	getenv action.Getenv
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
	log            *action.Log
	files          *action.Files
	// tempDir is $RUNNER_TEMP, or the system's temporary folder: the
	// step's own files (scripts, file commands).
	tempDir string
	// shareDir is where the files later steps read go (the JSON report,
	// http's body-file), and sharedAs is the path they see it at.
	shareDir, sharedAs string
	summary            bool
	issues             issueMode
	notes              []string
}

// lockedWriter serialises the writes of several writers onto one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// runAction is `retrywise action`.
func runAction(ctx context.Context, f *factory, args []string) int {
	fs := newFlagSet("action", actionSynopsis)
	if code, done := f.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q: the action takes its settings from its inputs (INPUT_*)", fs.Arg(0)))
	}
	envMap := environ.Map(f.env)
	a := &actionRun{f: f, getenv: func(k string) string { return envMap[k] }}
	a.input = func(name string) string { return strings.TrimSpace(a.getenv(action.InputVar(name))) }
	if a.getenv("GITHUB_OUTPUT") == "" {
		return f.fail(exitcode.Config, (&action.MissingError{Var: "GITHUB_OUTPUT"}).Error()+"; elsewhere use retrywise exec, push, http or run")
	}
	var err error
	if a.mode, err = action.ChooseMode(a.input); err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if err := a.checkInputs(); err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if a.summary, err = action.ParseBool("step-summary", a.input("step-summary"), true); err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if a.issues, err = parseIssueMode(a.input("report-issue")); err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	a.placeFiles()
	a.env = f.env
	if ws := a.getenv("GITHUB_WORKSPACE"); ws != "" {
		if env, err := gitpush.SafeDirectoryEnv(a.env, ws); err == nil {
			a.env = env
		} else {
			a.notes = append(a.notes, fmt.Sprintf("could not add $GITHUB_WORKSPACE to git's safe.directory: %v", err))
		}
	}
	a.out = &lockedWriter{w: f.stdout}
	a.files = action.NewFiles(a.getenv)
	if a.mode == action.ModeJob {
		return a.runJob(ctx)
	}
	return a.runStep(ctx)
}

// checkInputs refuses an input that belongs to another mode only, so that
// a setting is never silently ignored.
func (a *actionRun) checkInputs() error {
	mine := map[string]bool{}
	for _, n := range action.CommonInputs {
		mine[n] = true
	}
	for _, n := range action.ModeInputs[a.mode] {
		mine[n] = true
	}
	for _, fl := range actionFlags(a.mode) {
		mine[fl.Name] = true
	}
	var wrong []string
	for _, n := range actionInputs() {
		if !mine[n] && a.input(n) != "" && !(n == "push" && a.input(n) == "false") {
			wrong = append(wrong, n)
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	hint := ""
	if a.mode == action.ModeJob {
		hint = "; in config mode the job file holds the steps' settings"
	}
	return fmt.Errorf("input %s does not apply to %s mode%s", strings.Join(wrong, ", "), a.mode, hint)
}

// setFlags sets every non-empty input that is one of fs's flags; given
// reports which were set.
func (a *actionRun) setFlags(fs *flag.FlagSet) (given func(string) bool, err error) {
	set := map[string]bool{}
	var errs []error
	for _, fl := range actionFlags(a.mode) {
		text := a.input(fl.Name)
		if text == "" {
			continue
		}
		_, repeatable := fl.Value.(*stringList)
		for _, v := range action.Values(text, repeatable) {
			if err := fs.Set(fl.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("invalid input %s: %s", fl.Name, flagSetMessage(err)))
				break
			}
		}
		set[fl.Name] = true
	}
	return func(name string) bool { return set[name] }, errors.Join(errs...)
}

// inputWording names inputs, not flags, in a resolve error.
func inputWording(msg string, fs *flag.FlagSet) string {
	return flagNameInMessage().ReplaceAllStringFunc(msg, func(m string) string {
		if fs.Lookup(m[2:]) != nil {
			return "input " + m[2:]
		}
		return m
	})
}

// streams sets up the masked writers over the one log stream, and the log.
func (a *actionRun) streams(red *redact.Redactor) {
	a.red = red
	a.stdout, a.stderr = red.Writer(a.out), red.Writer(a.out)
	a.log = action.NewLog(a.out, a.getenv, red.String, a.flush)
}

func (a *actionRun) flush() {
	a.stdout.Flush()
	a.stderr.Flush()
}

func (a *actionRun) close() {
	a.stdout.Close()
	a.stderr.Close()
}

// line prints one of retrywise's own lines on the log, after what the step wrote.
func (a *actionRun) line(format string, args ...any) {
	a.flush()
	fmt.Fprintf(a.stderr, "retrywise: "+format+"\n", args...)
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
	f := a.f
	k := actionKind(a.mode)
	fs := newFlagSet(k.name, k.synopsis)
	fs.SetOutput(io.Discard)
	kf := k.define(fs)
	given, err := a.setFlags(fs)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	var pos []string
	switch a.mode {
	case action.ModePush:
		pos = strings.Fields(a.input("push-args"))
	case action.ModeHTTP:
		pos = []string{a.input("url")}
	}
	r, err := kf.resolve(f, pos, given)
	if err != nil {
		return f.fail(exitcode.Usage, inputWording(err.Error(), fs))
	}
	var scriptFiles map[string]string
	switch o := r.(type) {
	case *execOptions:
		o.script, o.shell, o.noCommand = a.input("run"), a.input("shell"), false
		if _, err := execstep.ScriptCommand(o.shell, "script", exec.LookPath); err != nil {
			return f.fail(exitcode.Usage, "invalid input shell: "+err.Error())
		}
		if o.dir = a.input("working-directory"); o.dir != "" {
			if st, err := os.Stat(o.dir); err != nil || !st.IsDir() {
				return f.fail(exitcode.Config, fmt.Sprintf("invalid input working-directory %q: not a folder", o.dir))
			}
		}
		o.stdoutMode = execstep.StdoutLive
		dir, err := os.MkdirTemp(a.tempDir, "retrywise-files-")
		if err != nil {
			return f.fail(exitcode.Config, "cannot create the script's file commands: "+err.Error())
		}
		defer os.RemoveAll(dir)
		scriptFiles = action.AttemptFiles(dir)
		o.attemptFiles = scriptFiles
	case *httpOptions:
		if o.outputFile == "" {
			// The body is an output (body-file): stdout is the log.
			o.outputFile, _ = a.shareFile("retrywise-body-")
		}
	}
	so := r.options()
	a.streams(f.redactor(append([]string{a.input("token")}, so.masks...)...))
	defer a.close()
	if err := a.log.Mask(a.red.Given()...); err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	io := &stepIO{
		stdin: f.stdin, stdout: a.stdout, stderr: a.stderr, red: a.red, env: a.env, tempDir: a.tempDir, outputsOnly: true,
		progress: func(at retry.Attempt, max int) {
			if line, ok := report.Progress(at, max); ok {
				a.line("%s", line)
			}
		},
		attempting: a.group(func(n, max int) string { return fmt.Sprintf("attempt %d of %d: %s", n, max, r.target()) }, k.name),
	}
	start := f.clock.Now()
	rep, serr := r.run(ctx, io)
	if serr != nil {
		rep = report.NotRun(k.name, r.target(), serr.code, serr.msg, so.policy)
	}
	rep.Notes = append(rep.Notes, a.notes...)
	if bf, ok := rep.Outputs["body-file"].(string); ok {
		os.Chmod(bf, 0o644) // readable by the runner's user, for whom a container's root made it
		rep.Outputs["body-file"] = a.shared(bf)
	}
	outputs := map[string]any{}
	for n, v := range rep.Outputs {
		outputs[n] = v
	}
	if scriptFiles != nil {
		a.forwardScriptFiles(scriptFiles, outputs)
	} else {
		a.passOutputs(rep.Outputs)
	}
	if a.mode == action.ModePush && !rep.OK() {
		a.explainRefusal(ctx, rep)
	}
	run := report.Single(rep, start, f.clock.Now())
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
		if d := action.ActShare(a.getenv); d != "" {
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

// forwardScriptFiles hands the final attempt's file commands to the
// workflow: outputs (the action's own names only inside outputs), env, path
// and the script's own step summary.
func (a *actionRun) forwardScriptFiles(files map[string]string, outputs map[string]any) {
	fin, err := action.ReadFinal(files)
	if err != nil {
		a.warn("retrywise: the script's file commands", err.Error())
	}
	for _, e := range fin.Outputs {
		outputs[e.Name] = e.Value
		if action.IsReserved(e.Name) {
			a.warn("retrywise: reserved output", fmt.Sprintf("the script's output %q has the name of one of the action's own outputs: it is only inside the output outputs (fromJSON(steps.<id>.outputs.outputs)[%q])", e.Name, e.Name))
			continue
		}
		if err := a.files.SetOutput(e.Name, a.red.String(e.Value)); err != nil {
			a.warn("retrywise: output "+e.Name, err.Error())
		}
	}
	for _, e := range fin.Env {
		if err := a.files.SetEnv(e.Name, e.Value); err != nil {
			a.warn("retrywise: env "+e.Name, err.Error())
		}
	}
	for _, p := range fin.Path {
		if err := a.files.AddPath(p); err != nil {
			a.warn("retrywise: path", err.Error())
		}
	}
	if fin.Summary != "" {
		if err := a.files.AddStepSummary(fin.Summary); err != nil {
			a.warn("retrywise: step summary", err.Error())
		}
	}
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
		if action.IsReserved(n) {
			continue
		}
		if err := a.files.SetOutput(n, a.red.String(jobs.FormatOutput(outs[n]))); err != nil {
			a.warn("retrywise: output "+n, err.Error())
		}
	}
}

// runJob runs the config mode: a job of a job file, as `retrywise run` does.
func (a *actionRun) runJob(ctx context.Context) int {
	f := *a.f
	fs := newFlagSet("run", runSynopsis)
	fs.SetOutput(io.Discard)
	var o runOptions
	defineRunFlags(fs, &o)
	if _, err := a.setFlags(fs); err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	o.job = a.input("job")
	// The job's steps and retrywise's lines share the log's one stream.
	f.stdout, f.stderr, f.env = a.out, a.out, a.env
	l, code, ok := f.loadValid(a.input("config"))
	if !ok {
		return code
	}
	job, code := pickJob(&f, l.file, o.job)
	if job == nil {
		return code
	}
	js := f.jobSession(l, job)
	js.red.Add(a.input("token"))
	a.streams(js.red)
	defer a.close()
	defer js.close()
	if err := a.log.Mask(a.red.Given()...); err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	if o.dryRun {
		plans, err := js.runner.DryPlan()
		if err != nil {
			js.log(err.Error())
			return exitcode.Config
		}
		writePlan(js.stdout, l.file, job, plans)
		js.stdout.Flush()
		return exitcode.OK
	}
	js.runner.Attempting = func(id, kind string, n, max int) func() {
		flushAll := func() { js.stdout.Flush(); js.stderr.Flush() }
		flushAll()
		end := a.group(func(n, max int) string { return fmt.Sprintf("step %s: attempt %d of %d", id, n, max) }, kind)(n, max)
		return func() { flushAll(); end() }
	}
	run := js.run(ctx)
	if len(a.notes) > 0 && len(run.Steps) > 0 {
		run.Steps[0].Notes = append(run.Steps[0].Notes, a.notes...)
	}
	outputs := map[string]any{}
	for _, s := range run.Steps {
		if len(s.Outputs) > 0 {
			outputs[s.ID] = s.Outputs
		}
	}
	js.stdout.Flush()
	js.stderr.Flush()
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
		run.WriteText(a.stderr)
		a.flush()
		resume()
	}
	failed := failedStep(run)
	headline := ""
	if run.Run.ExitCode != exitcode.OK {
		if len(run.Steps) == 1 && failed != nil {
			headline = failed.Headline()
		} else {
			headline = runHeadline(run)
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
		set["class"], set["code"], set["reason"], set["remedy"] = failed.Class, string(failed.Code), failed.Reason, failed.Remedy
	} else if run.Run.Result != report.Success && run.Run.Detail != "" {
		set["reason"] = run.Run.Detail
	}
	doc, cut, err := action.OutputsJSON(maskValues(outputs, a.red.String), action.MaxOutputsJSON)
	if err != nil {
		doc = "{}"
		a.warn("retrywise: outputs", err.Error())
	} else if cut {
		a.warn("retrywise: outputs cut", fmt.Sprintf("the outputs are over %d bytes of JSON: the longest values are replaced by a note in the output outputs; the JSON report (output report) has them", action.MaxOutputsJSON))
	}
	set["outputs"] = doc
	for _, n := range action.Reserved {
		if err := a.files.SetOutput(n, a.red.String(set[n])); err != nil {
			a.line("cannot set the output %s: %v", n, err)
			break
		}
	}

	var md strings.Builder
	run.WriteMarkdown(&md)
	markdown := a.red.String(md.String())
	if a.summary && a.getenv("GITHUB_STEP_SUMMARY") != "" {
		if err := a.files.AddStepSummary(markdown); err != nil {
			a.line("cannot write the step summary: %v", err)
		}
	}
	a.annotate(run, failed, headline)
	a.reportIssue(ctx, run, markdown)
	code, msg := a.files.WriteFailureExit(run.Run.ExitCode)
	if msg != "" {
		a.warn("retrywise: outputs not written", msg)
	}
	a.flush()
	return code
}

// annotate writes one error annotation for the run's final failure, or one
// warning for each step that recovered from transient failures.
func (a *actionRun) annotate(run *report.Run, failed *report.Step, headline string) {
	if failed != nil {
		title := "retrywise: " + failed.ID + " failed"
		if failed.Class != "" {
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
