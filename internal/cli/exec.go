package cli

import (
	"context"
	"fmt"
	"regexp"

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

func (f *factory) runExec(ctx context.Context, args []string) int {
	fs := newFlagSet("exec", execSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	var retryOn, stopOn stringList
	fs.Var(&retryOn, "retry-on", "treat output matching `REGEX` as transient (repeatable)")
	fs.Var(&stopOn, "stop-on", "stop when output matches `REGEX`; wins over --retry-on (repeatable)")
	retryOnExit := fs.String("retry-on-exit", "", "treat these exit `CODES` as transient, e.g. 1,3-5")
	stopOnExit := fs.String("stop-on-exit", "", "stop on these exit `CODES`; wins over --retry-on-exit")
	timeout := fs.Duration("timeout", 0, "bound on each attempt (SIGTERM, then SIGKILL after --kill-grace); 0 means none")
	killGrace := fs.Duration("kill-grace", execstep.DefaultKillGrace, "wait between SIGTERM and SIGKILL when an attempt is stopped")
	tool := fs.String("tool", "auto", "whose output to expect: auto, git, curl or exec")
	absentOK := fs.Bool("absent-ok", false, "exit 0 when the failure means \"not there\" (e.g. curl -f on a 404)")
	if code, done := f.parse(fs, args); done {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return f.fail(exitcode.Usage, "no command given: use retrywise exec [flags] -- CMD [ARGS...]")
	}
	pol, err := rf.policy()
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	rules, err := buildRules(retryOn, stopOn, *retryOnExit, *stopOnExit)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	t, err := failure.ParseTool(*tool)
	if err != nil || t == failure.ToolHTTP {
		return f.fail(exitcode.Usage, fmt.Sprintf("invalid --tool %q: want auto, git, curl or exec", *tool))
	}
	if t == failure.ToolAuto {
		t = failure.ToolOf(argv[0])
	}
	if *timeout < 0 || *killGrace < 0 {
		return f.fail(exitcode.Usage, "--timeout and --kill-grace must not be negative")
	}
	prober, err := f.prober(rf.egress, 0)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}

	o, err := f.output(rf.masks, rf.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()

	step, err := execstep.New(execstep.Options{
		Args: argv, Env: f.env, Stdin: f.stdin, Stdout: o.stdout, Stderr: o.stderr,
		Timeout: *timeout, KillGrace: *killGrace, Tool: t, Rules: rules,
	})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	coord := f.coordinator(pol, o, execDiagnose(prober, argv, t))
	out, err := coord.Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	code := exitcode.For(out, *absentOK)
	rep := report.New("exec", report.CommandLine(argv), out, code)
	if ok, why := step.CanRetry(nil); !ok {
		rep.Notes = append(rep.Notes, why)
	}
	return o.finish(rep)
}

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
