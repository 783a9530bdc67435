package cli

import (
	"context"
	"time"

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

// pushOptions is what `retrywise push` pushes.
type pushOptions struct {
	f    *factory
	step stepOptions
	// dir is the repository; "" means the current directory.
	dir string
	// gitArgs are git push's arguments (remote, refspecs, options).
	gitArgs []string
	// timeout bounds each git push.
	timeout time.Duration
	// rebaseOnReject is how many times a non-fast-forward rejection is rebased and pushed again.
	rebaseOnReject int
	// authRecheck is the wait before pushing once more after refused credentials; 0 means off.
	authRecheck time.Duration
	// safeDirectory adds dir to safe.directory for retrywise's own git runs.
	safeDirectory bool
}

// parsePush parses `retrywise push`'s flags and git push arguments into its options.
func parsePush(f *factory, args []string) (*pushOptions, int, bool) {
	fs := newFlagSet("push", pushSynopsis)
	rf := addStepFlags(fs, "2s,4s,8s,16s")
	timeout := fs.Duration("timeout", gitpush.DefaultTimeout, "bound on each git push: SIGTERM to its process group, then SIGKILL 10s later; a timeout is transient")
	rebase := fs.Int("rebase-on-reject", 0, "on a non-fast-forward rejection of the checked-out branch, fetch, rebase and push again, at most `N` times (changes the request; not a retry)")
	recheck := fs.Duration("auth-recheck", 0, "on a 401/403 refusal of the credentials, wait this `duration` once and push again (a fresh token propagating); 0 means off")
	safeDir := fs.Bool("safe-directory", false, "add the repository to safe.directory for retrywise's own git runs only (GIT_CONFIG_COUNT), for a workspace owned by another user")
	dir := fs.String("dir", "", "the repository to push from (`DIR`); empty means the current directory")
	if code, done := f.parse(fs, args); done {
		return nil, code, true
	}
	opts := &pushOptions{f: f, step: rf.options(), dir: *dir, gitArgs: fs.Args(), timeout: *timeout, rebaseOnReject: *rebase, authRecheck: *recheck, safeDirectory: *safeDir}
	var err error
	if opts.step.prober, err = f.prober(rf.egress, 0); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.step.policy, err = rf.policy(); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.timeout <= 0 || opts.authRecheck < 0 || opts.rebaseOnReject < 0 {
		return nil, f.fail(exitcode.Usage, "--timeout must be positive, and --auth-recheck and --rebase-on-reject must not be negative"), true
	}
	return opts, 0, false
}

// runPush pushes in the retry loop and reports every ref; a failure on the
// way to the remote is diagnosed by the egress probe (or opts.step.diagnose).
func runPush(ctx context.Context, opts *pushOptions) int {
	f := opts.f
	o, err := f.output(opts.step.masks, opts.step.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	step, err := gitpush.New(gitpush.Options{
		Dir: opts.dir, Args: opts.gitArgs, Env: f.env, Stdout: o.stdout, Stderr: o.stderr,
		Timeout: opts.timeout, RebaseOnReject: opts.rebaseOnReject, AuthRecheck: opts.authRecheck, SafeDirectory: opts.safeDirectory,
	})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = pushDiagnose(opts.step.prober, opts.dir, opts.gitArgs)
	}
	out, err := f.coordinator(opts.step.policy, o, diagnose).Run(ctx, step)
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
	rep.Outputs = pushOutputs(out.OK(), rep.Refs)
	return o.finish(rep, f.clock.Now())
}

// pushOutputs are a push step's outputs: pushed (the push succeeded), landed
// (some ref landed by an earlier attempt whose connection broke) and refs.
func pushOutputs(ok bool, refs []report.Ref) map[string]any {
	landed := false
	for _, r := range refs {
		landed = landed || r.Landed
	}
	if refs == nil {
		refs = []report.Ref{}
	}
	return map[string]any{"pushed": ok, "landed": landed, "refs": refs}
}
