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

// quotaResult is the JSON report's "result" of github-quota.
type quotaResult struct {
	Resource     ghapi.Resource `json:"resource"`
	Limit        int            `json:"limit"`
	Remaining    int            `json:"remaining"`
	Reset        time.Time      `json:"reset"`
	MinRemaining int            `json:"min_remaining"`
	Waited       time.Duration  `json:"waited_ns,omitempty"`
}

func (f *factory) runGitHubQuota(ctx context.Context, args []string) int {
	fs := newFlagSet("github-quota", githubQuotaSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	token := fs.String("token", "", "GitHub `TOKEN`; empty means $GITHUB_TOKEN (and none sends no credentials)")
	resource := fs.String("resource", string(ghapi.Core), "rate-limit bucket to check: core, search or graphql")
	minRemaining := fs.Int("min-remaining", 100, "the least remaining quota that passes")
	maxWait := fs.Duration("max-wait", 0, "longest wait, from the first low read, for the quota under --min-remaining to refill (--retry-after-cap also bounds it); 0 means never wait")
	timeout := fs.Duration("timeout", ghapi.DefaultTimeout, "bound on each read of the quota")
	threshold := fs.Int("breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of the API host that open its circuit breaker; 0 disables it")
	if code, done := f.parse(fs, args); done {
		return code
	}
	prober, err := f.prober(rf.egress, 0)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	if fs.NArg() > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0)))
	}
	pol, err := rf.policy()
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	res, err := ghapi.ParseResource(*resource)
	if err != nil {
		return f.fail(exitcode.Usage, err.Error())
	}
	switch {
	case *minRemaining < 0, *maxWait < 0, *timeout < 0, *threshold < 0:
		return f.fail(exitcode.Usage, "--min-remaining, --max-wait, --timeout and --breaker-threshold must not be negative")
	}
	env := environ.Map(f.env)
	tok := *token
	if tok == "" {
		tok = env["GITHUB_TOKEN"]
	}
	o, err := f.output(rf.masks, rf.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	o.red.Add(tok)
	stdout := o.stdout

	tr := f.transport()
	defer tr.CloseIdleConnections()
	gh, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: env["GITHUB_API_URL"], Token: tok, UserAgent: f.userAgent(), Clock: f.clock})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	base := gh.BaseURL()
	step := &ghapi.QuotaStep{
		Client:       gh,
		Breaker:      f.breakers.Get(httpstep.HostKey(base.Scheme, base.Host), breaker.Settings{Threshold: *threshold}),
		Timeout:      *timeout,
		Clock:        f.clock,
		Resource:     res,
		MinRemaining: *minRemaining,
		MaxWait:      *maxWait,
	}
	coord := f.coordinator(pol, o, prober.DiagnoseFor(egress.ClientGo, base.String()))
	target := "GET " + base.JoinPath("rate_limit").String() + " (" + string(res) + ")"

	out, err := coord.Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	code := exitcode.For(out, false)
	rep := report.New("github-quota", target, out, code)
	waited, notes := resetWaits(out)
	rep.Notes = append(rep.Notes, notes...)
	if tok == "" {
		rep.Notes = append(rep.Notes, "no token (--token or GITHUB_TOKEN): the unauthenticated quota was read")
	}
	if rate, ok := step.Quota()[res]; ok {
		rep.Result = quotaResult{Resource: res, Limit: rate.Limit, Remaining: rate.Remaining, Reset: rate.Reset.UTC(), MinRemaining: *minRemaining, Waited: waited}
		fmt.Fprintf(stdout, "resource=%s\nlimit=%d\nremaining=%d\nreset=%s\n", res, rate.Limit, rate.Remaining, rate.Reset.UTC().Format(time.RFC3339))
		stdout.Flush()
	}
	return o.finish(rep)
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
