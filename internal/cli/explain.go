package cli

import (
	"context"
	"fmt"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

const explainSynopsis = `Usage: retrywise explain [flags] RUN_URL
       retrywise explain [flags] --repo OWNER/REPO --run ID
       retrywise explain [flags] --log FILE
       retrywise explain [flags] --repo OWNER/REPO [--workflow FILE] --since 7d

Reads a failed GitHub Actions run (its jobs, steps and logs) and classifies
every failed step from its log's last 64 KiB, offline, with the classifier of
classify: one row per failed step (class, code, reason, remedy, evidence).
RUN_URL is https://HOST/OWNER/REPO/actions/runs/ID[/attempts/N]; the API is
$GITHUB_API_URL, else api.github.com for github.com, else https://HOST/api/v3.
The token is --token, else $GITHUB_TOKEN, else $GH_TOKEN (actions: read).

Exit: the worst class's code (as run); 0 for a successful run (nothing to
explain) and, with --rerun, for a run handed back to GitHub for a re-run;
75 for a run still running; 64 for a URL that is not a run; 78 without a token
(nothing sent). When explain cannot read the run: 77 for an API answer 401 or
403, 66 for 404, 75 for an API it cannot reach (not retried).

--log FILE explains the run from its log file, offline (no token, no network):
the log archive downloaded from the run's page (.zip) or one job's .txt log;
its failed steps are those with the runner's ##[error] line. 66 for a file
that cannot be opened, 65 for one that is not a log or is past a bound.

--rerun re-runs the failed jobs once when every failed step is transient and
the run's latest attempt is at most --max-reruns (actions: write). The request
is sent once: an ambiguous answer (a 5xx, a lost connection) is followed by one
read of the run, which confirms the re-run or does not. A run on attempt 2 or
more is not re-run when each failed step failed the same way in the attempt
before (not transient in practice), nor a step retrywise marked persistent.

--since D explains the failed runs of --repo created in the last D (7d, 36h;
at most 90d), and those that failed and then passed on a re-run, in one table:
per workflow and step the classes and codes, the runs, the re-runs and whether
they passed, and the steps that fail persistently (one fingerprint in 3 runs
in a row). At most --max-runs runs and --max-calls API calls: exit 0 when the
table is complete, 75 when a bound or the API cut it short.`

// explainOptions is what `retrywise explain` explains.
type explainOptions struct {
	f                       *factory
	target                  explain.Target
	token                   string
	rerun                   bool
	maxReruns               int
	reportPath, summaryPath string
	// log is the run's log file to explain offline (--log); "" for a run
	// read through the API.
	log string
	// runs, when set, are a window's failed runs to explain (--since).
	runs *app.ExplainRunsOptions
}

// parseExplain parses `retrywise explain`'s flags into its options.
func parseExplain(f *factory, args []string) (*explainOptions, int, bool) {
	var opt options.Explain
	fs := fieldFlagSet("explain", explainSynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return nil, code, true
	}
	o := &explainOptions{f: f, reportPath: opt.Report, summaryPath: opt.Summary}
	if opt.Log != "" {
		// Offline: the log file is the run; nothing names it on GitHub,
		// and nothing can be re-run.
		switch {
		case len(pos) > 0:
			return nil, f.fail(exitcode.Usage, fmt.Sprintf("give a run URL or --log FILE, not both (got %q and --log)", pos[0])), true
		case opt.Repo != "" || opt.Run != 0 || opt.Attempt != 0:
			return nil, f.fail(exitcode.Usage, "--log FILE explains a log file offline: it takes no --repo, --run or --attempt"), true
		case opt.Rerun:
			return nil, f.fail(exitcode.Usage, "--log FILE explains a log file offline: --rerun needs the run on GitHub (explain RUN_URL --rerun)"), true
		}
		o.log = opt.Log
		return o, 0, false
	}
	if opt.Since != "" {
		return parseExplainRuns(f, o, opt, pos)
	}
	if opt.Workflow != "" {
		return nil, f.fail(exitcode.Usage, "--workflow takes --since: explain --repo OWNER/REPO --workflow FILE --since 7d"), true
	}
	switch {
	case len(pos) > 1:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q: explain takes one run URL", pos[1])), true
	case len(pos) == 1 && (opt.Repo != "" || opt.Run != 0):
		return nil, f.fail(exitcode.Usage, "give a run URL or --repo and --run, not both"), true
	case len(pos) == 1:
		t, err := explain.ParseURL(pos[0])
		if err != nil {
			return nil, f.fail(exitcode.Usage, err.Error()), true
		}
		o.target = t
	case opt.Repo == "" || opt.Run <= 0:
		return nil, f.fail(exitcode.Usage, "no run given: want a run URL, or --repo OWNER/REPO and --run ID"), true
	default:
		owner, name, err := explain.ParseRepo(opt.Repo)
		if err != nil {
			return nil, f.fail(exitcode.Usage, err.Error()), true
		}
		o.target = f.application().RepoTarget(owner, name, opt.Run)
	}
	if opt.Attempt < 0 || opt.MaxReruns < 0 {
		return nil, f.fail(exitcode.Usage, "--attempt and --max-reruns must not be negative"), true
	}
	if opt.Attempt > 0 {
		o.target.Attempt = opt.Attempt
	}
	o.token, o.rerun, o.maxReruns = opt.Token, opt.Rerun, opt.MaxReruns
	return o, 0, false
}

// parseExplainRuns parses the flags of explain --since: a repository's
// failed runs in a window.
func parseExplainRuns(f *factory, o *explainOptions, opt options.Explain, pos []string) (*explainOptions, int, bool) {
	switch {
	case len(pos) > 0:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("--since explains the runs of --repo: it takes no run URL (got %q)", pos[0])), true
	case opt.Repo == "":
		return nil, f.fail(exitcode.Usage, "--since needs --repo OWNER/REPO"), true
	case opt.Run != 0 || opt.Attempt != 0 || opt.Rerun:
		return nil, f.fail(exitcode.Usage, "--since explains a window's runs: it takes no --run, --attempt or --rerun"), true
	case opt.MaxRuns < 1 || opt.MaxRuns > explain.MaxMaxRuns:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("--max-runs must be between 1 and %d; got %d", explain.MaxMaxRuns, opt.MaxRuns)), true
	case opt.MaxCalls < 1 || opt.MaxCalls > explain.MaxMaxCalls:
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("--max-calls must be between 1 and %d; got %d", explain.MaxMaxCalls, opt.MaxCalls)), true
	}
	since, err := explain.ParseSince(opt.Since)
	if err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	owner, name, err := explain.ParseRepo(opt.Repo)
	if err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	var wf string
	if opt.Workflow != "" {
		if wf, err = explain.CheckWorkflow(opt.Workflow); err != nil {
			return nil, f.fail(exitcode.Usage, err.Error()), true
		}
	}
	o.token = opt.Token
	o.runs = &app.ExplainRunsOptions{Owner: owner, Repo: name, Workflow: wf, Since: since, MaxRuns: opt.MaxRuns, MaxCalls: opt.MaxCalls, Token: opt.Token}
	return o, 0, false
}

// runExplainRuns explains a window's failed runs (app.ExplainRuns) and
// renders the table: the text on stdout, the JSON and Markdown to their
// files, the headline last on stderr.
func runExplainRuns(ctx context.Context, o *explainOptions) int {
	f := o.f
	red := f.redactor(f.application().ExplainToken(o.token))
	stdout, stderr := red.Writer(f.stdout), red.Writer(f.stderr)
	defer stdout.Close()
	defer stderr.Close()
	files, err := jobs.CreateReportFiles(ctx, o.reportPath, o.summaryPath)
	if err != nil {
		return f.failOpen(ctx, err)
	}
	ro := *o.runs
	ro.Progress = func(a retry.Attempt, max int) {
		fmt.Fprintf(stderr, "retrywise: GitHub API: attempt %d/%d failed (%s: %s); retrying in %s\n", a.N, max, a.Class, a.Reason, report.Wait(a.Wait))
	}
	tb, code, err := f.application().ExplainRuns(ctx, ro)
	if err != nil {
		return f.fail(code, err.Error())
	}
	tb.WriteText(stdout)
	stdout.Flush()
	files.WriteWith(ctx, tb.WriteJSON, tb.WriteMarkdown, red, stderr)
	fmt.Fprintf(stderr, "retrywise: %s\n", tb.Headline)
	return code
}

// runExplain explains the run (app.Explain) and renders it: the terminal
// text on stdout, the reports to their files, the headline last on stderr.
func runExplain(ctx context.Context, o *explainOptions) int {
	if o.runs != nil {
		return runExplainRuns(ctx, o)
	}
	f := o.f
	red := f.redactor(f.application().ExplainToken(o.token))
	stdout, stderr := red.Writer(f.stdout), red.Writer(f.stderr)
	defer stdout.Close()
	defer stderr.Close()
	files, err := jobs.CreateReportFiles(ctx, o.reportPath, o.summaryPath)
	if err != nil {
		return f.failOpen(ctx, err)
	}
	var res *explain.Result
	var code int
	run := o.target.String()
	if o.log != "" {
		res, code, err = f.application().ExplainLog(ctx, app.ExplainLogOptions{Path: o.log})
		run = failure.Printable(o.log)
	} else {
		res, code, err = f.application().Explain(ctx, app.ExplainOptions{
			Target: o.target, Token: o.token, Rerun: o.rerun, MaxReruns: o.maxReruns,
			Progress: func(a retry.Attempt, max int) {
				fmt.Fprintf(stderr, "retrywise: GitHub API: attempt %d/%d failed (%s: %s); retrying in %s\n", a.N, max, a.Class, a.Reason, report.Wait(a.Wait))
			},
		})
	}
	if err != nil {
		return f.fail(code, err.Error())
	}
	res.Report.Mask(red.String)
	res.WriteText(stdout, run)
	stdout.Flush()
	files.Write(ctx, res.Report, red, stderr)
	fmt.Fprintf(stderr, "retrywise: %s\n", res.Headline)
	return code
}
