// Package gitpush runs `git push` as one retry step: one attempt is one real
// `git push --porcelain` with the user's arguments, its refs are read from
// the porcelain lines and classified through internal/failure, and only
// network failures are retried. After a failure, and only then, it may check
// whether an earlier push landed (git ls-remote), rebase on a non-fast-forward
// rejection (--rebase-on-reject), or re-check a refused token once
// (--auth-recheck).
package gitpush

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/redact"
)

// DefaultTimeout bounds one push attempt (10 minutes).
const DefaultTimeout = 10 * time.Minute

// Options configures a Step.
type Options struct {
	// Dir is the repository's working directory; "" means the current one.
	Dir string
	// Args are the user's git push arguments (remote, refspecs, options);
	// --porcelain is added in front.
	Args []string
	// Env is the environment of every git run; nil means retrywise's own.
	Env []string
	// Stdout and Stderr receive git's output live (the caller masks secrets).
	Stdout, Stderr io.Writer
	// Timeout bounds each git run; 0 means DefaultTimeout.
	Timeout time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL when a run is
	// stopped; 0 means execstep.DefaultKillGrace.
	KillGrace time.Duration
	// RebaseOnReject is how many times a non-fast-forward rejection of the
	// checked-out branch may be answered by fetch, rebase and push again; 0 never.
	RebaseOnReject int
	// Setting names a setting with its value in the surface's words, for
	// remedies (failure.PushInput.Setting); nil means the flag.
	Setting func(name, value string) string
	// AuthRecheck, when positive, allows exactly one more push after this
	// wait when the server refuses the credentials (401/403): a freshly
	// minted token may take a few seconds to propagate.
	AuthRecheck time.Duration
	// SafeDirectory adds the repository to safe.directory for retrywise's own
	// git runs (through GIT_CONFIG_COUNT), for a workspace owned by another user.
	SafeDirectory bool
	// Team are a team's rules (--rules): the first that matches a failed
	// push's output and exit status decides, before the built-in reading.
	Team *teamrules.Rules
	// Secrets, when set, is given the credentials of the push URL (from
	// the remote's git config, insteadOf rules applied: its password, or
	// its user when it has none, percent-decoded) before the first push,
	// for the caller to mask.
	Secrets func(values ...string)
	// AttemptFiles, when set, gives each git push (its hooks and credential
	// helpers included) file commands of its own, as an exec step's
	// attempts get (execstep.Options.AttemptFiles); the other gits
	// retrywise runs (fetch, rebase, ls-remote) get none of those variables.
	AttemptFiles *execstep.AttemptFiles
}

// RefResult is one ref's fate in the last attempt.
type RefResult struct {
	failure.PushRef
	// Failure is the ref's classified failure; nil when it was pushed or is up to date.
	Failure *failure.Failure
	// Landed is true when an earlier attempt's push of this ref landed
	// although its connection broke (checked with git ls-remote).
	Landed bool
}

// Step runs `git push --porcelain` once per attempt; it implements retry.Step.
type Step struct {
	opts Options
	// secretsGiven: the push URL's credentials went to opts.Secrets.
	secretsGiven bool
	args         pushArgs
	env          []string
	push         *execstep.Step
	out          porcelain
	last         execstep.Result
	ran          bool
	n            int
	notes        []string
	refs         []RefResult

	// state carried across attempts, only touched after a failure
	networkAttempt int // the last attempt that failed on the network; 0 when none
	landedChecked  bool
	rebases        int
	rechecked      bool   // --auth-recheck was granted
	recheckOf      int    // the attempt it re-checks
	recheckWhy     string // that attempt's reason
	remote         *remote
}

// New validates opts and returns a Step; it runs nothing.
func New(opts Options) (*Step, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if err := checkDir(opts.Dir); err != nil {
		return nil, err
	}
	env, err := gitEnv(opts.Env, opts.Dir, opts.SafeDirectory)
	if err != nil {
		return nil, err
	}
	s := &Step{opts: opts, args: parseArgs(opts.Args), env: env}
	if opts.AttemptFiles != nil {
		s.env = environ.Without(env, opts.AttemptFiles.Vars...)
	}
	s.push, err = execstep.New(execstep.Options{
		Args: append([]string{"git", "push", "--porcelain"}, opts.Args...),
		Env:  env, Dir: opts.Dir, AttemptFiles: opts.AttemptFiles,
		Stdout: io.MultiWriter(opts.Stdout, &s.out), Stderr: opts.Stderr,
		Timeout: opts.Timeout, KillGrace: opts.KillGrace, Tool: failure.ToolGit,
		Classify: func(_ context.Context, r execstep.Result) error {
			s.last, s.ran = r, true
			return r.Err
		},
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Command returns the git command line each attempt runs (not masked).
func (s *Step) Command() []string {
	return append([]string{"git", "push", "--porcelain"}, s.opts.Args...)
}

// Refs returns the per-ref results of the last attempt, in git's order.
func (s *Step) Refs() []RefResult { return append([]RefResult(nil), s.refs...) }

// Notes returns what the step did beyond pushing, in order: a landed push,
// a rebase (which changed the request), an authentication re-check.
func (s *Step) Notes() []string { return append([]string(nil), s.notes...) }

// CanRetry always allows a retry: a push is idempotent, and a push that
// landed although its connection broke is recognised on the next attempt.
func (s *Step) CanRetry(*failure.Failure) (bool, string) { return true, "" }

// Attempt pushes once and classifies the result; after a failure it may check
// whether an earlier push landed or rebase, each within this attempt. A
// re-check of refused credentials is the loop's next attempt (Recheck).
func (s *Step) Attempt(ctx context.Context, n int) error {
	s.n = n
	if s.opts.Secrets != nil && !s.secretsGiven {
		s.secretsGiven = true
		if creds := urlCredentials(s.resolveRemote(ctx).url); len(creds) > 0 {
			s.opts.Secrets(creds...)
		}
	}
	res := s.pushOnce(ctx)
	for {
		if s.networkAttempt > 0 && !s.landedChecked && landedCandidate(res) {
			s.checkLanded(ctx, &res)
			continue
		}
		if res.fail == nil {
			break
		}
		if s.rebaseCandidate(res) {
			if f := s.rebase(ctx, res); f != nil {
				res.fail = f
				break
			}
			res = s.pushOnce(ctx)
			continue
		}
		break
	}
	s.refs = res.refResults()
	s.noteRecheck(res.fail)
	if res.fail == nil {
		return nil
	}
	if res.fail.Class == failure.Transient {
		s.networkAttempt = n
	}
	if res.fail.Trace.Network || res.fail.Trace.Status != 0 {
		s.addRemote(ctx, res.fail)
	}
	return res.fail
}

// pushResult is one git push run.
type pushResult struct {
	refs    []failure.PushRef
	verdict failure.PushVerdict
	landed  []bool
	fail    *failure.Failure
	output  string
	exit    int
}

func (r *pushResult) refResults() []RefResult {
	out := make([]RefResult, len(r.refs))
	for i, ref := range r.refs {
		out[i] = RefResult{PushRef: ref}
		if i < len(r.verdict.Refs) {
			out[i].Failure = r.verdict.Refs[i]
		}
		if i < len(r.landed) {
			out[i].Landed = r.landed[i]
		}
	}
	return out
}

// pushOnce runs git push once and classifies what it printed.
func (s *Step) pushOnce(ctx context.Context) pushResult {
	s.out.reset()
	s.ran = false
	err := s.push.Attempt(ctx, s.n)
	refs, _ := s.out.result()
	res := pushResult{refs: refs, landed: make([]bool, len(refs))}
	if !s.ran {
		res.fail = failure.FromError(err)
		return res
	}
	r := s.last
	res.output, res.exit = r.Output, r.ExitCode
	if r.TimedOut || r.Signal != 0 || ctx.Err() != nil {
		// stopped by --timeout, a signal or the loop's own deadline: the
		// built-in verdict says which
		if err == nil {
			return res
		}
		res.fail = failure.FromError(err)
		return res
	}
	in := failure.PushInput{Remote: s.args.repo, Refs: refs, Text: r.Output, ExitCode: r.ExitCode, Setting: s.opts.Setting}
	if in.Remote == "" && r.ExitCode != 0 && anyRejected(refs) {
		in.Remote = s.resolveRemote(ctx).name
	}
	res.verdict = failure.FromPush(in)
	if res.verdict.Failure != nil {
		if tf := failure.TeamVerdict(failure.Input{Rules: s.opts.Team, Ctx: ctx, Tool: failure.ToolGit, Command: "git", Text: r.Output, ExitCode: r.ExitCode}); tf != nil {
			res.verdict.Failure = tf
		}
	}
	res.fail = res.verdict.Failure
	return res
}

// addRemote names the push's remote, without credentials, as the URL of the
// trace of a failure on the way to it (the network, or an HTTP status that
// a proxy may have sent), so a diagnosis knows where the push went.
func (s *Step) addRemote(ctx context.Context, f *failure.Failure) {
	if f.Trace.URL == "" {
		f.Trace.URL = redact.URL(s.resolveRemote(ctx).url)
	}
}

// note records what the step did beyond pushing.
func (s *Step) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

func anyRejected(refs []failure.PushRef) bool {
	for _, r := range refs {
		if r.Rejected() {
			return true
		}
	}
	return false
}
