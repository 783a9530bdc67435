package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const githubQuotaSynopsis = `Usage: retrywise github-quota [flags]

Reads the GitHub API rate-limit quota (GET /rate_limit, which costs nothing)
from $GITHUB_API_URL (default https://api.github.com). When the remaining
quota of --resource is under --min-remaining, the retry loop waits for the
reset and reads again if the reset is within both --max-wait and
--retry-after-cap (and --max-elapsed); else it exits 75 with the reset time.
Transient failures of the read (5xx, 429 and 403 rate-limit answers with
their reset) are retried on the schedule. The bucket read goes to stdout as
key=value lines: resource, limit, remaining, reset; progress and the report
go to stderr.`

// quotaOptions is what `retrywise github-quota` checks.
type quotaOptions struct {
	f    *factory
	step stepOptions
	// token is sent as the credentials; "" reads the unauthenticated quota.
	token string
	// apiURL is the API's base URL; "" means https://api.github.com.
	apiURL string
	// resource is the rate-limit bucket checked.
	resource ghapi.Resource
	// minRemaining is the least remaining quota that passes.
	minRemaining int
	// maxWait is the longest wait for a low quota's reset; 0 means never wait.
	maxWait time.Duration
	// timeout bounds each read of the quota.
	timeout time.Duration
	// breakerThreshold is the consecutive failures that open the API host's breaker; 0 disables it.
	breakerThreshold int
}

// parseGitHubQuota parses `retrywise github-quota`'s flags, and the token and
// API URL from the environment, into its options.
func parseGitHubQuota(f *factory, args []string) (*quotaOptions, int, bool) {
	fs := newFlagSet("github-quota", githubQuotaSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	token := fs.String("token", "", "GitHub `TOKEN`; empty means $GITHUB_TOKEN (and none sends no credentials)")
	resource := fs.String("resource", string(ghapi.Core), "rate-limit bucket to check: core, search or graphql")
	minRemaining := fs.Int("min-remaining", 100, "the least remaining quota that passes")
	maxWait := fs.Duration("max-wait", 0, "longest wait, from the first low read, for the quota under --min-remaining to refill (--retry-after-cap also bounds it); 0 means never wait")
	timeout := fs.Duration("timeout", ghapi.DefaultTimeout, "bound on each read of the quota")
	threshold := fs.Int("breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of the API host that open its circuit breaker; 0 disables it")
	if code, done := f.parse(fs, args); done {
		return nil, code, true
	}
	opts := &quotaOptions{f: f, step: rf.options(), minRemaining: *minRemaining, maxWait: *maxWait, timeout: *timeout, breakerThreshold: *threshold}
	var err error
	if opts.step.prober, err = f.prober(rf.egress, 0); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if fs.NArg() > 0 {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0))), true
	}
	if opts.step.policy, err = rf.policy(); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.resource, err = ghapi.ParseResource(*resource); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.minRemaining < 0 || opts.maxWait < 0 || opts.timeout < 0 || opts.breakerThreshold < 0 {
		return nil, f.fail(exitcode.Usage, "--min-remaining, --max-wait, --timeout and --breaker-threshold must not be negative"), true
	}
	env := environ.Map(f.env)
	opts.token, opts.apiURL = *token, env["GITHUB_API_URL"]
	if opts.token == "" {
		opts.token = env["GITHUB_TOKEN"]
	}
	return opts, 0, false
}

// runGitHubQuota reads the quota in the retry loop, which waits for a low
// quota's reset when allowed, prints the bucket read on stdout and reports.
func runGitHubQuota(ctx context.Context, opts *quotaOptions) int {
	f := opts.f
	o, err := f.output(opts.step.masks, opts.step.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	o.red.Add(opts.token)

	tr := f.transport()
	defer tr.CloseIdleConnections()
	gh, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: opts.apiURL, Token: opts.token, UserAgent: f.userAgent(), Clock: f.clock})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	base := gh.BaseURL()
	res := opts.resource
	step := &ghapi.QuotaStep{
		Client:       gh,
		Breaker:      f.breakers.Get(httpstep.HostKey(base.Scheme, base.Host), breaker.Settings{Threshold: opts.breakerThreshold}),
		Timeout:      opts.timeout,
		Clock:        f.clock,
		Resource:     res,
		MinRemaining: opts.minRemaining,
		MaxWait:      opts.maxWait,
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = opts.step.prober.DiagnoseFor(egress.ClientGo, base.String())
	}
	target := "GET " + base.JoinPath("rate_limit").String() + " (" + string(res) + ")"

	out, err := f.coordinator(opts.step.policy, o, diagnose).Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	code := exitcode.For(out, false)
	rep := report.New("github-quota", target, out, code)
	waited, notes := resetWaits(out)
	rep.Notes = append(rep.Notes, notes...)
	if opts.token == "" {
		rep.Notes = append(rep.Notes, "no token (--token or GITHUB_TOKEN): the unauthenticated quota was read")
	}
	if rate, ok := step.Quota()[res]; ok {
		rep.Outputs = map[string]any{"resource": string(res), "limit": rate.Limit, "remaining": rate.Remaining, "reset": rate.Reset.UTC().Format(time.RFC3339), "min-remaining": opts.minRemaining}
		if waited > 0 {
			rep.Outputs["waited"] = waited.String()
		}
		fmt.Fprintf(o.stdout, "resource=%s\nlimit=%d\nremaining=%d\nreset=%s\n", res, rate.Limit, rate.Remaining, rate.Reset.UTC().Format(time.RFC3339))
		o.stdout.Flush()
	}
	return o.finish(rep, f.clock.Now())
}

// resetWaits returns the time the loop waited after low-quota reads (a wait
// cut short by cancellation, after the last attempt, is not counted) and one
// note per such wait.
func resetWaits(out *retry.Outcome) (time.Duration, []string) {
	var total time.Duration
	var notes []string
	for i, a := range out.Attempts {
		var low *ghapi.LowQuotaError
		if i == len(out.Attempts)-1 || a.Wait == 0 || !errors.As(a.Failure, &low) {
			continue
		}
		total += a.Wait
		notes = append(notes, fmt.Sprintf("waited %s for the %s quota's reset at %s", a.Wait.Round(time.Second), low.Resource, low.Rate.Reset.UTC().Format(time.RFC3339)))
	}
	return total, notes
}
