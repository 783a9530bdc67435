package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/jobs"
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

// probeLine is one target's result in --json output.
type probeLine struct {
	// Verdict is the summary: allowed, denied, unreachable, direct or unclear.
	Verdict string `json:"verdict"`
	// Class is the failure class of a denial or an outage; empty otherwise.
	Class string `json:"class,omitempty"`
	*egress.Result
}

// probeOptions is what `retrywise probe` asks the egress proxy.
type probeOptions struct {
	f *factory
	// targets are asked about in this order, each on its own line.
	targets []egress.Target
	// rawTargets are the targets as given (a job's may hold ${...}).
	rawTargets []string
	// timeout bounds each request to the proxy.
	timeout time.Duration
	// step is the one-attempt policy of a job's probe step.
	step stepOptions
	// client is whose proxy rules find each target's proxy.
	client egress.Client
	// prober asks the proxies.
	prober *egress.Prober
	// json prints exactly one JSON object.
	json bool
}

// probeFlags are `retrywise probe`'s flags as given.
type probeFlags struct {
	json    bool
	timeout time.Duration
	client  string
	egress  *egressFlags
}

// probeKind is the probe step: an egress preflight of its targets.
func probeKind() *kindDef {
	return &kindDef{
		name: "probe", synopsis: probeSynopsis, expands: true,
		define: func(fs *flag.FlagSet) kindFlags {
			pf := &probeFlags{}
			fs.BoolVar(&pf.json, "json", false, "print exactly one JSON object")
			fs.DurationVar(&pf.timeout, "timeout", egress.DefaultTimeout, "bound on each request to the proxy")
			fs.StringVar(&pf.client, "client", "go", "whose proxy rules to follow: go, curl or git")
			pf.egress = addEgressFlags(fs)
			return pf
		},
		args:       "targets",
		positional: []jobs.Key{{Name: "targets", Type: jobs.KeyList, Positional: true, Usage: "the targets: host, host:port or URL"}},
		outputs:    []string{"verdict"},
		fixed:      true,
	}
}

// resolve validates probe's flags and targets into its options.
func (pf *probeFlags) resolve(f *factory, args []string, _ func(string) bool) (runnable, error) {
	if len(args) == 0 {
		return nil, &jobs.SettingError{Key: "targets", Msg: "no target given: use retrywise probe [flags] TARGET...", Fix: "give targets: [host:port, ...]"}
	}
	if pf.timeout <= 0 {
		return nil, errors.New("--timeout must be positive")
	}
	cl, err := egress.ParseClient(pf.client)
	if err != nil {
		return nil, fmt.Errorf("invalid --client: %w", err)
	}
	opts := &probeOptions{f: f, rawTargets: args, client: cl, json: pf.json, timeout: pf.timeout}
	// A target may carry ${...} until a job's runner expands it.
	for _, a := range args {
		if strings.Contains(a, "${") {
			continue
		}
		t, err := egress.ParseTarget(a)
		if err != nil {
			return nil, &jobs.SettingError{Key: "targets", Msg: fmt.Sprintf("invalid target %q: %v", a, err)}
		}
		opts.targets = append(opts.targets, t)
	}
	if opts.prober, err = f.prober(pf.egress, pf.timeout); err != nil {
		return nil, err
	}
	pol, _ := retry.Policy{MaxAttempts: 1, MaxElapsed: time.Duration(len(args)+1) * 4 * pf.timeout}.Normalize()
	opts.step = stepOptions{policy: pol, prober: opts.prober}
	return opts, nil
}

// options are the settings every step shares: one attempt.
func (opts *probeOptions) options() *stepOptions { return &opts.step }

// target lists the targets.
func (opts *probeOptions) target() string { return strings.Join(opts.rawTargets, " ") }

// runProbeCommand probes every target and prints one line (or one JSON
// object) of results, masked; the worst finding decides the exit code.
func runProbeCommand(ctx context.Context, f *factory, args []string) int {
	r, code, done := parseKind(f, probeKind(), args)
	if done {
		return code
	}
	opts := r.(*probeOptions)
	results := opts.prober.ProbeAll(ctx, opts.client, opts.targets)
	findings := make([]*failure.Failure, len(results))
	for i, r := range results {
		findings[i] = r.Failure()
	}
	code = exitcode.ForProbe(findings)
	red := f.redactor()
	stdout := red.Writer(f.stdout)
	defer stdout.Close()
	if opts.json {
		lines := make([]probeLine, len(results))
		for i, r := range results {
			lines[i] = probeLine{Verdict: r.Verdict.Summary(), Result: maskedResult(r, red.String)}
			if fd := findings[i]; fd != nil {
				lines[i].Class = fd.Class.String()
			}
		}
		b, _ := json.Marshal(struct {
			Results  []probeLine `json:"results"`
			ExitCode int         `json:"exit_code"`
		}{lines, code})
		fmt.Fprintf(stdout, "%s\n", b)
		return code
	}
	for _, r := range results {
		fmt.Fprintln(stdout, probeText(r))
	}
	return code
}

// run probes a job step's targets, expanded, as one attempt: the worst
// finding is the step's failure; the output verdict is the worst verdict.
func (opts *probeOptions) run(ctx context.Context, io *stepIO) (*report.Step, *stepError) {
	var targets []egress.Target
	for _, a := range opts.rawTargets {
		t, err := egress.ParseTarget(a)
		if err != nil {
			return nil, &stepError{exitcode.Usage, fmt.Sprintf("invalid target %q: %v", a, err)}
		}
		targets = append(targets, t)
	}
	var results []*egress.Result
	step := retry.StepFunc(func(ctx context.Context, _ int) error {
		results = opts.prober.ProbeAllIn(ctx, io.env, opts.client, targets)
		var worst *failure.Failure
		worstCode := exitcode.OK
		for _, r := range results {
			fd := r.Failure()
			if c := exitcode.ForProbe([]*failure.Failure{fd}); fd != nil && (worst == nil || c > worstCode) {
				worst, worstCode = fd, c
			}
		}
		if worst == nil {
			return nil
		}
		return worst
	})
	out, err := opts.f.coordinator(opts.step.policy, io, nil).Run(ctx, step)
	if err != nil {
		return nil, &stepError{exitcode.Usage, err.Error()}
	}
	code := exitcode.For(out, false)
	rep := report.New("probe", opts.target(), out, code)
	verdict := "allowed"
	var lines []string
	for _, r := range results {
		lines = append(lines, probeText(r))
		if v := r.Verdict.Summary(); verdictRank(v) > verdictRank(verdict) {
			verdict = v
		}
	}
	rep.Notes = append(rep.Notes, lines...)
	rep.Outputs = map[string]any{"verdict": verdict}
	return rep, nil
}

// maskedResult returns a copy of r with its texts masked, to encode as
// JSON: the encoder escapes what it writes, so the masking must come first.
func maskedResult(r *egress.Result, mask func(string) string) *egress.Result {
	m := *r
	m.Target, m.Proxy, m.ProxySource, m.Dialect = mask(r.Target), mask(r.Proxy), mask(r.ProxySource), mask(r.Dialect)
	m.ProxyError, m.Reason, m.Remedy = mask(r.ProxyError), mask(r.Reason), mask(r.Remedy)
	m.Evidence = make([]string, len(r.Evidence))
	for i, e := range r.Evidence {
		m.Evidence[i] = mask(e)
	}
	return &m
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

// probeText renders one result on one line: verdict, target, reason, [evidence].
func probeText(r *egress.Result) string {
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
