package step

import (
	"context"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/execstep"
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

// PushKind is the push step: git push, retried only on network failures.
var PushKind = &Kind{
	Name: "push", Synopsis: pushSynopsis, Args: "args", Expands: true,
	Outputs: []string{"pushed", "landed", "refs"},
	new:     func() Config { return &PushConfig{} },
}

// PushConfig is a push step.
type PushConfig struct {
	Common
	// Args are git push's arguments: remote, refspecs, options.
	Args []string
	// Dir is the repository; "" means the current directory.
	Dir string
	// Timeout bounds each git push.
	Timeout time.Duration
	// RebaseOnReject is how many times a non-fast-forward rejection is rebased and pushed again.
	RebaseOnReject int
	// AuthRecheck is the wait before pushing once more after refused credentials; 0 means off.
	AuthRecheck time.Duration
	// SafeDirectory adds Dir to safe.directory for retrywise's own git runs.
	SafeDirectory bool
}

// Fields is push's field table.
func (c *PushConfig) Fields() []*Field {
	s := c.newFields()
	c.Retry.fields(s, "2s,4s,8s,16s", exactJitter)
	c.commandFields(s)
	c.Egress.fields(s)
	c.rulesField(s)
	bind(s, Field{Name: "timeout", Default: gitpush.DefaultTimeout.String(), Doc: "bound on each git push, its kill grace included: SIGTERM to its process group 10s before the bound, SIGKILL at it; a timeout is transient"}, &c.Timeout)
	bind(s, Field{Name: "rebase-on-reject", Default: "0", Min: "0", Doc: "on a non-fast-forward rejection of the checked-out branch, fetch, rebase and push again, at most `N` times (changes the request; not a retry)"}, &c.RebaseOnReject)
	bind(s, Field{Name: "auth-recheck", Default: "0s", Min: "0", Doc: "on a 401/403 refusal of the credentials, wait this `duration` once and push again (a fresh token propagating); 0 means off"}, &c.AuthRecheck)
	bind(s, Field{Name: "safe-directory", Doc: "add the repository to safe.directory for retrywise's own git runs only (GIT_CONFIG_COUNT), for a workspace owned by another user"}, &c.SafeDirectory)
	bind(s, Field{Name: "dir", Doc: "the repository to push from (`DIR`); empty means the current directory"}, &c.Dir)
	bindList(s, Field{Name: "args", Positional: true, Doc: "git push's arguments: remote, refspecs, options"}, &c.Args)
	return s.fields
}

func (c *PushConfig) validate(ctx context.Context) error {
	errs := c.validateCommon()
	if err := c.loadRules(ctx); err != nil {
		errs = append(errs, err)
	}
	if c.Timeout <= 0 {
		errs = append(errs, &FieldError{Field: "timeout", Value: c.Timeout.String(), Msg: "must be positive"})
	}
	return joinErrs(errs)
}

// target is the git push command line.
func (c *PushConfig) target() string {
	return report.CommandLine(append([]string{"git", "push"}, c.Args...))
}

// run pushes in the retry loop and reports every ref; a failure on the way
// to the remote is diagnosed by the egress probe.
func (c *PushConfig) run(ctx context.Context, x *exe) (*report.Step, *Error) {
	io := x.io
	// A step command's arguments are git's, as given; a job's expand.
	gitArgs, serr := x.expandAll(c.Args, "args", false)
	if serr != nil {
		return nil, serr
	}
	dir, serr := x.expand(c.Dir, "dir", false)
	if serr != nil {
		return nil, serr
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
	step, err := gitpush.New(gitpush.Options{
		Dir: dir, Args: gitArgs, Env: io.Env, Stdout: io.Stdout, Stderr: io.Stderr,
		Timeout: c.Timeout, RebaseOnReject: c.RebaseOnReject, AuthRecheck: c.AuthRecheck, SafeDirectory: c.SafeDirectory,
		Secrets: io.Red.Add, Team: c.teamRules(x.svc), AttemptFiles: attemptFiles, Setting: io.setting,
	})
	if err != nil {
		return nil, &Error{exitcode.Config, err.Error()}
	}
	prober, serr := x.prober(&c.Egress, 0)
	if serr != nil {
		return nil, serr
	}
	out, err := x.coordinator(c.pol, pushDiagnose(prober, dir, gitArgs, io.Env)).Run(ctx, step)
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	if attemptFiles != nil {
		// Only the final push's file commands (a hook's) reach the workflow.
		who := "the push"
		if io.ID != "" {
			who = "step " + io.ID
		}
		x.svc.FileCommands.Forward(ctx, who, attemptFiles.Final())
	}
	code := exitcode.For(out, false)
	rep := report.New("push", report.CommandLine(step.Command()), out, code)
	rep.Notes = append(rep.Notes, step.Notes()...)
	for _, r := range step.Refs() {
		ref := report.Ref{From: r.From, To: r.To, Status: r.Status(), OK: r.Failure == nil, Landed: r.Landed}
		if r.Failure != nil {
			ref.Class, ref.Reason = r.Failure.Class, r.Failure.Reason
		}
		rep.Refs = append(rep.Refs, ref)
	}
	rep.Outputs = pushOutputs(out.OK(), rep.Refs)
	return rep, nil
}

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
