package cli

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
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
}

// parseExec parses `retrywise exec`'s flags and command into its options.
func parseExec(f *factory, args []string) (*execOptions, int, bool) {
	fs := newFlagSet("exec", execSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	var retryOn, stopOn stringList
	fs.Var(&retryOn, "retry-on", "treat output matching `REGEX` as transient (repeatable)")
	fs.Var(&stopOn, "stop-on", "stop when output matches `REGEX`; wins over --retry-on (repeatable)")
	retryOnExit := fs.String("retry-on-exit", "", "treat these exit `CODES` as transient, e.g. 1,3-5")
	stopOnExit := fs.String("stop-on-exit", "", "stop on these exit `CODES`; wins over --retry-on-exit")
	timeout := fs.Duration("timeout", 0, "bound on each attempt (SIGTERM, then SIGKILL after --kill-grace); 0 means none")
	killGrace := fs.Duration("kill-grace", execstep.DefaultKillGrace, "wait between SIGTERM and SIGKILL when an attempt is stopped")
	tool := fs.String("tool", "auto", "whose output to expect: auto (by the command's name, then its output), exec, or a tool:\n"+toolList(failure.ToolHTTP))
	absentOK := fs.Bool("absent-ok", false, "exit 0 when the failure means \"not there\" (e.g. curl -f on a 404)")
	if code, done := f.parse(fs, args); done {
		return nil, code, true
	}
	opts := &execOptions{f: f, step: rf.options(), argv: fs.Args(), timeout: *timeout, killGrace: *killGrace, absentOK: *absentOK}
	if len(opts.argv) == 0 {
		return nil, f.fail(exitcode.Usage, "no command given: use retrywise exec [flags] -- CMD [ARGS...]"), true
	}
	var err error
	if opts.step.policy, err = rf.policy(); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.rules, err = buildRules(retryOn, stopOn, *retryOnExit, *stopOnExit); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	opts.tool, err = failure.ParseTool(*tool)
	if err != nil || opts.tool == failure.ToolHTTP {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("invalid --tool %q: want auto, exec or one of %s", *tool, toolList(failure.ToolHTTP))), true
	}
	if opts.tool == failure.ToolAuto {
		opts.tool = failure.ToolOf(opts.argv[0])
	}
	if opts.timeout < 0 || opts.killGrace < 0 {
		return nil, f.fail(exitcode.Usage, "--timeout and --kill-grace must not be negative"), true
	}
	if opts.step.prober, err = f.prober(rf.egress, 0); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	return opts, 0, false
}

// runExec runs the command in the retry loop and reports; a failure through
// a proxy is diagnosed by the egress probe (or opts.step.diagnose).
func runExec(ctx context.Context, opts *execOptions) int {
	f := opts.f
	o, err := f.output(opts.step.masks, opts.step.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()

	step, err := execstep.New(execstep.Options{
		Args: opts.argv, Env: f.env, Stdin: f.stdin, Stdout: o.stdout, Stderr: o.stderr,
		Timeout: opts.timeout, KillGrace: opts.killGrace, Tool: opts.tool, Rules: opts.rules,
	})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = execDiagnose(opts.step.prober, opts.argv, opts.tool)
	}
	out, err := f.coordinator(opts.step.policy, o, diagnose).Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	code := exitcode.For(out, opts.absentOK)
	rep := report.New("exec", report.CommandLine(opts.argv), out, code)
	if ok, why := step.CanRetry(nil); !ok {
		rep.Notes = append(rep.Notes, why)
	}
	return o.finish(rep, f.clock.Now())
}

// execDiagnose returns the coordinator's Diagnose for a command: a curl or git
// failure through a proxy is probed with that client's proxy rules; the
// target comes from the command's URL argument or the failure's trace.
func execDiagnose(p *egress.Prober, argv []string, tool failure.Tool) egress.DiagnoseFunc {
	client := egress.ClientOf(argv)
	if client == "" {
		client = egress.ClientForTool(tool)
	}
	return p.Diagnose(egress.Step{
		Client: client,
		URL:    egress.URLFromArgs(argv),
		Args:   argv,
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
