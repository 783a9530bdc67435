package step

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const probeSynopsis = `Usage: retrywise probe [flags] TARGET...

An egress preflight: asks the proxy each TARGET (host, host:port or URL; https
is assumed for a bare host) would go through whether it lets the target
through. The proxy is found with the rules of --client (Go's by default). One
line per target: allowed, denied, unreachable, direct (no proxy) or unclear,
with the evidence. Exit 77 if any target is denied, 75 if any is unreachable,
0 otherwise.`

// ProbeKind is the probe step: an egress preflight of its targets.
var ProbeKind = &Kind{
	Name: "probe", Synopsis: probeSynopsis, Args: "targets", Expands: true,
	Outputs: []string{"verdict"},
	new:     func() Config { return &ProbeConfig{} },
}

// ProbeConfig is a probe step: one attempt, no retries.
type ProbeConfig struct {
	Common
	// Targets are host, host:port or URL; a job's may hold ${...}.
	Targets []string
	// JSON prints exactly one JSON object (the command only).
	JSON bool
	// Timeout bounds each request to the proxy.
	Timeout time.Duration
	// Client is whose proxy rules find each target's proxy: go, curl or git.
	Client string

	client  egress.Client
	targets []egress.Target
}

// Fields is probe's field table.
func (c *ProbeConfig) Fields() []*Field {
	s := c.newFields()
	bind(s, Field{Name: "json", Doc: "print exactly one JSON object"}, &c.JSON)
	bind(s, Field{Name: "timeout", Default: egress.DefaultTimeout.String(), Doc: "bound on each request to the proxy"}, &c.Timeout)
	bind(s, Field{Name: "client", Default: "go", Doc: "whose proxy rules to follow: go, curl or git"}, &c.Client)
	c.Egress.fields(s)
	bindList(s, Field{Name: "targets", Positional: true, Doc: "the targets: host, host:port or URL"}, &c.Targets)
	return s.fields
}

func (c *ProbeConfig) validate(ctx context.Context) error {
	var errs []error
	var err error
	if len(c.Targets) == 0 {
		errs = append(errs, &FieldError{Field: "targets", Plain: true, Msg: "no target given: use retrywise probe [flags] TARGET...", Fix: "give targets: [host:port, ...]"})
	}
	if c.Timeout <= 0 {
		errs = append(errs, &FieldError{Field: "timeout", Value: c.Timeout.String(), Msg: "must be positive"})
	}
	if c.client, err = egress.ParseClient(c.Client); err != nil {
		errs = append(errs, &FieldError{Field: "client", Msg: err.Error()})
	}
	c.targets = nil
	for _, a := range c.Targets {
		if strings.Contains(a, "${") {
			continue // expanded when the job's step runs
		}
		t, err := egress.ParseTarget(a)
		if err != nil {
			errs = append(errs, &FieldError{Field: "targets", Plain: true, Msg: fmt.Sprintf("invalid target %q: %v", a, err)})
			continue
		}
		c.targets = append(c.targets, t)
	}
	if _, err := c.Egress.Prober(nil, c.Timeout); err != nil {
		errs = append(errs, err)
	}
	t := c.Timeout
	if t <= 0 {
		t = egress.DefaultTimeout
	}
	c.pol, _ = retry.Policy{MaxAttempts: 1, MaxElapsed: time.Duration(len(c.Targets)+1) * 4 * t}.Normalize()
	return joinErrs(errs)
}

// target lists the targets.
func (c *ProbeConfig) target() string { return strings.Join(c.Targets, " ") }

// ProbeAll asks about every target of a validated probe, in order (the
// probe command).
func (c *ProbeConfig) ProbeAll(ctx context.Context, env []string) ([]*egress.Result, error) {
	p, err := c.Egress.Prober(env, c.Timeout)
	if err != nil {
		return nil, err
	}
	return p.ProbeAll(ctx, c.client, c.targets), nil
}

// run probes a job step's targets, expanded, as one attempt: the worst
// finding is the step's failure; the output verdict is the worst verdict.
func (c *ProbeConfig) run(ctx context.Context, x *exe) (*report.Step, *Error) {
	raw, serr := x.expandAll(c.Targets, "targets", false)
	if serr != nil {
		return nil, serr
	}
	var targets []egress.Target
	for _, a := range raw {
		t, err := egress.ParseTarget(a)
		if err != nil {
			return nil, &Error{exitcode.Usage, fmt.Sprintf("invalid target %q: %v", a, err)}
		}
		targets = append(targets, t)
	}
	prober, serr := x.prober(&c.Egress, c.Timeout)
	if serr != nil {
		return nil, serr
	}
	var results []*egress.Result
	step := retry.StepFunc(func(ctx context.Context, _ int) error {
		results = prober.ProbeAllIn(ctx, x.io.Env, c.client, targets)
		var worst *failure.Failure
		worstCode := exitcode.OK
		for _, r := range results {
			fd := r.Failure()
			if code := exitcode.ForProbe([]*failure.Failure{fd}); fd != nil && (worst == nil || code > worstCode) {
				worst, worstCode = fd, code
			}
		}
		if worst == nil {
			return nil
		}
		return worst
	})
	out, err := x.coordinator(c.pol, func(_ context.Context, f *failure.Failure) *failure.Failure { return f }).Run(ctx, step)
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	rep := report.New("probe", c.target(), out, exitcode.For(out, false))
	verdict := "allowed"
	for _, r := range results {
		rep.Notes = append(rep.Notes, ProbeText(r))
		if v := r.Verdict.Summary(); verdictRank(v) > verdictRank(verdict) {
			verdict = v
		}
	}
	rep.Outputs = map[string]any{"verdict": verdict}
	return rep, nil
}

// verdictRank orders the probe's summaries from harmless to worst.
func verdictRank(v string) int {
	switch v {
	case "direct":
		return 0
	case "allowed":
		return 1
	case "unclear":
		return 2
	case "unreachable":
		return 3
	case "denied":
		return 4
	}
	return 2
}

// ProbeText renders one result on one line: verdict, target, reason, [evidence].
func ProbeText(r *egress.Result) string {
	line := fmt.Sprintf("%-11s %s: %s", r.Verdict.Summary(), r.Target, r.Reason)
	if r.ProxySource != "" {
		line += " (proxy from " + r.ProxySource + ")"
	}
	if len(r.Evidence) > 0 {
		line += " [" + strings.Join(r.Evidence, "; ") + "]"
	}
	if r.Remedy != "" && r.Verdict.Summary() == "denied" {
		line += " " + r.Remedy
	}
	return line
}
