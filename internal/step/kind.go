package step

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/filecmd"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// Kind is one step kind: its name (the command and the job file's key),
// its usage text, outputs, and its config.
type Kind struct {
	// Name is the command's name and the job file's kind key.
	Name string
	// Synopsis is the command's usage text.
	Synopsis string
	// Args names the positional field that takes the command's positional
	// arguments ("" when the command takes none).
	Args string
	// Outputs are the outputs every step of the kind has; StepOutputs
	// adds those a step's settings declare (http's fields, exec's
	// outputs: list).
	Outputs []string
	// declare, when set, is what a step of the kind declares from its
	// settings (StepOutputs); nil means Outputs, always declared.
	declare func(get func(name string) ([]string, bool)) (names []string, declared bool)
	// Expands is true when ${...} expands in the kind's string settings in
	// a job file (not in exec's command or run: a script's own ${f} is the
	// shell's).
	Expands bool
	// new returns a zero config.
	new func() Config
	// template is a config at its defaults, made once; New copies it.
	template     Config
	templateOnce sync.Once
}

// StepOutputs are the outputs a step of the kind declares, from its
// settings as written (get returns a setting's values and whether it is
// set): an http step's fixed outputs and each field's NAME, an exec
// step's outputs: list, the other kinds' fixed outputs. declared is false
// when the step declares none (an exec step without outputs:, whose
// script may write any): a reference to one of its outputs cannot be
// checked before it runs.
func (k *Kind) StepOutputs(get func(name string) ([]string, bool)) (names []string, declared bool) {
	if k.declare == nil {
		return k.Outputs, true
	}
	return k.declare(get)
}

// New returns a fresh config of the kind, every field at its default: a
// copy of a config whose defaults were parsed once (a default's slice is
// replaced, never appended to, when a field is set).
func (k *Kind) New() Config {
	k.templateOnce.Do(func() {
		k.template = k.new()
		applyDefaults(k.template.Fields())
	})
	v := reflect.New(reflect.TypeOf(k.template).Elem())
	v.Elem().Set(reflect.ValueOf(k.template).Elem())
	return v.Interface().(Config)
}

// Fields returns the kind's field table, bound to a fresh config: the
// source of the flags, keys, inputs, schema and docs.
func (k *Kind) Fields() []*Field { return k.New().Fields() }

// Config is a kind's typed settings.
type Config interface {
	// Fields is the config's field table, bound to the config.
	Fields() []*Field
	// Given reports whether a field was set explicitly.
	Given(name string) bool
	// validate checks the settings and derives what the run needs; its
	// errors are *FieldError, joined.
	validate(ctx context.Context) error
	// policy is the loop's policy snapshot, once validated.
	policy() retry.Policy
	// target names what the step runs, before expansion.
	target() string
	// run runs the step's retry loop.
	run(ctx context.Context, x *exe) (*report.Step, *Error)
	// Shared is what every config has.
	Shared() *Common
}

// Common is what every kind's config has: the retry and egress settings,
// and the step command's own report and masks.
type Common struct {
	Retry  RetryConfig
	Egress EgressConfig
	// Report is the step command's JSON report file (--report).
	Report string
	// Masks are extra values to mask (--mask).
	Masks []string
	// RulesFile is a team's rules file (--rules); "" means none.
	RulesFile string

	team *teamrules.Rules

	given givenSet
	pol   retry.Policy
}

// Shared returns the settings every config has.
func (c *Common) Shared() *Common { return c }

// Given reports whether the field name was set explicitly.
func (c *Common) Given(name string) bool { return c.given.Given(name) }

func (c *Common) policy() retry.Policy { return c.pol }

// validateCommon validates the retry settings into the policy, and the
// egress settings; it returns their errors.
func (c *Common) validateCommon() []error {
	var errs []error
	var err error
	if c.pol, err = c.Retry.Policy(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Egress.Prober(nil, 0); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// commandFields adds the step command's own flags.
func (c *Common) commandFields(s *fieldSet) {
	bind(s, Field{Name: "report", Place: Command, NoInput: true, Doc: "also write the report as JSON to `FILE`"}, &c.Report)
	bindList(s, Field{Name: "mask", Doc: "also mask `VALUE` wherever it appears (repeatable)", Secret: true}, &c.Masks)
}

// rulesField adds --rules, for the kinds that classify a tool's output or
// an answer's body (exec, http, push).
func (c *Common) rulesField(s *fieldSet) {
	bind(s, Field{Name: "rules", RunWide: true, Doc: "a YAML `FILE` of team rules ({match, tool, exit-code, status, class, code, reason, remedy} items);\nthe first that matches decides, before the built-in recognisers"}, &c.RulesFile)
}

// loadRules reads --rules; its error names the field.
func (c *Common) loadRules(ctx context.Context) error {
	c.team = nil
	if c.RulesFile == "" {
		return nil
	}
	t, err := teamrules.Load(ctx, c.RulesFile)
	if err != nil {
		msgs := []string{}
		for _, e := range flattenErr(err) {
			msgs = append(msgs, e.Error())
		}
		return &FieldError{Field: "rules", Value: strconv.Quote(c.RulesFile), Msg: strings.Join(msgs, "; "), Fix: "fix the rules file at the positions named"}
	}
	c.team = t
	return nil
}

// teamRules are the step's team rules: the run's (a job file's inline
// defaults.rules) then --rules.
func (c *Common) teamRules(svc *Services) *teamrules.Rules {
	var run *teamrules.Rules
	if svc != nil {
		run = svc.Rules
	}
	return run.Concat(c.team)
}

// flattenErr returns the errors joined in err, or err alone.
func flattenErr(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flattenErr(e)...)
		}
		return out
	}
	return []error{err}
}

// newFields starts a config's field table.
func (c *Common) newFields() *fieldSet {
	s := &fieldSet{given: &c.given}
	s.fields = make([]*Field, 0, maxFields)
	return s
}

// Error is a step that could not start: nothing was attempted.
type Error struct {
	// Code is the exit code: 64 for a usage error, 78 for a configuration one.
	Code int
	// Msg is the one-line reason.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Prepared is a validated step, prepared once: the plan (--dry-run) and
// the run use the same value.
type Prepared struct {
	Kind   *Kind
	Config Config
}

// Prepare validates c, a config of k, into a step ready to run; its errors
// are *FieldError, joined (FieldErrors splits them). ctx abandons reading
// the files the settings name (--rules); its cause is then in the error's
// message, and ctx.Err tells it apart.
func Prepare(ctx context.Context, k *Kind, c Config) (*Prepared, error) {
	errs := CheckBounds(c.Fields())
	if err := c.validate(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := joinErrs(errs); err != nil {
		return nil, err
	}
	return &Prepared{Kind: k, Config: c}, nil
}

// Policy is the step's policy snapshot.
func (p *Prepared) Policy() retry.Policy { return p.Config.policy() }

// Target names what the step runs, before expansion.
func (p *Prepared) Target() string { return p.Config.target() }

// Masks are the values the step's settings ask to mask (--mask, a token).
func (p *Prepared) Masks() []string {
	var out []string
	for _, f := range p.Config.Fields() {
		if f.Secret {
			for _, v := range f.Values() {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Services are what the steps of a process, or of a job's run, share.
type Services struct {
	// Env is the process's environment (proxies, the prober).
	Env []string
	// Clock drives every wait; nil means the wall clock.
	Clock clock.Clock
	// Breakers are the per-host circuit breakers of HTTP steps.
	Breakers *breaker.Registry
	// UserAgent is retrywise's User-Agent.
	UserAgent string
	// Rand draws each wait's jitter; nil means math/rand/v2's.
	Rand func() float64
	// Prober is the run's one egress prober; nil means a step builds its
	// own from its egress settings.
	Prober *egress.Prober
	// Rules are the run's team rules (a job file's inline defaults.rules),
	// before a step's own --rules; nil means none.
	Rules *teamrules.Rules
	// Diagnose, when set, replaces the egress probe as the loop's Diagnose (tests).
	Diagnose egress.DiagnoseFunc
	// FileCommands, when set, gives each attempt of an exec step the
	// workflow's file commands of its own and copies the final attempt's
	// to the runner's after the step's loop (inside a workflow: the
	// action, retrywise exec and run with GITHUB_ACTIONS=true); nil means
	// the steps inherit the variables as they are.
	FileCommands *filecmd.Forwarder
}

// IO is what a running step writes to and reads from: a step command's
// own output, the job run's, or the action's log.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr *redact.Writer
	Red            *redact.Redactor
	// Env is the step's environment.
	Env []string
	// Progress prints one failed attempt that will be retried.
	Progress func(a retry.Attempt, maxAttempts int)
	// Attempting, when set, is called as each attempt starts, and what it
	// returns as the attempt ends (an action's log groups).
	Attempting func(n, maxAttempts int) (ended func())
	// Hindsight, when set, marks a failure the loop would retry as
	// persistent (it failed the same way in the runs before), and the loop
	// stops on it (retry.Coordinator.Hindsight).
	Hindsight func(f *failure.Failure) *failure.Failure
	// TempDir holds the step's files; "" means the system's temporary folder.
	TempDir string
	// Expand, when set, expands ${...} in the step's settings as a job
	// does (the environment and earlier steps' outputs): the step is a
	// job's, its outputs are its results (nothing printed on stdout) and
	// http's body goes to a file. Nil means a step command: http expands
	// ${NAME} from Env in its URL, headers and data; nothing else expands.
	Expand func(v string) (string, error)
	// StdoutTerminal is true when the process's stdout is a terminal.
	StdoutTerminal bool
	// ID is the step's id in a job ("" for a step command or the action's
	// run:, push and url modes), for what the step says about itself.
	ID string
	// OutputsOnly is true when the step's outputs are an action's outputs:
	// the step does not print them (http's fields).
	OutputsOnly bool
	// Setting names a setting with its value as the surface writes it, for
	// remedies (InputSetting for the action); nil means a job file's key
	// in a job, else the command line's flag.
	Setting func(name, value string) string
}

// inJob reports whether the step is a job's.
func (io *IO) inJob() bool { return io.Expand != nil }

// setting names a setting with its value as the step's surface writes it,
// for remedies: a job file's key ("rebase-on-reject: 1"), else the flag.
func (io *IO) setting(name, value string) string {
	if io.Setting != nil {
		return io.Setting(name, value)
	}
	if io.inJob() {
		return KeySetting(name, value)
	}
	return failure.FlagSetting(name, value)
}

// InputSetting names a setting as the action's step writes it:
// "with: name: value".
func InputSetting(name, value string) string { return "with: " + name + ": " + value }

// KeySetting names a setting as a job file writes it: "name: value".
func KeySetting(name, value string) string { return name + ": " + value }

// exe is one run of a prepared step: its services and streams.
type exe struct {
	svc *Services
	io  *IO
}

// Run runs the step and returns its record; a step that could not start
// is a NotRun record with its exit code and reason.
func (p *Prepared) Run(ctx context.Context, svc *Services, io *IO) *report.Step {
	rep, err := p.RunStep(ctx, svc, io)
	if err != nil {
		return report.NotRun(p.Kind.Name, p.Target(), err.Code, err.Msg, p.Policy())
	}
	return rep
}

// RunStep runs the step; an *Error means it could not start.
func (p *Prepared) RunStep(ctx context.Context, svc *Services, io *IO) (*report.Step, *Error) {
	if io.Red != nil {
		io.Red.Add(p.Masks()...)
	}
	return p.Config.run(ctx, &exe{svc: svc, io: io})
}

// clock is the run's clock.
func (x *exe) clock() clock.Clock {
	if x.svc.Clock == nil {
		return clock.Real{}
	}
	return x.svc.Clock
}

// coordinator returns the one retry loop of a step with its Diagnose.
func (x *exe) coordinator(pol retry.Policy, diagnose egress.DiagnoseFunc) *retry.Coordinator {
	if x.svc.Diagnose != nil {
		diagnose = x.svc.Diagnose
	}
	return &retry.Coordinator{Policy: pol, Clock: x.clock(), Progress: x.io.Progress, Diagnose: diagnose, Attempting: x.io.Attempting, Rand: x.svc.Rand, Hindsight: x.io.Hindsight}
}

// prober returns the run's prober, or one built from the step's egress
// settings in its environment.
func (x *exe) prober(e *EgressConfig, timeout time.Duration) (*egress.Prober, *Error) {
	if x.svc.Prober != nil {
		return x.svc.Prober, nil
	}
	p, err := e.Prober(x.svc.Env, timeout)
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	return p, nil
}

// transport returns the transport of a step's HTTP requests, from
// httpstep.NewTransport: the proxy from the step's environment with Go's
// rules (the egress probe's), a proxy's CONNECT refusal captured.
func transport(env []string) *http.Transport {
	t := httpstep.NewTransport(httpstep.TransportOptions{Proxy: egress.GoProxyFunc(env)})
	egress.CaptureConnect(t)
	return t
}

// Transport is the transport of an HTTP step in env (the action's own API
// calls use it too).
func Transport(env []string) *http.Transport { return transport(env) }

// expand expands v: in a job with the job's Expand; in a step command
// from the environment when env is true, else not at all.
func (x *exe) expand(v, where string, env bool) (string, *Error) {
	if x.io.inJob() {
		out, err := x.io.Expand(v)
		if err != nil {
			// The error first: it names the variable, never its value, and
			// "WHERE: ${NAME}" would read as a header whose value is masked.
			return "", &Error{exitcode.Config, fmt.Sprintf("%v in %s (an unset value is never sent as empty)", err, where)}
		}
		return out, nil
	}
	if !env {
		return v, nil
	}
	out, err := expand.String(v, expand.EnvLookup(x.io.Env))
	var unset *expand.UnsetError
	var syn *expand.SyntaxError
	switch {
	case errors.As(err, &unset):
		return "", &Error{exitcode.Config, fmt.Sprintf("%s in %s: set the variable (an unset one is never sent as empty), or write $$ for a literal $", unset.Error(), where)}
	case errors.As(err, &syn):
		return "", &Error{exitcode.Usage, fmt.Sprintf("malformed ${NAME} in %s %s", where, syn.Error())}
	}
	return out, nil
}

// expandAll expands every value of vs (expand).
func (x *exe) expandAll(vs []string, where string, env bool) ([]string, *Error) {
	out := make([]string, len(vs))
	for i, v := range vs {
		var err *Error
		if out[i], err = x.expand(v, where, env); err != nil {
			return nil, err
		}
	}
	return out, nil
}
