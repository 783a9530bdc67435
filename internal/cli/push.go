package cli

import (
	"context"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/gitpush"
	"github.com/retrywise/retrywise/internal/report"
)

const pushSynopsis = `Usage: retrywise push [flags] [-- GIT-PUSH-ARGS...]

Runs git push --porcelain with GIT-PUSH-ARGS (remote, refspecs,
--force-with-lease, --tags, --atomic, -o ...) in the repository, relays git's
output with secrets masked, and retries only network failures. Rejections
(non-fast-forward, protected branches, rules, hooks) and refused credentials
stop at once with a per-ref report and a remedy. On success exactly one git
process runs; ls-remote, fetch and rebase run only after a failure.`

func (f *factory) runPush(ctx context.Context, args []string) int {
	return f.runPushWith(ctx, args, nil)
}

// pushDiagnose returns the push coordinator's Diagnose: a failure on the way
// to the remote, whose trace names the remote's URL, is handed to the egress
// probe with git's proxy rules, asked of git in the repository; the probe
// itself decides from the trace whether the proxy is worth asking. Any other
// failure is returned as it is, and nothing runs on success.
func pushDiagnose(p *egress.Prober, dir string, gitArgs []string) egress.DiagnoseFunc {
	return func(ctx context.Context, f *failure.Failure) *failure.Failure {
		if f == nil || f.Trace.URL == "" {
			return f
		}
		return p.Diagnose(egress.Step{Client: egress.ClientGit, URL: f.Trace.URL, Args: gitArgs, Dir: dir})(ctx, f)
	}
}

// runPushWith runs `retrywise push`; diagnose, when not nil, replaces the
// egress probe as the coordinator's Diagnose (tests).
func (f *factory) runPushWith(ctx context.Context, args []string, diagnose func(context.Context, *failure.Failure) *failure.Failure) int {
	fs := newFlagSet("push", pushSynopsis)
	rf := addStepFlags(fs, "2s,4s,8s,16s")
	timeout := fs.Duration("timeout", gitpush.DefaultTimeout, "bound on each git push: SIGTERM to its process group, then SIGKILL 10s later; a timeout is transient")
	rebase := fs.Int("rebase-on-reject", 0, "on a non-fast-forward rejection of the checked-out branch, fetch, rebase and push again, at most `N` times (changes the request; not a retry)")
	recheck := fs.Duration("auth-recheck", 0, "on a 401/403 refusal of the credentials, wait this `duration` once and push again (a fresh token propagating); 0 means off")
	safeDir := fs.Bool("safe-directory", false, "add the repository to safe.directory for retrywise's own git runs only (GIT_CONFIG_COUNT), for a workspace owned by another user")
	dir := fs.String("dir", "", "the repository to push from (`DIR`); empty means the current directory")
	if code, done := f.parse(fs, args); done {
		return code
	}
	prober, err := f.prober(rf.egress, 0)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if diagnose == nil {
		diagnose = pushDiagnose(prober, *dir, fs.Args())
	}
	pol, err := rf.policy()
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if *timeout <= 0 || *recheck < 0 || *rebase < 0 {
		return f.fail(exitcode.Usage, "--timeout must be positive, and --auth-recheck and --rebase-on-reject must not be negative")
	}

	o, err := f.output(rf.masks, rf.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	step, err := gitpush.New(gitpush.Options{
		Dir: *dir, Args: fs.Args(), Env: f.env, Stdout: o.stdout, Stderr: o.stderr,
		Timeout: *timeout, RebaseOnReject: *rebase, AuthRecheck: *recheck, SafeDirectory: *safeDir,
	})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	coord := f.coordinator(pol, o, diagnose)
	out, err := coord.Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	code := exitcode.For(out, false)
	rep := report.New("push", report.CommandLine(step.Command()), out, code)
	rep.Notes = append(rep.Notes, step.Notes()...)
	for _, r := range step.Refs() {
		ref := report.Ref{From: r.From, To: r.To, Status: r.Status(), OK: r.Failure == nil, Landed: r.Landed}
		if r.Failure != nil {
			ref.Class, ref.Reason = r.Failure.Class.String(), r.Failure.Reason
		}
		rep.Refs = append(rep.Refs, ref)
	}
	return o.finish(rep)
}
