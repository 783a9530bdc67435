package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const execSynopsis = `Usage: retrywise exec [flags] -- CMD [ARGS...]

Runs CMD (directly; use sh -c for a shell), relays its output live with secrets
masked, classifies a failure by exit status and output, and retries only
transient failures on the schedule. Progress and the report go to stderr;
stdout carries only the command's stdout.`

// execOptions is what `retrywise exec` runs.
type execOptions struct {
	f    *factory
	step stepOptions
	// argv is the command: argv[0] is the program, run directly.
	argv []string
	// tool is whose output to expect; --tool auto is resolved from the
	// program's name (failure.ToolOf).
	tool failure.Tool
	// rules are the user's --retry-on, --stop-on and exit-code rules.
	rules failure.Rules
	// timeout bounds each attempt (0: none); killGrace separates SIGTERM and SIGKILL.
	timeout, killGrace time.Duration
	// absentOK exits 0 when the failure means "not there".
	absentOK bool
	// script is a job step's run: script, run with shell; "" means argv.
	script, shell string
	// noCommand is true until a command or a script is given.
	noCommand bool
	// stdoutMode is live or final; "" means auto (stepIO decides).
	stdoutMode execstep.StdoutMode
	// stdoutMax bounds an attempt's stdout in final mode.
	stdoutMax int64
	// onRetry and continueWith are shell strings: a clean-up before every
	// retry, and the continuation run from the second attempt on.
	onRetry, continueWith string
	// contextFrom finds the context a continuation needs.
	contextFrom *regexp.Regexp
	// dir is the command's working directory; "" means the current one
	// (the action's working-directory).
	dir string
	// attemptFiles are files given fresh to every attempt, by the variable
	// naming them (the action's $GITHUB_OUTPUT and the like).
	attemptFiles map[string]string
}

// execFlags are `retrywise exec`'s flags as given.
type execFlags struct {
	step                    *stepFlags
	retryOn, stopOn         stringList
	retryOnExit, stopOnExit string
	timeout, killGrace      time.Duration
	tool                    string
	absentOK                bool
	stdout, stdoutMax       string
	onRetry, continueWith   string
	contextFrom             string
}

// execKind is the exec step: a command run directly (command:) or a script (run:).
func execKind() *kindDef {
	return &kindDef{
		name: "exec", synopsis: execSynopsis,
		define: func(fs *flag.FlagSet) kindFlags {
			ef := &execFlags{step: addStepFlags(fs, "10s,20s,60s")}
			fs.Var(&ef.retryOn, "retry-on", "treat output matching `REGEX` as transient (repeatable)")
			fs.Var(&ef.stopOn, "stop-on", "stop when output matches `REGEX`; wins over --retry-on (repeatable)")
			fs.StringVar(&ef.retryOnExit, "retry-on-exit", "", "treat these exit `CODES` as transient, e.g. 1,3-5")
			fs.StringVar(&ef.stopOnExit, "stop-on-exit", "", "stop on these exit `CODES`; wins over --retry-on-exit")
			fs.DurationVar(&ef.timeout, "timeout", 0, "bound on each attempt (SIGTERM, then SIGKILL after --kill-grace); 0 means none")
			fs.DurationVar(&ef.killGrace, "kill-grace", execstep.DefaultKillGrace, "wait between SIGTERM and SIGKILL when an attempt is stopped")
			fs.StringVar(&ef.tool, "tool", "auto", "whose output to expect: auto (by the command's name, then its output), exec, or a tool:\n"+execTools())
			fs.BoolVar(&ef.absentOK, "absent-ok", false, "exit 0 when the failure means \"not there\" (e.g. curl -f on a 404)")
			fs.StringVar(&ef.stdout, "stdout", "auto", "what stdout gets: live (every attempt's, as it comes), final (only the succeeding attempt's, once)\nor auto (live on a terminal or in GitHub Actions, final otherwise)")
			fs.StringVar(&ef.stdoutMax, "stdout-max", "1GiB", "with --stdout final, the most stdout one attempt may write (`SIZE`: bytes, KiB, MiB, GiB); more fails it")
			fs.StringVar(&ef.onRetry, "on-retry", "", "run this clean-up `CMD` (sh -c, same folder and environment, bounded by --timeout) before every retry;\nif it fails, the loop stops")
			fs.StringVar(&ef.continueWith, "continue-with", "", "run this `CMD` (sh -c) instead of the command from the second attempt on: a continuation,\ne.g. codex exec resume --last \"continue\"")
			fs.StringVar(&ef.contextFrom, "context-from", "", "a `REGEX` with one capture group matched against every output line; the last match reaches\n--continue-with as $RETRYWISE_CONTEXT, and without one the failure cannot be retried in the same context")
			return ef
		},
		args: "command",
		positional: []jobs.Key{
			{Name: "command", Type: jobs.KeyList, Positional: true, Usage: "the command and its arguments, run directly (no shell); exclusive with run"},
			{Name: "run", Type: jobs.KeyString, Positional: true, Usage: "a script, run as a workflow's run: is (bash --noprofile --norc -eo pipefail, or sh -e without bash); exclusive with command"},
			{Name: "shell", Type: jobs.KeyString, Positional: true, Usage: "the shell of run: bash, sh, or a command template with {0} for the script's path"},
		},
		fixed: false,
	}
}

// resolve validates exec's flags and command into its options.
func (ef *execFlags) resolve(f *factory, argv []string, _ func(string) bool) (runnable, error) {
	opts := &execOptions{f: f, step: ef.step.options(), argv: argv, timeout: ef.timeout, killGrace: ef.killGrace, absentOK: ef.absentOK}
	var err error
	if opts.step.policy, err = ef.step.policy(); err != nil {
		return nil, err
	}
	if opts.rules, err = buildRules(ef.retryOn, ef.stopOn, ef.retryOnExit, ef.stopOnExit); err != nil {
		return nil, err
	}
	opts.tool, err = failure.ParseTool(ef.tool)
	if err != nil || opts.tool == failure.ToolHTTP {
		return nil, fmt.Errorf("invalid --tool %q: want auto, exec or one of %s", ef.tool, execTools())
	}
	if opts.timeout < 0 || opts.killGrace < 0 {
		return nil, errors.New("--timeout and --kill-grace must not be negative")
	}
	if ef.stdout != "auto" {
		if opts.stdoutMode, err = execstep.ParseStdoutMode(ef.stdout); err != nil {
			return nil, err
		}
	}
	if opts.stdoutMax, err = parseSize(ef.stdoutMax); err != nil {
		return nil, fmt.Errorf("invalid --stdout-max: %w", err)
	}
	opts.onRetry, opts.continueWith = ef.onRetry, ef.continueWith
	if ef.contextFrom != "" {
		if opts.contextFrom, err = regexp.Compile(ef.contextFrom); err != nil {
			return nil, fmt.Errorf("invalid --context-from %q: %v", ef.contextFrom, err)
		}
		if opts.contextFrom.NumSubexp() != 1 {
			return nil, fmt.Errorf("invalid --context-from %q: want exactly one capture group, e.g. 'session id: (\\S+)'", ef.contextFrom)
		}
		if opts.continueWith == "" {
			return nil, errors.New("--context-from needs --continue-with: the context is what a continuation continues in")
		}
	}
	if opts.step.prober, err = f.prober(ef.step.egress, 0); err != nil {
		return nil, err
	}
	if len(opts.argv) == 0 {
		// A job file's step may give run: instead (setPositional decides).
		opts.noCommand = true
		return opts, nil
	}
	opts.resolveTool()
	return opts, nil
}

// resolveTool resolves --tool auto from the program's name (failure.ToolOf).
func (opts *execOptions) resolveTool() {
	if opts.tool == failure.ToolAuto && len(opts.argv) > 0 {
		opts.tool = failure.ToolOf(opts.argv[0])
	}
}

// lookPaths memoises exec.LookPath for checkLookPath.
var lookPaths sync.Map // name NUL PATH → lookPathResult

type lookPathResult struct {
	path string
	err  error
}

// checkLookPath is exec.LookPath remembered per name and PATH: loading a job
// file checks the shell of every run: step (a job file is loaded once, when
// a command starts). Running a step still looks its shell up afresh.
func checkLookPath(name string) (string, error) {
	key := name + "\x00" + os.Getenv("PATH")
	if r, ok := lookPaths.Load(key); ok {
		return r.(lookPathResult).path, r.(lookPathResult).err
	}
	p, err := exec.LookPath(name)
	lookPaths.Store(key, lookPathResult{p, err})
	return p, err
}

// setPositional reads a job step's command or run and shell.
func (opts *execOptions) setPositional(s jobs.Settings) error {
	cmd, hasCmd := s.Get("command")
	run, hasRun := s.Get("run")
	shell, hasShell := s.Get("shell")
	switch {
	case hasCmd && hasRun:
		return &jobs.SettingError{Key: "run", Msg: "command and run exclude each other", Fix: "keep command (an argv list, run directly) or run (a script)"}
	case !hasCmd && !hasRun:
		return &jobs.SettingError{Msg: "an exec step needs command (an argv list) or run (a script)", Fix: "add command: [prog, arg...] or run: |"}
	case hasCmd && len(cmd.Values) == 0:
		return &jobs.SettingError{Key: "command", Msg: "command is empty", Fix: "give the program and its arguments as a list"}
	case hasShell && !hasRun:
		return &jobs.SettingError{Key: "shell", Msg: "shell applies to run only", Fix: "remove shell, or use run"}
	}
	if hasRun {
		opts.script = run.Values[0]
		if hasShell {
			opts.shell = shell.Values[0]
		}
		if _, err := execstep.ScriptCommand(opts.shell, "script", checkLookPath); err != nil {
			return &jobs.SettingError{Key: "shell", Msg: err.Error(), Fix: "use bash, sh, or a template such as python3 {0}"}
		}
		opts.noCommand = false
		return nil
	}
	opts.noCommand = false
	opts.resolveTool()
	return nil
}

// options are the settings every step shares.
func (opts *execOptions) options() *stepOptions { return &opts.step }

// target is the command line, or the script's first line.
func (opts *execOptions) target() string {
	if opts.script != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(opts.script), "\n")
		return "run: " + first
	}
	return report.CommandLine(opts.argv)
}

// run runs the command (or the script) in the retry loop; a failure through
// a proxy is diagnosed by the egress probe (or opts.step.diagnose).
func (opts *execOptions) run(ctx context.Context, io *stepIO) (*report.Step, *stepError) {
	f := opts.f
	if opts.noCommand {
		return nil, &stepError{exitcode.Usage, "no command given: use retrywise exec [flags] -- CMD [ARGS...]"}
	}
	argv := opts.argv
	if opts.script != "" {
		path, err := execstep.WriteScript(io.tempDir, opts.script)
		if err != nil {
			return nil, &stepError{exitcode.Config, "cannot write the script: " + err.Error()}
		}
		defer os.Remove(path)
		if argv, err = execstep.ScriptCommand(opts.shell, path, exec.LookPath); err != nil {
			return nil, &stepError{exitcode.Usage, err.Error()}
		}
	}
	outDir, err := os.MkdirTemp(io.tempDir, "retrywise-output-")
	if err != nil {
		return nil, &stepError{exitcode.Config, "cannot create the output folder: " + err.Error()}
	}
	defer os.RemoveAll(outDir)
	mode := opts.stdoutMode
	if mode == "" {
		mode = autoStdout(io)
	}
	if opts.script != "" {
		// The script's own literal ::add-mask:: values, before its text (the
		// target) is shown.
		io.red.Add(redact.ScriptMasks(opts.script)...)
	}
	step, err := execstep.New(execstep.Options{
		Args: argv, Env: io.env, Dir: opts.dir, Stdin: io.stdin, Stdout: io.stdout, Stderr: io.stderr,
		AttemptFiles: opts.attemptFiles, Timeout: opts.timeout, KillGrace: opts.killGrace, Tool: opts.tool, Rules: opts.rules,
		OutputDir: outDir, StdoutMode: mode, StdoutMax: opts.stdoutMax, SpoolDir: io.tempDir,
		OnRetry: opts.onRetry, ContinueWith: opts.continueWith, ContextFrom: opts.contextFrom,
		LearnMask: func(v string) { io.red.Add(v) },
	})
	if err != nil {
		return nil, &stepError{exitcode.Config, err.Error()}
	}
	defer step.Close()
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = execDiagnose(opts.step.prober, argv, opts.tool, io.env)
		if opts.script != "" {
			// A script's client and target are in its text, not its argv
			// (bash FILE): the client comes from the failure's trace.
			diagnose = opts.step.prober.Diagnose(egress.Step{URL: egress.ScriptURL(opts.script), Args: strings.Fields(opts.script), Env: io.env})
		}
	}
	out, err := f.coordinator(opts.step.policy, io, diagnose).Run(ctx, step)
	if err != nil {
		return nil, &stepError{exitcode.Usage, err.Error()}
	}
	if err := step.WriteStdout(); err != nil {
		io.stderr.Flush()
		fmt.Fprintf(io.stderr, "retrywise: cannot write the command's stdout: %v\n", err)
	}
	io.stdout.Flush()
	code := exitcode.For(out, opts.absentOK)
	rep := report.New("exec", opts.target(), out, code)
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
		rep.Outputs = make(map[string]any, len(outs))
		for k, v := range outs {
			rep.Outputs[k] = v
		}
	}
	return rep, nil
}

// execDiagnose returns the coordinator's Diagnose for a command: a curl or git
// failure through a proxy is probed with that client's proxy rules; the
// target comes from the command's URL argument or the failure's trace.
func execDiagnose(p *egress.Prober, argv []string, tool failure.Tool, env []string) egress.DiagnoseFunc {
	client := egress.ClientOf(argv)
	if client == "" {
		client = egress.ClientForTool(tool)
	}
	return p.Diagnose(egress.Step{
		Client: client,
		URL:    egress.URLFromArgs(argv),
		Args:   argv,
		Env:    env,
	})
}

// buildRules compiles --retry-on, --stop-on, --retry-on-exit and --stop-on-exit into rules.
func buildRules(retryOn, stopOn []string, retryOnExit, stopOnExit string) (failure.Rules, error) {
	var r failure.Rules
	compile := func(flag string, exprs []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("invalid --%s %q: %v", flag, e, err)
			}
			out = append(out, re)
		}
		return out, nil
	}
	var err error
	if r.RetryOn, err = compile("retry-on", retryOn); err != nil {
		return r, err
	}
	if r.StopOn, err = compile("stop-on", stopOn); err != nil {
		return r, err
	}
	if retryOnExit != "" {
		if r.RetryOnExit, err = failure.ParseExitCodes(retryOnExit); err != nil {
			return r, fmt.Errorf("invalid --retry-on-exit: %v", err)
		}
	}
	if stopOnExit != "" {
		if r.StopOnExit, err = failure.ParseExitCodes(stopOnExit); err != nil {
			return r, fmt.Errorf("invalid --stop-on-exit: %v", err)
		}
	}
	return r, nil
}

// autoStdout is --stdout auto: live when stdout is a terminal (a person
// watches it) or inside GitHub Actions (stdout is the log a person reads,
// and buffering would hide a long step's progress), final otherwise (a
// pipe or a file: its consumer must never get a replayed first half).
func autoStdout(io *stepIO) execstep.StdoutMode {
	if environ.Map(io.env)["GITHUB_ACTIONS"] == "true" || io.stdoutTerminal {
		return execstep.StdoutLive
	}
	return execstep.StdoutFinal
}

// parseSize parses a size such as 1GiB, 512MiB, 64KiB or 1000 (bytes).
func parseSize(s string) (int64, error) {
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
