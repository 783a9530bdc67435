package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/jobs"
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
	// token is sent as the credentials; "" means $GITHUB_TOKEN, and none
	// reads the unauthenticated quota.
	token string
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

// quotaFlags are `retrywise github-quota`'s flags as given.
type quotaFlags struct {
	step         *stepFlags
	token        string
	resource     string
	minRemaining int
	maxWait      time.Duration
	timeout      time.Duration
	threshold    int
}

// githubQuotaKind is the github-quota step: a read of the rate-limit quota.
func githubQuotaKind() *kindDef {
	return &kindDef{
		name: "github-quota", synopsis: githubQuotaSynopsis, expands: true,
		define: func(fs *flag.FlagSet) kindFlags {
			qf := &quotaFlags{step: addStepFlags(fs, "10s,20s,60s")}
			fs.StringVar(&qf.token, "token", "", "GitHub `TOKEN`; empty means $GITHUB_TOKEN (and none sends no credentials)")
			fs.StringVar(&qf.resource, "resource", string(ghapi.Core), "rate-limit bucket to check: core, search or graphql")
			fs.IntVar(&qf.minRemaining, "min-remaining", 100, "the least remaining quota that passes")
			fs.DurationVar(&qf.maxWait, "max-wait", 0, "longest wait, from the first low read, for the quota under --min-remaining to refill (--retry-after-cap also bounds it); 0 means never wait")
			fs.DurationVar(&qf.timeout, "timeout", ghapi.DefaultTimeout, "bound on each read of the quota")
			fs.IntVar(&qf.threshold, "breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of the API host that open its circuit breaker; 0 disables it")
			return qf
		},
		outputs: []string{"resource", "limit", "remaining", "reset", "min-remaining", "waited"},
		fixed:   true,
	}
}

// resolve validates github-quota's flags into its options; the token and
// the API's URL are read from the step's environment when it runs.
func (qf *quotaFlags) resolve(f *factory, pos []string, _ func(string) bool) (runnable, error) {
	opts := &quotaOptions{f: f, step: qf.step.options(), token: qf.token, minRemaining: qf.minRemaining, maxWait: qf.maxWait, timeout: qf.timeout, breakerThreshold: qf.threshold}
	var err error
	if opts.step.prober, err = f.prober(qf.step.egress, 0); err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, &jobs.SettingError{Msg: fmt.Sprintf("unexpected argument %q (see --help)", pos[0])}
	}
	if opts.step.policy, err = qf.step.policy(); err != nil {
		return nil, err
	}
	if opts.resource, err = ghapi.ParseResource(qf.resource); err != nil {
		return nil, fmt.Errorf("invalid --resource: %w", err)
	}
	if opts.minRemaining < 0 || opts.maxWait < 0 || opts.timeout < 0 || opts.breakerThreshold < 0 {
		return nil, errors.New("--min-remaining, --max-wait, --timeout and --breaker-threshold must not be negative")
	}
	return opts, nil
}

// options are the settings every step shares.
func (opts *quotaOptions) options() *stepOptions { return &opts.step }

// target is the read of the resource's quota.
func (opts *quotaOptions) target() string { return "GET /rate_limit (" + string(opts.resource) + ")" }

// run reads the quota in the retry loop, which waits for a low quota's
// reset when allowed, prints the bucket read on stdout and reports.
func (opts *quotaOptions) run(ctx context.Context, io *stepIO) (*report.Step, *stepError) {
	f := opts.f
	env := environ.Map(io.env)
	token := opts.token // a job's runner expanded it; a flag's value is the token
	if token == "" {
		token = env["GITHUB_TOKEN"]
	}
	io.red.Add(token)

	tr := f.transport(io.env)
	defer tr.CloseIdleConnections()
	gh, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: env["GITHUB_API_URL"], Token: token, UserAgent: f.userAgent(), Clock: f.clock})
	if err != nil {
		return nil, &stepError{exitcode.Config, err.Error()}
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
		diagnose = opts.step.prober.Diagnose(egress.Step{Client: egress.ClientGo, URL: base.String(), Env: io.env})
	}
	target := "GET " + base.JoinPath("rate_limit").String() + " (" + string(res) + ")"

	out, err := f.coordinator(opts.step.policy, io, diagnose).Run(ctx, step)
	if err != nil {
		return nil, &stepError{exitcode.Usage, err.Error()}
	}
	code := exitcode.For(out, false)
	rep := report.New("github-quota", target, out, code)
	waited, notes := resetWaits(out)
	rep.Notes = append(rep.Notes, notes...)
	if token == "" {
		rep.Notes = append(rep.Notes, "no token (--token or GITHUB_TOKEN): the unauthenticated quota was read")
	}
	if rate, ok := step.Quota()[res]; ok {
		rep.Outputs = map[string]any{"resource": string(res), "limit": rate.Limit, "remaining": rate.Remaining, "reset": rate.Reset.UTC().Format(time.RFC3339), "min-remaining": opts.minRemaining}
		if waited > 0 {
			rep.Outputs["waited"] = waited.String()
		}
		if !io.expanded {
			fmt.Fprintf(io.stdout, "resource=%s\nlimit=%d\nremaining=%d\nreset=%s\n", res, rate.Limit, rate.Remaining, rate.Reset.UTC().Format(time.RFC3339))
			io.stdout.Flush()
		}
	}
	return rep, nil
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
		total = retry.Add(total, a.Wait)
		notes = append(notes, fmt.Sprintf("waited %s for the %s quota's reset at %s", a.Wait.Round(time.Second), low.Resource, low.Rate.Reset.UTC().Format(time.RFC3339)))
	}
	return total, notes
}
