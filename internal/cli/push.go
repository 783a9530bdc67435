package cli

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/gitpush"
	"github.com/retrywise/retrywise/internal/jobs"
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
func pushDiagnose(p *egress.Prober, dir string, gitArgs, env []string) egress.DiagnoseFunc {
	return func(ctx context.Context, f *failure.Failure) *failure.Failure {
		if f == nil || f.Trace.URL == "" {
			return f
		}
		return p.Diagnose(egress.Step{Client: egress.ClientGit, URL: f.Trace.URL, Args: gitArgs, Dir: dir, Env: env})(ctx, f)
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

// pushFlags are `retrywise push`'s flags as given.
type pushFlags struct {
	step           *stepFlags
	timeout        time.Duration
	rebaseOnReject int
	authRecheck    time.Duration
	safeDirectory  bool
	dir            string
}

// pushKind is the push step: git push, retried only on network failures.
func pushKind() *kindDef {
	return &kindDef{
		name: "push", synopsis: pushSynopsis, expands: true,
		define: func(fs *flag.FlagSet) kindFlags {
			pf := &pushFlags{step: addStepFlags(fs, "2s,4s,8s,16s")}
			fs.DurationVar(&pf.timeout, "timeout", gitpush.DefaultTimeout, "bound on each git push: SIGTERM to its process group, then SIGKILL 10s later; a timeout is transient")
			fs.IntVar(&pf.rebaseOnReject, "rebase-on-reject", 0, "on a non-fast-forward rejection of the checked-out branch, fetch, rebase and push again, at most `N` times (changes the request; not a retry)")
			fs.DurationVar(&pf.authRecheck, "auth-recheck", 0, "on a 401/403 refusal of the credentials, wait this `duration` once and push again (a fresh token propagating); 0 means off")
			fs.BoolVar(&pf.safeDirectory, "safe-directory", false, "add the repository to safe.directory for retrywise's own git runs only (GIT_CONFIG_COUNT), for a workspace owned by another user")
			fs.StringVar(&pf.dir, "dir", "", "the repository to push from (`DIR`); empty means the current directory")
			return pf
		},
		args:       "args",
		positional: []jobs.Key{{Name: "args", Type: jobs.KeyList, Positional: true, Usage: "git push's arguments: remote, refspecs, options"}},
		outputs:    []string{"pushed", "landed", "refs"},
		fixed:      true,
	}
}

// resolve validates push's flags and git push arguments into its options.
func (pf *pushFlags) resolve(f *factory, gitArgs []string, _ func(string) bool) (runnable, error) {
	opts := &pushOptions{f: f, step: pf.step.options(), dir: pf.dir, gitArgs: gitArgs, timeout: pf.timeout, rebaseOnReject: pf.rebaseOnReject, authRecheck: pf.authRecheck, safeDirectory: pf.safeDirectory}
	var err error
	if opts.step.prober, err = f.prober(pf.step.egress, 0); err != nil {
		return nil, err
	}
	if opts.step.policy, err = pf.step.policy(); err != nil {
		return nil, err
	}
	if opts.timeout <= 0 || opts.authRecheck < 0 || opts.rebaseOnReject < 0 {
		return nil, errors.New("--timeout must be positive, and --auth-recheck and --rebase-on-reject must not be negative")
	}
	return opts, nil
}

// options are the settings every step shares.
func (opts *pushOptions) options() *stepOptions { return &opts.step }

// target is the git push command line.
func (opts *pushOptions) target() string {
	return report.CommandLine(append([]string{"git", "push"}, opts.gitArgs...))
}

// run pushes in the retry loop and reports every ref; a failure on the way
// to the remote is diagnosed by the egress probe (or opts.step.diagnose).
func (opts *pushOptions) run(ctx context.Context, io *stepIO) (*report.Step, *stepError) {
	f := opts.f
	// A step command's arguments are git's, as given; a job's runner has
	// already expanded ${...} in them.
	dir, gitArgs := opts.dir, opts.gitArgs
	step, err := gitpush.New(gitpush.Options{
		Dir: dir, Args: gitArgs, Env: io.env, Stdout: io.stdout, Stderr: io.stderr,
		Timeout: opts.timeout, RebaseOnReject: opts.rebaseOnReject, AuthRecheck: opts.authRecheck, SafeDirectory: opts.safeDirectory,
		Secrets: io.red.Add,
	})
	if err != nil {
		return nil, &stepError{exitcode.Config, err.Error()}
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = pushDiagnose(opts.step.prober, dir, gitArgs, io.env)
	}
	out, err := f.coordinator(opts.step.policy, io, diagnose).Run(ctx, step)
	if err != nil {
		return nil, &stepError{exitcode.Usage, err.Error()}
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
	return rep, nil
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
