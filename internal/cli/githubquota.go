package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const githubQuotaSynopsis = `Usage: retrywise github-quota [flags]

Reads the GitHub API rate-limit quota (GET /rate_limit, which costs nothing)
from $GITHUB_API_URL (default https://api.github.com). When the remaining
quota of --resource is under --min-remaining, it waits for the reset if that
is within --max-wait, else exits 75 with the reset time. Transient failures
of the read (5xx, 429 and 403 rate-limit answers with their reset) are
retried on the schedule. The bucket read goes to stdout as key=value lines:
resource, limit, remaining, reset; progress and the report go to stderr.`

// quotaResult is the JSON report's "result" of github-quota.
type quotaResult struct {
	Resource     ghapi.Resource `json:"resource"`
	Limit        int            `json:"limit"`
	Remaining    int            `json:"remaining"`
	Reset        time.Time      `json:"reset"`
	MinRemaining int            `json:"min_remaining"`
	Waited       time.Duration  `json:"waited_ns,omitempty"`
}

func (c *Command) runGitHubQuota(ctx context.Context, args []string) int {
	fs := newFlagSet("github-quota", githubQuotaSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	token := fs.String("token", "", "GitHub `TOKEN`; empty means $GITHUB_TOKEN (and none sends no credentials)")
	resource := fs.String("resource", string(ghapi.Core), "rate-limit bucket to check: core, search or graphql")
	minRemaining := fs.Int("min-remaining", 100, "the least remaining quota that passes")
	maxWait := fs.Duration("max-wait", 0, "longest wait for the reset when the quota is under --min-remaining; 0 means never wait")
	timeout := fs.Duration("timeout", ghapi.DefaultTimeout, "bound on each read of the quota")
	threshold := fs.Int("breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of the API host that open its circuit breaker; 0 disables it")
	if code, done := c.parse(fs, args); done {
		return code
	}
	prober, err := rf.prober(c.Env)
	if err != nil {
		return c.fail(exitcode.Usage, err.Error())
	}
	if fs.NArg() > 0 {
		return c.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0)))
	}
	pol, err := rf.policy()
	if err != nil {
		return c.fail(exitcode.Usage, err.Error())
	}
	res, err := ghapi.ParseResource(*resource)
	if err != nil {
		return c.fail(exitcode.Usage, err.Error())
	}
	switch {
	case *minRemaining < 0, *maxWait < 0, *timeout < 0, *threshold < 0:
		return c.fail(exitcode.Usage, "--min-remaining, --max-wait, --timeout and --breaker-threshold must not be negative")
	}
	env := environ.Map(c.Env)
	tok := *token
	if tok == "" {
		tok = env["GITHUB_TOKEN"]
	}
	o, err := c.output(rf)
	if err != nil {
		return c.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	o.red.Add(tok)
	stdout, stderr := o.stdout, o.stderr

	tr := c.httpTransport()
	defer tr.CloseIdleConnections()
	gh, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: env["GITHUB_API_URL"], Token: tok, UserAgent: c.userAgent(), Clock: c.Clock})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	base := gh.BaseURL()
	step := &ghapi.QuotaStep{
		Client:  gh,
		Breaker: c.Breakers.Get(httpstep.HostKey(base.Scheme, base.Host), breaker.Settings{Threshold: *threshold}),
		Timeout: *timeout,
		Clock:   c.Clock,
	}
	coord := c.coordinator(pol, o, prober.DiagnoseFor(egress.ClientGo, base.String()))
	target := "GET " + base.JoinPath("rate_limit").String() + " (" + string(res) + ")"
	start := c.Clock.Now()

	out, err := coord.Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	var notes []string
	var waited time.Duration
	if out.OK() {
		rate := step.Quota()[res]
		if rate.Remaining < *minRemaining {
			wait := rate.Reset.Sub(c.Clock.Now())
			if wait > *maxWait {
				out.Final = lowQuota(res, rate, *minRemaining, wait)
				out.Stop = retry.StopRetryAfterOverCap
				out.Detail = fmt.Sprintf("the reset at %s is %s away, over --max-wait %s", rate.Reset.UTC().Format(time.RFC3339), wait.Round(time.Second), *maxWait)
			} else {
				wait = max(wait, 0)
				stderr.Flush()
				fmt.Fprintf(stderr, "retrywise: %s quota %d of %d is under --min-remaining %d; waiting %s for the reset at %s\n",
					res, rate.Remaining, rate.Limit, *minRemaining, wait.Round(time.Second), rate.Reset.UTC().Format(time.RFC3339))
				if !clock.Sleep(ctx, c.Clock, wait) {
					out.Stop, out.Cause = retry.StopCancelled, context.Cause(ctx)
					out.Detail = "cancelled: " + out.Cause.Error()
				} else {
					waited = wait
					notes = append(notes, fmt.Sprintf("waited %s for the %s quota's reset at %s", wait.Round(time.Second), res, rate.Reset.UTC().Format(time.RFC3339)))
					out2, err := coord.Run(ctx, step)
					if err != nil {
						return o.fail(exitcode.Usage, err.Error())
					}
					out = joinOutcomes(out, out2)
					if out.OK() {
						if again := step.Quota()[res]; again.Remaining < *minRemaining {
							out.Final = lowQuota(res, again, *minRemaining, again.Reset.Sub(c.Clock.Now()))
							out.Stop = retry.StopNotRetryable
							out.Detail = "the quota had not refilled after waiting for its reset"
						}
					}
				}
			}
		}
	}
	out.Elapsed = c.Clock.Now().Sub(start)
	code := exitcode.For(out, false)
	rep := report.New("github-quota", target, out, code)
	rep.Notes = append(rep.Notes, notes...)
	if tok == "" {
		rep.Notes = append(rep.Notes, "no token (--token or GITHUB_TOKEN): the unauthenticated quota was read")
	}
	if rate, ok := step.Quota()[res]; ok {
		rep.Result = quotaResult{Resource: res, Limit: rate.Limit, Remaining: rate.Remaining, Reset: rate.Reset.UTC(), MinRemaining: *minRemaining, Waited: waited}
		fmt.Fprintf(stdout, "resource=%s\nlimit=%d\nremaining=%d\nreset=%s\n", res, rate.Limit, rate.Remaining, rate.Reset.UTC().Format(time.RFC3339))
		stdout.Flush()
	} else if out.OK() {
		rep.Notes = append(rep.Notes, fmt.Sprintf("GitHub reported no %s bucket", res))
	}
	return o.finish(rep)
}

// lowQuota is the failure of a quota under --min-remaining: transient, with
// the reset as the wait it asks for.
func lowQuota(res ghapi.Resource, r ghapi.Rate, minRemaining int, wait time.Duration) *failure.Failure {
	now := r.Reset.Add(-wait)
	return failure.GitHubQuotaLow(string(res), r.Remaining, r.Limit, minRemaining, r.Reset, now)
}

// joinOutcomes appends the attempts of b (renumbered) to a's and keeps b's ending.
func joinOutcomes(a, b *retry.Outcome) *retry.Outcome {
	out := *b
	out.Attempts = append(append([]retry.Attempt(nil), a.Attempts...), b.Attempts...)
	for i := range out.Attempts {
		out.Attempts[i].N = i + 1
	}
	return &out
}
