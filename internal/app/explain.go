package app

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
	"github.com/retrywise/retrywise/internal/userfile"
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
	api, tr, code, err := a.explainAPI(o.Target.Host, token)
	if err != nil {
		return nil, code, err
	}
	defer tr.CloseIdleConnections()
	res := explain.Explain(ctx, o.Target, explain.Options{
		API:       api,
		LogClient: httpstep.NewClient(tr, true), // no token: the log URL is signed
		Clock:     a.Clock, Rand: a.Rand,
		Progress: o.Progress,
		Rerun:    o.Rerun, MaxReruns: o.MaxReruns,
	})
	return res, res.ExitCode, nil
}

// explainAPI is the API client of explain for a run on host (its
// transport, whose idle connections the caller closes), or an *Error (78).
func (a *App) explainAPI(host, token string) (*ghapi.Client, *http.Transport, int, error) {
	tr := step.Transport(a.Env)
	// A connection to the API (its name resolved included) is given
	// explain.ConnectTimeout: an API that cannot be reached is said within 5 s.
	tr.DialContext = (&net.Dialer{Timeout: explain.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	api, err := ghapi.New(ghapi.Options{
		HTTPClient: httpstep.NewClient(tr, true), BaseURL: explain.APIBase(host, environ.Map(a.Env)["GITHUB_API_URL"]),
		Token: token, UserAgent: a.UserAgent, Clock: a.Clock,
	})
	if err != nil {
		tr.CloseIdleConnections()
		code, err := fail(exitcode.Config, err.Error())
		return nil, nil, code, err
	}
	return api, tr, 0, nil
}

// ExplainRunsOptions is a repository's failed runs in a window to explain.
type ExplainRunsOptions struct {
	// Owner and Repo name the repository, on $GITHUB_SERVER_URL's host
	// (else github.com); Workflow, when set, is one workflow's file.
	Owner, Repo, Workflow string
	// Since is the window; MaxRuns and MaxCalls its bounds (0: the defaults).
	Since             time.Duration
	MaxRuns, MaxCalls int
	// Token is the token given; "" means the environment's (ExplainToken).
	Token string
	// Progress is told of each failed API attempt that will be retried.
	Progress func(a retry.Attempt, max int)
}

// ExplainRuns reads the repository's failed runs in the window (and those
// that failed, then passed on a re-run), classifies each failed step as
// Explain does, and returns the table: its exit code is 0 when complete,
// 75 when a bound or the API cut it short. No token, or an API client
// that cannot be made, is an *Error of 78 (nothing sent).
func (a *App) ExplainRuns(ctx context.Context, o ExplainRunsOptions) (*explain.Table, int, error) {
	token := a.ExplainToken(o.Token)
	if token == "" {
		code, err := fail(exitcode.Config, "explain: no token: none was given (--token) and $GITHUB_TOKEN and $GH_TOKEN are unset or empty; set one to a token with actions: read (nothing was sent: GitHub serves a run's logs only with a token)")
		return nil, code, err
	}
	api, tr, code, err := a.explainAPI(a.RepoTarget(o.Owner, o.Repo, 0).Host, token)
	if err != nil {
		return nil, code, err
	}
	defer tr.CloseIdleConnections()
	tb := explain.ExplainRuns(ctx, explain.RunsOptions{
		Options: explain.Options{
			API:       api,
			LogClient: httpstep.NewClient(tr, true), // no token: the log URL is signed
			Clock:     a.Clock, Rand: a.Rand, Progress: o.Progress,
		},
		Owner: o.Owner, Repo: o.Repo, Workflow: o.Workflow, Since: o.Since, MaxRuns: o.MaxRuns, MaxCalls: o.MaxCalls,
	})
	return tb, tb.ExitCode, nil
}

// ExplainLogOptions is a failed run's log file to explain offline.
type ExplainLogOptions struct {
	// Path is the file: the run's log archive (.zip) or a job's .txt log.
	Path string
	// Limits bound what is read; zero means explain's defaults.
	Limits explain.LogLimits
}

// ExplainLog explains a failed run from its log file, offline (no token,
// no network): the same rows, headline and exit code as Explain. A file
// that cannot be opened (missing, unreadable, a folder) is an *Error of
// 66; one that is not a log, or past a bound, 65; a signal that stopped
// its opening, the signal's code. The file is opened through userfile, so
// a FIFO that no one writes is abandoned on a signal.
func (a *App) ExplainLog(ctx context.Context, o ExplainLogOptions) (*explain.Result, int, error) {
	name := failure.Printable(o.Path)
	f, err := userfile.Open(ctx, o.Path, os.O_RDONLY, 0)
	if err != nil {
		if userfile.IsWait(err) {
			code, err := fail(exitcode.ForCause(ctx), "explain --log: "+err.Error())
			return nil, code, err
		}
		why := "it cannot be opened"
		switch {
		case errors.Is(err, fs.ErrNotExist):
			why = "no such file"
		case errors.Is(err, fs.ErrPermission):
			why = "it cannot be read (permission denied)"
		}
		code, err := fail(exitcode.Absent, "explain --log "+name+": "+why+": want the log archive downloaded from a run's page (a .zip) or a job's .txt log")
		return nil, code, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		code, err := fail(exitcode.Absent, "explain --log "+name+": a folder, not a file: want the log archive downloaded from a run's page (a .zip) or a job's .txt log")
		return nil, code, err
	}
	lf := explain.LogFile{Name: o.Path}
	if st.Mode().IsRegular() {
		lf.ReaderAt, lf.Size = f, st.Size()
	} else {
		// A FIFO, a pipe, a device: read once, its reads woken on a signal.
		stop := userfile.AbandonReads(ctx, f)
		defer stop()
		lf.Stream = f
	}
	res, err := explain.ExplainLog(ctx, lf, explain.LogOptions{Clock: a.Clock, Limits: o.Limits})
	if err != nil {
		var le *explain.LogError
		if errors.As(err, &le) {
			code, err := fail(le.Code, le.Msg)
			return nil, code, err
		}
		code, err := fail(exitcode.Structural, err.Error())
		return nil, code, err
	}
	return res, res.ExitCode, nil
}
