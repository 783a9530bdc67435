package step

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// QuotaKind is the github-quota step: a read of the rate-limit quota.
var QuotaKind = &Kind{
	Name: "github-quota", Synopsis: githubQuotaSynopsis, Expands: true,
	Outputs: []string{"resource", "limit", "remaining", "reset", "min-remaining", "waited"},
	new:     func() Config { return &QuotaConfig{} },
}

// QuotaConfig is a github-quota step.
type QuotaConfig struct {
	Common
	// Token is sent as the credentials; "" means $GITHUB_TOKEN.
	Token string
	// Resource is the rate-limit bucket checked.
	Resource string
	// MinRemaining is the least remaining quota that passes.
	MinRemaining int
	// MaxWait is the longest wait for a low quota's reset; 0 means never wait.
	MaxWait time.Duration
	// Timeout bounds each read of the quota.
	Timeout time.Duration
	// BreakerThreshold is the consecutive failures that open the API host's breaker; 0 disables it.
	BreakerThreshold int

	resource ghapi.Resource
}

// Fields is github-quota's field table.
func (c *QuotaConfig) Fields() []*Field {
	s := c.newFields()
	c.Retry.fields(s, "10s,20s,60s", defaultJitter)
	c.commandFields(s)
	c.Egress.fields(s)
	bind(s, Field{Name: "token", Secret: true, Doc: "GitHub `TOKEN`; empty means $GITHUB_TOKEN (and none sends no credentials)"}, &c.Token)
	bind(s, Field{Name: "resource", Default: string(ghapi.Core), Doc: "rate-limit bucket to check: core, search or graphql"}, &c.Resource)
	bind(s, Field{Name: "min-remaining", Default: "100", Min: "0", Doc: "the least remaining quota that passes"}, &c.MinRemaining)
	bind(s, Field{Name: "max-wait", Default: "0s", Min: "0", Doc: "longest wait, from the first low read, for the quota under --min-remaining to refill (--retry-after-cap also bounds it); 0 means never wait"}, &c.MaxWait)
	bind(s, Field{Name: "timeout", Default: ghapi.DefaultTimeout.String(), Min: "0", Doc: "bound on each read of the quota"}, &c.Timeout)
	bind(s, Field{Name: "breaker-threshold", RunWide: true, Default: strconv.Itoa(breaker.DefaultThreshold), Min: "0", Doc: "consecutive transient/unknown failures of the API host that open its circuit breaker; 0 disables it"}, &c.BreakerThreshold)
	return s.fields
}

func (c *QuotaConfig) validate(ctx context.Context) error {
	errs := c.validateCommon()
	var err error
	if c.resource, err = ghapi.ParseResource(c.Resource); err != nil {
		errs = append(errs, &FieldError{Field: "resource", Msg: err.Error()})
	}
	return joinErrs(errs)
}

// target is the read of the resource's quota.
func (c *QuotaConfig) target() string { return "GET /rate_limit (" + c.Resource + ")" }

// run reads the quota in the retry loop, which waits for a low quota's
// reset when allowed, prints the bucket read on stdout and reports.
func (c *QuotaConfig) run(ctx context.Context, x *exe) (*report.Step, *Error) {
	io := x.io
	env := environ.Map(io.Env)
	token, serr := x.expand(c.Token, "token", false) // a flag's value is the token as given
	if serr != nil {
		return nil, serr
	}
	if token == "" {
		token = env["GITHUB_TOKEN"]
	}
	io.Red.Add(token)

	tr := transport(io.Env)
	defer tr.CloseIdleConnections()
	clk := x.clock()
	gh, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: env["GITHUB_API_URL"], Token: token, UserAgent: x.svc.UserAgent, Clock: clk, MaxElapsed: c.pol.MaxElapsed})
	if err != nil {
		return nil, &Error{exitcode.Config, err.Error()}
	}
	base := gh.BaseURL()
	res := c.resource
	step := &ghapi.QuotaStep{
		Client: gh, Timeout: c.Timeout, Clock: clk,
		Resource: res, MinRemaining: c.MinRemaining, MaxWait: c.MaxWait,
	}
	if x.svc.Breakers != nil {
		step.Breaker = x.svc.Breakers.Get(httpstep.HostKey(base.Scheme, base.Host), breaker.Settings{Threshold: c.BreakerThreshold})
	}
	prober, serr := x.prober(&c.Egress, 0)
	if serr != nil {
		return nil, serr
	}
	target := "GET " + base.JoinPath("rate_limit").String() + " (" + string(res) + ")"
	out, err := x.coordinator(c.pol, prober.Diagnose(egress.Step{Client: egress.ClientGo, URL: base.String(), Env: io.Env})).Run(ctx, step)
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	code := exitcode.For(out, false)
	rep := report.New("github-quota", target, out, code)
	waited, notes := resetWaits(out)
	rep.Notes = append(rep.Notes, notes...)
	if token == "" {
		rep.Notes = append(rep.Notes, "no token (--token or GITHUB_TOKEN): the unauthenticated quota was read")
	}
	if rate, ok := step.Quota()[res]; ok {
		rep.Outputs = map[string]any{"resource": string(res), "limit": rate.Limit, "remaining": rate.Remaining, "reset": rate.Reset.UTC().Format(time.RFC3339), "min-remaining": c.MinRemaining}
		if waited > 0 {
			rep.Outputs["waited"] = waited.String()
		}
		if !io.inJob() {
			fmt.Fprintf(io.Stdout, "resource=%s\nlimit=%d\nremaining=%d\nreset=%s\n", res, rate.Limit, rate.Remaining, rate.Reset.UTC().Format(time.RFC3339))
			io.Stdout.Flush()
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
