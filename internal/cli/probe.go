package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
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
	// client is whose proxy rules find each target's proxy.
	client egress.Client
	// prober asks the proxies.
	prober *egress.Prober
	// json prints exactly one JSON object.
	json bool
}

// parseProbe parses `retrywise probe`'s flags and targets into its options.
func parseProbe(f *factory, args []string) (*probeOptions, int, bool) {
	fs := newFlagSet("probe", probeSynopsis)
	asJSON := fs.Bool("json", false, "print exactly one JSON object")
	timeout := fs.Duration("timeout", egress.DefaultTimeout, "bound on each request to the proxy")
	client := fs.String("client", "go", "whose proxy rules to follow: go, curl or git")
	ef := addEgressFlags(fs)
	if code, done := f.parse(fs, args); done {
		return nil, code, true
	}
	if fs.NArg() == 0 {
		return nil, f.fail(exitcode.Usage, "no target given: use retrywise probe [flags] TARGET..."), true
	}
	if *timeout <= 0 {
		return nil, f.fail(exitcode.Usage, "--timeout must be positive"), true
	}
	cl, err := egress.ParseClient(*client)
	if err != nil {
		return nil, f.fail(exitcode.Usage, "invalid --client: "+err.Error()), true
	}
	// A target or a flag may quote the proxy's credentials: mask them.
	targets := make([]egress.Target, fs.NArg())
	for i, a := range fs.Args() {
		if targets[i], err = egress.ParseTarget(a); err != nil {
			return nil, f.fail(exitcode.Usage, f.redactor().String(fmt.Sprintf("invalid target %q: %v", a, err))), true
		}
	}
	prober, err := f.prober(ef, *timeout)
	if err != nil {
		return nil, f.fail(exitcode.Usage, f.redactor().String(err.Error())), true
	}
	return &probeOptions{f: f, targets: targets, client: cl, prober: prober, json: *asJSON}, 0, false
}

// runProbe probes every target and prints one line (or one JSON object) of
// results, masked; the worst finding decides the exit code.
func runProbe(ctx context.Context, opts *probeOptions) int {
	results := opts.prober.ProbeAll(ctx, opts.client, opts.targets)
	findings := make([]*failure.Failure, len(results))
	for i, r := range results {
		findings[i] = r.Failure()
	}
	code := exitcode.ForProbe(findings)
	stdout := opts.f.redactor().Writer(opts.f.stdout)
	defer stdout.Close()
	if opts.json {
		lines := make([]probeLine, len(results))
		for i, r := range results {
			lines[i] = probeLine{Verdict: r.Verdict.Summary(), Result: r}
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
