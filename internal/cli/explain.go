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
read of the run, which confirms the re-run or does not.`

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

// runExplain explains the run (app.Explain) and renders it: the terminal
// text on stdout, the reports to their files, the headline last on stderr.
func runExplain(ctx context.Context, o *explainOptions) int {
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
