// Package app is retrywise's application layer: the use cases both
// front-ends call, the command line (internal/cli) and the GitHub Action
// (internal/action). Each takes typed options and returns what it made
// (a report), the exit code and the error that ended it early; the
// front-ends only parse their inputs into options, wire streams and
// environment, and render what comes back.
package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/filecmd"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/step"
)

// App is the process's environment and services, the same whichever
// front-end runs a use case.
type App struct {
	// Env is the environment as KEY=VALUE pairs: given to children,
	// scanned for secrets and proxies.
	Env []string
	// Clock drives every wait.
	Clock clock.Clock
	// Rand draws each wait's jitter; nil means math/rand/v2's.
	Rand func() float64
	// Breakers holds the per-host circuit breakers of the process, shared
	// by every HTTP step.
	Breakers *breaker.Registry
	// UserAgent is the User-Agent of retrywise's own requests.
	UserAgent string
	// Diagnose, when set, replaces the egress probe as every step's
	// Diagnose (tests of the loop's use of it).
	Diagnose egress.DiagnoseFunc
}

// Services are the step services of a run: the process's environment,
// clock, breakers, user agent and random source.
func (a *App) Services() *step.Services {
	return &step.Services{Env: a.Env, Clock: a.Clock, Breakers: a.Breakers, UserAgent: a.UserAgent, Rand: a.Rand, Diagnose: a.Diagnose}
}

// Redactor returns the secret masker of a run: the environment's secrets,
// the proxies' credentials and masks.
func (a *App) Redactor(masks ...string) *redact.Redactor {
	return redact.New(redact.Options{Env: a.Env, Values: slices.Concat(masks, egress.ProxyCredentials(a.Env))})
}

// Error is a use case that ended before or instead of its report: the
// exit code and the one-line reason a front-end prints.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// fail returns code and an *Error of code and msg.
func fail(code int, msg string) (int, error) { return code, &Error{Code: code, Msg: msg} }

// InvalidJobFile is a job file with errors: nothing of it ran. Errs are
// the errors with their positions, which the front-end prints before the
// one-line reason.
type InvalidJobFile struct {
	Errs jobs.Errors
}

func (e *InvalidJobFile) Error() string {
	return fmt.Sprintf("%s is invalid (%s): nothing ran", e.Errs[0].Path, report.Count(len(e.Errs), "error"))
}

// LoadJobFile loads and validates the job file at path ("" means the
// default places) for a use case that runs it: an invalid file is an
// *InvalidJobFile and 78; a file that cannot be read is 78, or the
// signal's code when a signal stopped the loading.
func (a *App) LoadJobFile(ctx context.Context, path string) (*jobs.Loaded, int, error) {
	l, errs, err := jobs.LoadFile(ctx, path, a.Env)
	if err != nil {
		if ctx.Err() != nil {
			code, err := fail(exitcode.ForCause(ctx), "stopped while loading the job file: "+err.Error())
			return nil, code, err
		}
		code, err := fail(exitcode.Config, err.Error())
		return nil, code, err
	}
	if len(errs) > 0 {
		return nil, exitcode.Config, &InvalidJobFile{Errs: errs}
	}
	return l, exitcode.OK, nil
}

// StepOptions is one step to run: prepared from a command's flags or the
// action's inputs, with its streams.
type StepOptions struct {
	Step *step.Prepared
	IO   *step.IO
	// FileCommands gives an exec step's attempts file commands of their
	// own inside a workflow; nil for none.
	FileCommands *filecmd.Forwarder
}

// RunStep runs one step with its retry policy. A step that could not
// start is an *Error with its code, and a report of it when the step
// made one.
func (a *App) RunStep(ctx context.Context, o StepOptions) (*report.Step, int, error) {
	svc := a.Services()
	svc.FileCommands = o.FileCommands
	rep, serr := o.Step.RunStep(ctx, svc, o.IO)
	if serr != nil {
		code, err := fail(serr.Code, serr.Msg)
		return rep, code, err
	}
	return rep, rep.ExitCode, nil
}

// JobOptions is one job of a loaded job file to run, with its streams.
type JobOptions struct {
	Loaded *jobs.Loaded
	// Job is the job's name; "" means the file's only job.
	Job string
	// Preflight probes every host the job will touch before its first step.
	Preflight bool
	// Session holds the run's streams; its environment, services, clock
	// and masker default to the App's.
	Session jobs.SessionOptions
	// Hindsight, when set, keeps the job's final failures across runs (a
	// history folder): a transient-looking failure that repeats the runs
	// before stops without retries. Nil means no memory.
	Hindsight hindsight.Store
	// Persist is the command line's rule (--persist-after,
	// --persist-span); the job's keys and defaults' override it.
	Persist hindsight.Rule
	// HindsightPrefix is prepended to the step ids in the book (the
	// workflow's step and matrix leg, in the action).
	HindsightPrefix string
}

// OpenJob picks the job and prepares its run over the given streams: the
// session a front-end wires its file commands and logs to, then runs with
// RunJob or prints the plan of. An unknown job is a usage error (64).
func (a *App) OpenJob(o JobOptions) (*jobs.Session, int, error) {
	job, err := o.Loaded.File.Pick(o.Job)
	if err != nil {
		code, err := fail(exitcode.Usage, err.Error())
		return nil, code, err
	}
	so := o.Session
	if so.Env == nil {
		so.Env = a.Env
	}
	if so.Redactor == nil {
		so.Redactor = a.Redactor
	}
	if so.Services == nil {
		so.Services = a.Services()
	}
	if so.Clock == nil {
		so.Clock = a.Clock
	}
	so.Preflight = so.Preflight || o.Preflight
	var warning string
	if o.Hindsight != nil {
		if rule := o.Loaded.File.PersistRule(job, o.Persist); rule.After > 0 {
			so.Memory = hindsight.Open(o.Hindsight, job.Name, rule)
			so.Memory.Prefix = o.HindsightPrefix
			warning = so.Memory.Warning
		}
	}
	js := jobs.NewSession(o.Loaded, job, so)
	if warning != "" {
		js.Log(warning)
	}
	return js, exitcode.OK, nil
}

// RunJob runs an opened job: its steps in order, into one report, masked.
func (a *App) RunJob(ctx context.Context, js *jobs.Session) (*report.Run, int, error) {
	rep := js.Run(ctx)
	if err := js.Runner.Memory.Save(); err != nil {
		// Hindsight never fails a run: the next one starts from what was saved.
		js.Log(err.Error())
	}
	return rep, rep.Run.ExitCode, nil
}
