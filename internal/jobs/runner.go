package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

// ErrJobTimeout is the cause of a job's context once its timeout is reached.
var ErrJobTimeout = errors.New("the job reached its timeout")

// Runner runs one job of a loaded file: its steps in order, each with its
// policy resolved before the first starts, into one report. The kinds of
// the file's catalog hold what the steps of a run share (one breaker
// registry, one egress prober).
type Runner struct {
	// File is the loaded file; Job one of its jobs.
	File *File
	Job  *Job
	// Env is the process's environment (KEY=VALUE).
	Env []string
	// Stdin is the run's standard input.
	Stdin io.Reader
	// Stdout and Stderr are the run's masked streams.
	Stdout, Stderr *redact.Writer
	// Redactor masks them; steps add the secrets they send.
	Redactor *redact.Redactor
	// Clock drives every wait and the job's timeout; nil means the wall clock.
	Clock clock.Clock
	// Log receives the run's progress lines (step started, step ended,
	// retries); nil means none.
	Log func(line string)
	// Attempting, when set, is called as an attempt of step id starts; the
	// function it returns, when not nil, is called as the attempt ends.
	Attempting func(id, kind string, n, maxAttempts int) (ended func())
	// Services are what every step of the run shares: one egress prober,
	// one breaker registry, the clock and the random source of jitter.
	Services *step.Services
	// StdoutTerminal is true when the process's stdout is a terminal.
	StdoutTerminal bool
	// Preflight probes every host the job will touch before its first
	// step (run --preflight; the job's preflight: true does too).
	Preflight bool

	// Memory is the job's hindsight (the fingerprints of its steps' last
	// final failures, and the rule): a transient-looking failure that
	// repeats the runs before stops without retries. Nil means none.
	Memory *hindsight.Memory

	// start is the run's start, the time hindsight records.
	start time.Time
	// pending are the steps whose hosts are known only when they start.
	pending map[string]bool
}

// Plan is a step's resolved snapshot before anything runs.
type Plan struct {
	// Step is the step.
	Step *Step
	// Policy is its policy snapshot.
	Policy retry.Policy
	// Target is what it runs, as far as it is known before the run.
	Target string
	// Settings are the settings the plan resolved (expanded by DryPlan).
	Settings Settings
	// Env is the step's env: (expanded by DryPlan).
	Env []EnvVar
}

// Plan resolves every step's policy and target without running anything,
// with its settings as written.
func (r *Runner) Plan() ([]Plan, error) {
	return r.plan(false)
}

// DryPlan is Plan with every ${NAME} expanded from the environment (the
// process's, the job's env:): what a run would send, as far as it is known
// before the first step; ${steps...} stays as written. An unset name is
// an error, as it would be in the run.
func (r *Runner) DryPlan() ([]Plan, error) {
	return r.plan(true)
}

func (r *Runner) plan(expand bool) ([]Plan, error) {
	plans := make([]Plan, 0, len(r.Job.Steps))
	var jobEnv []string
	if expand {
		env, err := r.expandJobEnv(State{})
		if err != nil {
			return nil, err
		}
		jobEnv = env
	}
	for _, st := range r.Job.Steps {
		if st.Prepared == nil {
			return nil, fmt.Errorf("step %s: not prepared (the file was not validated)", st.ID)
		}
		p := Plan{Step: st, Policy: st.Prepared.Policy(), Target: st.Prepared.Target(), Settings: st.Settings, Env: st.Env}
		if expand {
			// The step's env: as the run would expand it, as far as it is
			// known before the first step; values of secret-named
			// variables are registered, so the plan masks what derives
			// from them.
			state := State{Env: environ.Map(jobEnv)}
			env := make([]EnvVar, len(st.Env))
			added := make([]string, 0, len(st.Env))
			for i, v := range st.Env {
				x, err := expandKnownText(v.Value, state)
				if err != nil {
					return nil, fmt.Errorf("%s:%s: step %s env %s: %v (an unset value is never passed as empty)", r.File.Path, v.Pos, st.ID, v.Name, err)
				}
				env[i] = EnvVar{Name: v.Name, Value: x, Pos: v.Pos}
				added = append(added, v.Name+"="+x)
			}
			if r.Redactor != nil {
				r.Redactor.AddEnv(added)
			}
			p.Env = env
			stepState := State{Env: environ.Map(append(append([]string(nil), jobEnv...), added...))}
			if st.Kind.Expands() {
				var err error
				if p.Settings, err = expandKnown(st.Settings, stepState); err != nil {
					return nil, fmt.Errorf("%s:%s: step %s: %w", r.File.Path, st.Pos, st.ID, err)
				}
				if p.Target, err = expandKnownText(p.Target, stepState); err != nil {
					return nil, fmt.Errorf("%s:%s: step %s: %w", r.File.Path, st.Pos, st.ID, err)
				}
			}
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// expandKnownText expands v unless it names a step output (known only
// once that step ran).
func expandKnownText(v string, state State) (string, error) {
	if strings.Contains(v, "${steps.") {
		return v, nil
	}
	return ExpandValue(v, state)
}

// expandKnown expands the values of settings that name no step output.
func expandKnown(settings Settings, state State) (Settings, error) {
	out := make(Settings, len(settings))
	for i, s := range settings {
		vals := make([]string, len(s.Values))
		for j, v := range s.Values {
			x, err := expandKnownText(v, state)
			if err != nil {
				return nil, fmt.Errorf("%s: %v (an unset value is never sent as empty)", s.Key, err)
			}
			vals[j] = x
		}
		out[i] = Setting{Key: s.Key, Values: vals, Pos: s.Pos}
	}
	return out, nil
}

// Run runs the job and returns its report: every step appears, run,
// skipped or cancelled. A cancelled ctx (SIGINT/SIGTERM) cancels the
// running attempt and starts no further step; the job's timeout cancels
// the running step, skips the rest and ends the run with 75.
func (r *Runner) Run(ctx context.Context) *report.Run {
	clk := r.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	log := r.Log
	if log == nil {
		log = func(string) {}
	}
	run := report.NewRun(r.Job.Name, clk.Now())
	r.start = run.Run.Start
	plans, err := r.Plan()
	if err != nil {
		run.Finish(clk.Now(), exitcode.Config, err.Error())
		return run
	}
	tmp, err := os.MkdirTemp("", "retrywise-run-")
	if err != nil {
		run.Finish(clk.Now(), exitcode.Config, "cannot create the run's temporary folder: "+err.Error())
		return run
	}
	defer os.RemoveAll(tmp)

	jobCtx, cancel := ctx, context.CancelFunc(func() {})
	if r.Job.Timeout > 0 {
		jobCtx, cancel = clock.WithTimeout(ctx, clk, r.Job.Timeout, ErrJobTimeout)
	}
	defer cancel()

	state := State{Steps: map[string]StepState{}}
	exit, detail := exitcode.OK, ""
	jobEnv, envErr := r.expandJobEnv(state)
	if envErr != nil {
		exit, detail = exitcode.Config, envErr.Error()
		state.Failed = true
	}
	if (r.Preflight || r.Job.Preflight) && envErr == nil && ctx.Err() == nil {
		if msg := r.preflight(jobCtx, jobEnv, state, log); msg != "" {
			for i, st := range r.Job.Steps {
				rep := report.Skip(st.ID, st.Kind.Name(), report.Skipped, "not started: the preflight found denied hosts", plans[i].Policy)
				rep.ID, rep.ContinueOnError = st.ID, st.ContinueOnError
				run.Steps = append(run.Steps, rep)
			}
			run.Finish(clk.Now(), exitcode.Policy, msg)
			return run
		}
	}
	for i, st := range r.Job.Steps {
		pol := plans[i].Policy
		var rep *report.Step
		switch {
		case ctx.Err() != nil:
			rep = report.Skip(st.ID, st.Kind.Name(), report.Cancelled, "not started: the run was cancelled", pol)
		case errors.Is(context.Cause(jobCtx), ErrJobTimeout):
			rep = report.Skip(st.ID, st.Kind.Name(), report.Skipped, fmt.Sprintf("not started: the job reached its timeout of %s", r.Job.Timeout), pol)
		case envErr != nil:
			rep = report.Skip(st.ID, st.Kind.Name(), report.Skipped, "not started: the job's env: failed", pol)
		default:
			rep = r.runStep(jobCtx, st, pol, jobEnv, &state, tmp)
		}
		rep.ID, rep.ContinueOnError = st.ID, st.ContinueOnError
		if errors.Is(context.Cause(jobCtx), ErrJobTimeout) && rep.Result == report.Cancelled && ctx.Err() == nil {
			// The job's timeout, not a signal, cut the step short: transient.
			rep.ExitCode = exitcode.Transient
			rep.Detail = fmt.Sprintf("cancelled: the job reached its timeout of %s", r.Job.Timeout)
		}
		run.Steps = append(run.Steps, rep)
		state.Steps[st.ID] = stepState(rep)
		r.remember(ctx, st, rep, state, run.Run.Start)
		log(report.StepLine(rep))
		if rep.Result == report.Failure || rep.Result == report.Cancelled {
			if !st.ContinueOnError || rep.Result == report.Cancelled {
				if !state.Failed && exit == exitcode.OK {
					exit = rep.ExitCode
				}
				state.Failed = true
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		exit = exitcode.Interrupted
		var sig *interrupt.Signal
		if errors.As(context.Cause(ctx), &sig) {
			exit = sig.ExitCode()
		}
		detail = "cancelled: " + context.Cause(ctx).Error()
	case errors.Is(context.Cause(jobCtx), ErrJobTimeout):
		exit = exitcode.Transient
		detail = fmt.Sprintf("the job reached its timeout of %s", r.Job.Timeout)
	}
	run.Finish(clk.Now(), exit, detail)
	return run
}

// preflight probes the hosts of every step known before the first starts,
// in parallel, and returns the report of the denied ones ("" when none);
// the steps whose hosts depend on an earlier step's outputs are recorded
// to be probed when they start.
func (r *Runner) preflight(ctx context.Context, env []string, state State, log func(string)) string {
	if r.Services == nil || r.Services.Prober == nil {
		log("preflight: no egress prober; nothing probed")
		return ""
	}
	state.Env = environ.Map(env)
	r.pending = map[string]bool{}
	var refs []hostRef
	for _, st := range r.Job.Steps {
		expand := func(v string) (string, error) { return expandKnownText(v, state) }
		if !st.Kind.Expands() {
			expand = func(v string) (string, error) { return v, nil }
		}
		sr, pending := hostsOf(ctx, st, expand)
		refs = append(refs, sr...)
		if pending {
			r.pending[st.ID] = true
		}
	}
	start := time.Now()
	denied, probes := probeHosts(ctx, r.Services.Prober, env, refs)
	log(preflightSummary(len(refs), len(r.Job.Steps), time.Since(start), probes, len(denied), len(r.pending)))
	if len(denied) == 0 {
		return ""
	}
	return preflightReport(denied, "nothing ran")
}

// runStep decides whether st runs and runs it: its if: is evaluated
// first, and its env: and settings are expanded only when it runs, as a
// workflow does.
func (r *Runner) runStep(ctx context.Context, st *Step, pol retry.Policy, jobEnv []string, state *State, tmp string) *report.Step {
	kind := st.Kind.Name()
	state.Env = environ.Map(jobEnv)
	state.Cancelled = ctx.Err() != nil
	ok, err := st.ShouldRun(*state)
	if err != nil {
		// An *EvalError says "if: SOURCE: " itself.
		why := err.Error()
		if !errors.As(err, new(*EvalError)) {
			why = fmt.Sprintf("if: %s: %v", condSource(st), err)
		}
		return report.NotRun(kind, "", exitcode.Config, why, pol)
	}
	if !ok {
		why := "an earlier step failed"
		if st.If != nil && !(state.Failed && !st.If.status) {
			why = "if: " + st.If.Source + " is false"
		}
		return report.Skip(st.ID, kind, report.Skipped, why, pol)
	}
	env, failed := r.expandEnv(jobEnv, st.Env, *state, st, pol)
	if failed != nil {
		return failed
	}
	state.Env = environ.Map(env)
	if st.Prepared == nil {
		return report.NotRun(kind, "", exitcode.Config, "the step was not prepared (the file was not validated)", pol)
	}
	if r.pending[st.ID] && r.Services != nil && r.Services.Prober != nil {
		// Its hosts are known now: probed before it starts.
		s := *state
		refs, _ := hostsOf(ctx, st, func(v string) (string, error) { return ExpandValue(v, s) }) // only kinds that expand are pending
		if denied, _ := probeHosts(ctx, r.Services.Prober, env, refs); len(denied) > 0 {
			return report.NotRun(kind, "", exitcode.Policy, preflightReport(denied, "the step did not start"), pol)
		}
	}
	if r.Log != nil {
		target := st.Prepared.Target()
		if st.Kind.Expands() {
			if x, err := expandKnownText(target, *state); err == nil {
				target = x
			}
		}
		r.Log(report.ProgressStart(st.ID, kind, target))
	}
	snapshot := *state
	svc := r.Services
	if svc == nil {
		svc = &step.Services{Clock: r.Clock}
	}
	io := &step.IO{
		Env: env, Stdin: r.Stdin, Stdout: r.Stdout, Stderr: r.Stderr, Red: r.Redactor,
		TempDir: tmp, StdoutTerminal: r.StdoutTerminal, ID: st.ID,
		Expand: func(v string) (string, error) { return ExpandValue(v, snapshot) },
		Progress: func(a retry.Attempt, maxAttempts int) {
			if line, ok := report.Progress(a, maxAttempts); ok && r.Log != nil {
				r.Log(fmt.Sprintf("step %s: %s", st.ID, line))
			}
		},
	}
	if r.Attempting != nil {
		io.Attempting = func(n, maxAttempts int) func() { return r.Attempting(st.ID, kind, n, maxAttempts) }
	}
	if r.Memory != nil {
		io.Hindsight = r.Memory.Hook(st.ID, r.targets(ctx, st, snapshot), r.start)
	}
	return st.Prepared.Run(ctx, svc, io)
}

// targets are the hosts st names (its URL, remote, hosts:), by name, for
// hindsight's fingerprints.
func (r *Runner) targets(ctx context.Context, st *Step, state State) []string {
	refs, _ := hostsOf(ctx, st, func(v string) (string, error) { return expandKnownText(v, state) })
	out := make([]string, 0, len(refs))
	for _, h := range refs {
		out = append(out, h.target.Host)
	}
	return out
}

// remember records st's end in the job's hindsight (Memory.Remember).
func (r *Runner) remember(ctx context.Context, st *Step, rep *report.Step, state State, at time.Time) {
	if r.Memory != nil {
		r.Memory.Remember(st.ID, rep, r.targets(ctx, st, state), at)
	}
}

// expandJobEnv returns the process's environment with the job's env:
// expanded in it.
func (r *Runner) expandJobEnv(state State) ([]string, error) {
	state.Env = environ.Map(r.Env)
	env := append([]string(nil), r.Env...)
	added := make([]string, 0, len(r.Job.Env))
	for _, v := range r.Job.Env {
		val, err := ExpandValue(v.Value, state)
		if err != nil {
			return nil, fmt.Errorf("%s:%s: job %s env %s: %v (an unset value is never passed as empty)", r.File.Path, v.Pos, r.Job.Name, v.Name, err)
		}
		added = append(added, v.Name+"="+val)
	}
	if r.Redactor != nil {
		r.Redactor.AddEnv(added)
	}
	return append(env, added...), nil
}

// expandEnv returns base with vars appended, each value expanded in state;
// an unset reference fails the step before anything is sent.
func (r *Runner) expandEnv(base []string, vars []EnvVar, state State, st *Step, pol retry.Policy) ([]string, *report.Step) {
	if len(vars) == 0 {
		return base, nil
	}
	state.Env = environ.Map(base)
	env := append([]string(nil), base...)
	added := make([]string, 0, len(vars))
	for _, v := range vars {
		val, err := ExpandValue(v.Value, state)
		if err != nil {
			return nil, report.NotRun(st.Kind.Name(), "", exitcode.Config, fmt.Sprintf("env %s: %v (an unset value is never passed as empty)", v.Name, err), pol)
		}
		added = append(added, v.Name+"="+val)
	}
	if r.Redactor != nil {
		r.Redactor.AddEnv(added)
	}
	return append(env, added...), nil
}

func condSource(st *Step) string {
	if st.If == nil {
		return "success()"
	}
	return st.If.Source
}

// stepState is a finished step as later expressions see it.
func stepState(rep *report.Step) StepState {
	s := StepState{Outcome: string(rep.Result), Class: rep.Class, Outputs: rep.Outputs, Found: rep.Result == report.Success}
	if f, ok := rep.Outputs["found"].(bool); ok {
		s.Found = f
	}
	if s.Outputs == nil {
		s.Outputs = map[string]any{}
	}
	return s
}
