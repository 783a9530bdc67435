package step

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	// An exec step names its tool (--tool) from the registered families,
	// so every program that has step kinds has the families registered.
	_ "github.com/retrywise/retrywise/internal/failure/tools"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const execSynopsis = `Usage: retrywise exec [flags] -- CMD [ARGS...]

Runs CMD (directly; use sh -c for a shell), relays its output live with secrets
masked, classifies a failure by exit status and output, and retries only
transient failures on the schedule. Progress and the report go to stderr;
stdout carries only the command's stdout.`

// ExecKind is the exec step: a command run directly (command:) or a script (run:).
var ExecKind = &Kind{
	Name: "exec", Synopsis: execSynopsis, Args: "command",
	declare: execOutputNames,
	new:     func() Config { return &ExecConfig{} },
}

// MaxDeclaredOutputs bounds the names an exec step's outputs: declares.
const MaxDeclaredOutputs = 256

// execOutputNames are what an exec step declares: its outputs: list, when
// given (an empty one declares none); without it the script may write any.
func execOutputNames(get func(name string) ([]string, bool)) ([]string, bool) {
	names, ok := get("outputs")
	if !ok {
		return nil, false
	}
	if names == nil {
		names = []string{}
	}
	return names, true
}

// ValidOutputName reports whether s may name a declared output, as a
// reference ${steps.ID.outputs.NAME} names it: a letter or _, then
// letters, digits, _ and -.
func ValidOutputName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// ExecConfig is an exec step: a command or a script, retried on transient failures.
type ExecConfig struct {
	Common
	// Command is the program and its arguments, run directly.
	Command []string
	// Run is a script, run with Shell; exclusive with Command.
	Run, Shell string
	// RetryOn and StopOn are regular expressions over the output.
	RetryOn, StopOn []string
	// RetryOnExit and StopOnExit are exit codes and ranges (1,3-5).
	RetryOnExit, StopOnExit []string
	// Timeout bounds each attempt (0: none); KillGrace separates SIGTERM and SIGKILL.
	Timeout, KillGrace time.Duration
	// Tool is whose output to expect: auto, exec or a tool.
	Tool string
	// AbsentOK exits 0 when the failure means "not there".
	AbsentOK bool
	// Stdout is live, final or auto; StdoutMax bounds a final attempt's stdout.
	Stdout, StdoutMax string
	// OnRetry and ContinueWith are shell commands; ContextFrom finds a continuation's context.
	OnRetry, ContinueWith, ContextFrom string

	// Hosts are the hosts the command will reach (HOST, HOST:PORT or a
	// URL), for run's preflight.
	Hosts []string

	// Outputs are the names the command declares it writes to
	// $RETRYWISE_OUTPUT (outputs:); given, a job's references to any
	// other name are errors, and an undeclared name written is kept with
	// a note.
	Outputs []string

	// Dir is the command's working directory; "" means the current one
	// (the action's working-directory).
	Dir string

	tool        failure.Tool
	rules       failure.Rules
	stdoutMode  execstep.StdoutMode
	stdoutMax   int64
	contextFrom *regexp.Regexp
}

// Fields is exec's field table.
func (c *ExecConfig) Fields() []*Field {
	s := c.newFields()
	c.Retry.fields(s, "10s,20s,60s", defaultJitter)
	c.commandFields(s)
	c.Egress.fields(s)
	c.rulesField(s)
	bindList(s, Field{Name: "retry-on", Doc: "treat output matching `REGEX` as transient (repeatable)"}, &c.RetryOn)
	bindList(s, Field{Name: "stop-on", Doc: "stop when output matches `REGEX`; wins over --retry-on (repeatable)"}, &c.StopOn)
	bindCSV(s, Field{Name: "retry-on-exit", Doc: "treat these exit `CODES` as transient, e.g. 1,3-5"}, &c.RetryOnExit)
	bindCSV(s, Field{Name: "stop-on-exit", Doc: "stop on these exit `CODES`; wins over --retry-on-exit"}, &c.StopOnExit)
	bind(s, Field{Name: "timeout", Default: "0s", Min: "0", Doc: "bound on each attempt, its kill grace included (SIGTERM --kill-grace before the bound, SIGKILL at it); 0 means none"}, &c.Timeout)
	bind(s, Field{Name: "kill-grace", Default: execstep.DefaultKillGrace.String(), Min: "0", Max: execstep.MaxKillGrace.String(), MaxMsg: killGraceCap, Doc: "wait between SIGTERM and SIGKILL when an attempt is stopped, at most 5m; inside every bound (a grace over half the time to the bound is shortened to that half)"}, &c.KillGrace)
	bind(s, Field{Name: "tool", Default: "auto", Doc: "whose output to expect: auto (by the command's name, then its output), exec, or a tool:\n" + execTools()}, &c.Tool)
	bind(s, Field{Name: "absent-ok", Doc: "exit 0 when the failure means \"not there\" (e.g. curl -f on a 404)"}, &c.AbsentOK)
	bind(s, Field{Name: "stdout", Default: "auto", NoInput: true, Doc: "what stdout gets: live (every attempt's, as it comes), final (only the succeeding attempt's, once)\nor auto (live on a terminal or in GitHub Actions, final otherwise)"}, &c.Stdout)
	bind(s, Field{Name: "stdout-max", Default: "1GiB", NoInput: true, Doc: "with --stdout final, the most stdout one attempt may write (`SIZE`: bytes, KiB, MiB, GiB); more fails it"}, &c.StdoutMax)
	bind(s, Field{Name: "on-retry", Doc: "run this clean-up `CMD` (sh -c, same folder and environment, bounded by --timeout) before every retry;\nif it fails, the loop stops"}, &c.OnRetry)
	bind(s, Field{Name: "continue-with", Doc: "run this `CMD` (sh -c) instead of the command from the second attempt on: a continuation,\ne.g. codex exec resume --last \"continue\""}, &c.ContinueWith)
	bind(s, Field{Name: "context-from", Doc: "a `REGEX` with one capture group matched against every output line; the last match reaches\n--continue-with as $RETRYWISE_CONTEXT, and without one the failure cannot be retried in the same context"}, &c.ContextFrom)
	bindList(s, Field{Name: "hosts", NoInput: true, Doc: "a `HOST` (HOST:PORT or URL) the command will reach, probed by run --preflight before the job's first step (repeatable)"}, &c.Hosts)
	bindCSV(s, Field{Name: "outputs", NoInput: true, Doc: "the output `NAMES` the command writes to $RETRYWISE_OUTPUT, e.g. url,id (in a job file a list);\nvalidate then checks every ${steps.ID.outputs.NAME} and if: against them, and an undeclared one written is kept with a note"}, &c.Outputs)
	bindList(s, Field{Name: "command", Positional: true, Doc: "the command and its arguments, run directly (no shell); exclusive with run"}, &c.Command)
	bind(s, Field{Name: "run", Positional: true, Doc: "a script, run as a workflow's run: is (bash --noprofile --norc -eo pipefail, or sh -e without bash); exclusive with command"}, &c.Run)
	bind(s, Field{Name: "shell", Positional: true, Doc: "the shell of run: bash, sh, or a command template with {0} for the script's path"}, &c.Shell)
	return s.fields
}

// execTools lists the tools --tool accepts, formatted once.
var execTools = sync.OnceValue(func() string {
	var names []string
	for _, n := range failure.ToolNames() {
		switch failure.Tool(n) {
		case failure.ToolAuto, failure.ToolExec, failure.ToolHTTP:
			continue
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
})

func (c *ExecConfig) validate(ctx context.Context) error {
	errs := c.validateCommon()
	var err error
	if err := c.loadRules(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, h := range c.Hosts {
		if strings.Contains(h, "${") {
			continue // known when the step starts
		}
		if _, err := egress.ParseTarget(h); err != nil {
			errs = append(errs, &FieldError{Field: "hosts", Value: strconv.Quote(h), Msg: err.Error(), Fix: "write a host, host:port or an http(s) URL"})
		}
	}
	if c.rules, err = buildRules(c.RetryOn, c.StopOn, c.RetryOnExit, c.StopOnExit); err != nil {
		errs = append(errs, err)
	}
	c.tool, err = failure.ParseTool(c.Tool)
	if err != nil || c.tool == failure.ToolHTTP {
		errs = append(errs, &FieldError{Field: "tool", Value: strconv.Quote(c.Tool), Msg: "want auto, exec or one of " + execTools()})
	}
	c.stdoutMode = ""
	if c.Stdout != "auto" {
		if c.stdoutMode, err = execstep.ParseStdoutMode(c.Stdout); err != nil {
			errs = append(errs, &FieldError{Field: "stdout", Value: strconv.Quote(c.Stdout), Msg: "want live, final or auto"})
		}
	}
	if c.stdoutMax, err = ParseSize(c.StdoutMax); err != nil {
		errs = append(errs, &FieldError{Field: "stdout-max", Msg: err.Error()})
	}
	c.contextFrom = nil
	if c.ContextFrom != "" {
		switch re, err := regexp.Compile(c.ContextFrom); {
		case err != nil:
			errs = append(errs, &FieldError{Field: "context-from", Value: strconv.Quote(c.ContextFrom), Msg: err.Error()})
		case re.NumSubexp() != 1:
			errs = append(errs, &FieldError{Field: "context-from", Value: strconv.Quote(c.ContextFrom), Msg: "want exactly one capture group, e.g. 'session id: (\\S+)'"})
		case c.ContinueWith == "":
			errs = append(errs, &FieldError{Field: "context-from", Msg: "needs --continue-with: the context is what a continuation continues in"})
		default:
			c.contextFrom = re
		}
	}
	if err := checkOutputNames(c.Outputs); err != nil {
		errs = append(errs, err)
	}
	switch hasCmd, hasRun := c.Given("command"), c.Run != ""; {
	case hasCmd && hasRun:
		errs = append(errs, &FieldError{Field: "run", Plain: true, Msg: "command and run exclude each other", Fix: "keep command (an argv list, run directly) or run (a script)"})
	case !hasCmd && !hasRun:
		errs = append(errs, &FieldError{Msg: "no command given: use retrywise exec [flags] -- CMD [ARGS...] (in a job file: command: [prog, arg...] or run: |)", Fix: "add command: [prog, arg...] or run: |"})
	case hasCmd && len(c.Command) == 0:
		errs = append(errs, &FieldError{Field: "command", Plain: true, Msg: "command is empty", Fix: "give the program and its arguments as a list"})
	case c.Shell != "" && !hasRun:
		errs = append(errs, &FieldError{Field: "shell", Msg: "shell applies to run only", Fix: "remove shell, or use run"})
	case hasRun:
		if _, err := execstep.ScriptCommand(c.Shell, "script", checkLookPath); err != nil {
			errs = append(errs, &FieldError{Field: "shell", Msg: err.Error(), Fix: "use bash, sh, or a template such as python3 {0}"})
		}
	default:
		if c.tool == failure.ToolAuto {
			c.tool = failure.ToolOf(c.Command[0])
		}
	}
	return joinErrs(errs)
}

// checkOutputNames checks an outputs: list: names a reference can name,
// each once, at most MaxDeclaredOutputs.
func checkOutputNames(names []string) error {
	const fix = "write names of letters, digits, _ and -, starting with a letter or _"
	if len(names) > MaxDeclaredOutputs {
		return &FieldError{Field: "outputs", Msg: fmt.Sprintf("more than %d outputs declared (%d)", MaxDeclaredOutputs, len(names)), Fix: "declare the outputs later steps read"}
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		switch {
		case !ValidOutputName(n):
			return &FieldError{Field: "outputs", Msg: fmt.Sprintf("%q is not an output name", n), Fix: fix}
		case seen[n]:
			return &FieldError{Field: "outputs", Msg: fmt.Sprintf("%q is declared twice", n), Fix: "declare each output once"}
		}
		seen[n] = true
	}
	return nil
}

// undeclaredNote is the report's note on the outputs a command wrote
// that its outputs: list does not declare (kept: the report shows them,
// but no valid job file can name them); "" when there are none or the
// step declares no list.
func (c *ExecConfig) undeclaredNote(outs map[string]string) string {
	if !c.Given("outputs") {
		return ""
	}
	var extra []string
	for k := range outs {
		if !slices.Contains(c.Outputs, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return ""
	}
	slices.Sort(extra)
	return fmt.Sprintf("wrote output %s to $RETRYWISE_OUTPUT, not in its outputs: list (kept; add it to outputs: for a later step to read it)", strings.Join(extra, ", "))
}

// joinErrs joins errs; nil when there are none.
// killGraceCap is what a kill grace above execstep.MaxKillGrace is told.
var killGraceCap = fmt.Sprintf("above its cap of %s: a grace is a wait retrywise may have to sit through, and every bound (--timeout, --max-elapsed, a job's timeout:) includes it", execstep.MaxKillGrace)

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// lookPaths memoises exec.LookPath for checkLookPath.
var lookPaths sync.Map // name NUL PATH → lookPathResult

type lookPathResult struct {
	path string
	err  error
}

// checkLookPath is exec.LookPath remembered per name and PATH: loading a job
// file checks the shell of every run: step. Running a step still looks its
// shell up afresh.
func checkLookPath(name string) (string, error) {
	key := name + "\x00" + os.Getenv("PATH")
	if r, ok := lookPaths.Load(key); ok {
		return r.(lookPathResult).path, r.(lookPathResult).err
	}
	p, err := exec.LookPath(name)
	lookPaths.Store(key, lookPathResult{p, err})
	return p, err
}

// target is the command line, or the script's first line.
func (c *ExecConfig) target() string {
	if c.Run != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(c.Run), "\n")
		return "run: " + first
	}
	return report.CommandLine(c.Command)
}

// run runs the command (or the script) in the retry loop; a failure through
// a proxy is diagnosed by the egress probe.
func (c *ExecConfig) run(ctx context.Context, x *exe) (*report.Step, *Error) {
	io := x.io
	argv := c.Command
	if c.Run != "" {
		path, err := execstep.WriteScript(io.TempDir, c.Run)
		if err != nil {
			return nil, &Error{exitcode.Config, "cannot write the script: " + err.Error()}
		}
		defer os.Remove(path)
		if argv, err = execstep.ScriptCommand(c.Shell, path, exec.LookPath); err != nil {
			return nil, &Error{exitcode.Usage, err.Error()}
		}
	}
	outDir, err := os.MkdirTemp(io.TempDir, "retrywise-output-")
	if err != nil {
		return nil, &Error{exitcode.Config, "cannot create the output folder: " + err.Error()}
	}
	defer os.RemoveAll(outDir)
	mode := c.stdoutMode
	if mode == "" {
		mode = autoStdout(io)
	}
	if c.Run != "" {
		// The script's own literal ::add-mask:: values, before its text (the
		// target) is shown.
		io.Red.Add(redact.ScriptMasks(c.Run)...)
	}
	var attemptFiles *execstep.AttemptFiles
	if fw := x.svc.FileCommands; fw != nil {
		files, done, err := fw.Attempts()
		if err != nil {
			return nil, &Error{exitcode.Config, err.Error()}
		}
		defer done()
		attemptFiles = files
	}
	step, err := execstep.New(execstep.Options{
		LearnMask: func(v string) { io.Red.Add(v) },
		Args:      argv, Env: io.Env, Dir: c.Dir, Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr,
		AttemptFiles: attemptFiles, Timeout: c.Timeout, KillGrace: c.KillGrace, Tool: c.tool, Rules: c.rules, Team: c.teamRules(x.svc), MaxElapsed: c.pol.MaxElapsed,
		OutputDir: outDir, StdoutMode: mode, StdoutMax: c.stdoutMax, SpoolDir: io.TempDir,
		OnRetry: c.OnRetry, ContinueWith: c.ContinueWith, ContextFrom: c.contextFrom,
	})
	if err != nil {
		return nil, &Error{exitcode.Config, err.Error()}
	}
	defer step.Close()
	prober, serr := x.prober(&c.Egress, 0)
	if serr != nil {
		return nil, serr
	}
	diagnose := execDiagnose(prober, argv, c.tool, io.Env)
	if c.Run != "" {
		// A script's client and target are in its text, not its argv
		// (bash FILE): the client comes from the failure's trace.
		diagnose = prober.Diagnose(egress.Step{URL: egress.ScriptURL(c.Run), Args: strings.Fields(c.Run), Env: io.Env})
	}
	out, err := x.coordinator(c.pol, diagnose).Run(ctx, step)
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	if attemptFiles != nil {
		// Only the final attempt's file commands reach the workflow, copied
		// now: what a background job of any attempt writes later is not.
		x.svc.FileCommands.Forward(ctx, c.who(x.io), attemptFiles.Final())
	}
	if err := step.WriteStdout(); err != nil {
		io.Stderr.Flush()
		fmt.Fprintf(io.Stderr, "retrywise: cannot write the command's stdout: %v\n", err)
	}
	io.Stdout.Flush()
	code := exitcode.For(out, c.AbsentOK)
	rep := report.New("exec", c.target(), out, code)
	rep.Notes = append(rep.Notes, step.Notes()...)
	if ok, why := step.CanRetry(nil); !ok && out.Stop != retry.StopCannotRetry {
		rep.Notes = append(rep.Notes, why)
	}
	if mode == execstep.StdoutFinal && len(out.Attempts) > 1 {
		which := "the succeeding attempt's"
		if !out.OK() {
			which = "the last attempt's"
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("stdout holds %s output only (--stdout final)", which))
	}
	if outs := step.Outputs(); len(outs) > 0 {
		if note := c.undeclaredNote(outs); note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		rep.Outputs = make(map[string]any, len(outs))
		for k, v := range outs {
			rep.Outputs[k] = v
		}
	}
	return rep, nil
}

// who names the step in what its file commands' copy says: the job's
// step, or the action's script, or the command.
func (c *ExecConfig) who(io *IO) string {
	switch {
	case io.ID != "":
		return "step " + io.ID
	case c.Run != "":
		return "the script"
	}
	return "the command"
}

// execDiagnose returns the coordinator's Diagnose for a command: a curl or git
// failure through a proxy is probed with that client's proxy rules; the
// target comes from the command's URL argument or the failure's trace.
func execDiagnose(p *egress.Prober, argv []string, tool failure.Tool, env []string) egress.DiagnoseFunc {
	client := egress.ClientOf(argv)
	if client == "" {
		client = egress.ClientForTool(tool)
	}
	return p.Diagnose(egress.Step{Client: client, URL: egress.URLFromArgs(argv), Args: argv, Env: env})
}

// buildRules compiles retry-on, stop-on, retry-on-exit and stop-on-exit into rules.
func buildRules(retryOn, stopOn, retryOnExit, stopOnExit []string) (failure.Rules, error) {
	var r failure.Rules
	var errs []error
	compile := func(name string, exprs []string) []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				errs = append(errs, &FieldError{Field: name, Value: strconv.Quote(e), Msg: err.Error()})
				continue
			}
			out = append(out, re)
		}
		return out
	}
	r.RetryOn = compile("retry-on", retryOn)
	r.StopOn = compile("stop-on", stopOn)
	codes := func(name string, items []string) []int {
		if len(items) == 0 {
			return nil
		}
		c, err := failure.ParseExitCodes(strings.Join(items, ","))
		if err != nil {
			errs = append(errs, &FieldError{Field: name, Msg: err.Error()})
		}
		return c
	}
	r.RetryOnExit = codes("retry-on-exit", retryOnExit)
	r.StopOnExit = codes("stop-on-exit", stopOnExit)
	return r, joinErrs(errs)
}

// autoStdout is --stdout auto: live when stdout is a terminal (a person
// watches it) or inside GitHub Actions (stdout is the log a person reads,
// and buffering would hide a long step's progress), final otherwise (a
// pipe or a file: its consumer must never get a replayed first half).
func autoStdout(io *IO) execstep.StdoutMode {
	if environ.Map(io.Env)["GITHUB_ACTIONS"] == "true" || io.StdoutTerminal {
		return execstep.StdoutLive
	}
	return execstep.StdoutFinal
}

// ParseSize parses a size such as 1GiB, 512MiB, 64KiB or 1000 (bytes).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size such as 1GiB, 512MiB or 65536", s)
	}
	return n * mult, nil
}
