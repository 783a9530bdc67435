package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/step"
)

// probeLine is one target's result in --json output.
type probeLine struct {
	// Verdict is the summary: allowed, denied, unreachable, direct or unclear.
	Verdict string `json:"verdict"`
	// Class is the failure class of a denial or an outage; None otherwise.
	Class failure.Class `json:"class,omitempty"`
	*egress.Result
}

// runProbeCommand probes every target and prints one line (or one JSON
// object) of results, masked; the worst finding decides the exit code.
func runProbeCommand(ctx context.Context, f *factory, args []string) int {
	p, code, done := parseKind(ctx, f, step.ProbeKind, args)
	if done {
		return code
	}
	opts := p.Config.(*step.ProbeConfig)
	results, err := opts.ProbeAll(ctx, f.env)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	findings := make([]*failure.Failure, len(results))
	for i, r := range results {
		findings[i] = r.Failure()
	}
	code = exitcode.ForProbe(findings)
	red := f.redactor()
	stdout := red.Writer(f.stdout)
	defer stdout.Close()
	if opts.JSON {
		lines := make([]probeLine, len(results))
		for i, r := range results {
			lines[i] = probeLine{Verdict: r.Verdict.Summary(), Result: maskedResult(r, red.String)}
			if fd := findings[i]; fd != nil {
				lines[i].Class = fd.Class
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
		fmt.Fprintln(stdout, step.ProbeText(r))
	}
	return code
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
