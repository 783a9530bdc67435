package app

import (
	"context"
	"net"
	"net/url"
	"time"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

// ExplainOptions is a failed GitHub Actions run to explain.
type ExplainOptions struct {
	Target explain.Target
	// Token is the token given (--token, the action's token input); ""
	// means the environment's (ExplainToken).
	Token string
	// Rerun re-runs the failed jobs once when every failed step is
	// transient and the run's latest attempt is at most MaxReruns.
	Rerun     bool
	MaxReruns int
	// Progress is told of each failed API attempt that will be retried.
	Progress func(a retry.Attempt, max int)
}

// RepoTarget is run runID of owner/repo on the host of
// $GITHUB_SERVER_URL (GitHub Enterprise Server, as a workflow's
// environment says), else github.com.
func (a *App) RepoTarget(owner, repo string, runID int64) explain.Target {
	t := explain.Target{Host: "github.com", Owner: owner, Repo: repo, RunID: runID}
	if u, err := url.Parse(environ.Map(a.Env)["GITHUB_SERVER_URL"]); err == nil && u.Host != "" {
		t.Host = u.Host
	}
	return t
}

// ExplainToken is the token explain uses, the one rule of both
// front-ends: the token given, else $GITHUB_TOKEN, else $GH_TOKEN.
func (a *App) ExplainToken(given string) string {
	if given != "" {
		return given
	}
	env := environ.Map(a.Env)
	if t := env["GITHUB_TOKEN"]; t != "" {
		return t
	}
	return env["GH_TOKEN"]
}

// Explain reads the run (its jobs, steps and logs) through the API of its
// host ($GITHUB_API_URL when set) and classifies every failed step; it
// returns the result (its report, headline, worst step), the exit code,
// and an *Error when there is no token or the API client cannot be made
// (78). Without a token (ExplainToken is "") nothing is sent: the logs
// endpoint needs one even for a public repository.
func (a *App) Explain(ctx context.Context, o ExplainOptions) (*explain.Result, int, error) {
	token := a.ExplainToken(o.Token)
	if token == "" {
		code, err := fail(exitcode.Config, "explain: no token: none was given (--token, the action's token input) and $GITHUB_TOKEN and $GH_TOKEN are unset or empty; set one to a token with actions: read (nothing was sent: GitHub serves a run's logs only with a token)")
		return nil, code, err
	}
	tr := step.Transport(a.Env)
	defer tr.CloseIdleConnections()
	// A connection to the API (its name resolved included) is given
	// explain.ConnectTimeout: an API that cannot be reached is said within 5 s.
	tr.DialContext = (&net.Dialer{Timeout: explain.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	api, err := ghapi.New(ghapi.Options{
		HTTPClient: httpstep.NewClient(tr, true), BaseURL: explain.APIBase(o.Target.Host, environ.Map(a.Env)["GITHUB_API_URL"]),
		Token: token, UserAgent: a.UserAgent, Clock: a.Clock,
	})
	if err != nil {
		code, err := fail(exitcode.Config, err.Error())
		return nil, code, err
	}
	res := explain.Explain(ctx, o.Target, explain.Options{
		API:       api,
		LogClient: httpstep.NewClient(tr, true), // no token: the log URL is signed
		Clock:     a.Clock, Rand: a.Rand,
		Progress: o.Progress,
		Rerun:    o.Rerun, MaxReruns: o.MaxReruns,
	})
	return res, res.ExitCode, nil
}
