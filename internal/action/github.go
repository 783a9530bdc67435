package action

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/branchrules"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/ghissue"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/step"
)

// githubTimeout bounds each of the action's own GitHub API calls (the
// failure issue, the branch rules): they must never hold the step long.
const githubTimeout = 30 * time.Second

// github returns a client of the GitHub API at $GITHUB_API_URL with the
// token input; nil when there is no token.
func (a *actionRun) github() (*github.Client, error) {
	token := a.input("token")
	if token == "" {
		return nil, nil
	}
	tr := step.Transport(a.env)
	c, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: a.getenv("GITHUB_API_URL"), Token: token, UserAgent: a.app.UserAgent, Clock: a.app.Clock})
	if err != nil {
		return nil, err
	}
	return c.GitHub(), nil
}

// reportIssue opens, comments on or closes the failure issue (report-issue):
// on a final failure one issue, on the next success its close. A failure
// to do so is a warning: the step's result is the work's.
func (a *actionRun) reportIssue(ctx context.Context, run *report.Run, markdown string) {
	ok, why := a.issues.Enabled(ghissue.UnderAct(a.getenv))
	if !ok {
		if a.issues != ghissue.Off && why != "" {
			a.line("report-issue: %s", why)
		}
		return
	}
	if run.Run.Result == report.Cancelled {
		a.line("report-issue: the run was cancelled, so no issue is opened or closed")
		return
	}
	fail := func(err error) {
		a.warn("retrywise: report-issue", a.red.String(err.Error()))
	}
	gh, err := a.github()
	if err != nil {
		fail(err)
		return
	}
	if gh == nil {
		fail(fmt.Errorf("report-issue needs the token input (its default is ${{ github.token }})"))
		return
	}
	if a.issueSkip != "" {
		a.line("report-issue: %s", a.issueSkip)
		return
	}
	var ghRun ghissue.Run
	if a.issueRun != nil {
		ghRun = *a.issueRun
	} else if ghRun, err = ghissue.RunFromEnv(a.getenv); err != nil {
		fail(err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, githubTimeout)
	defer cancel()
	rep := ghissue.New(gh, ghRun).WithHindsight(issueHindsight(a.mem, a.store, run))
	var out ghissue.Outcome
	if run.Run.ExitCode == exitcode.OK {
		out, err = rep.Recovered(ctx)
	} else {
		out, err = rep.Failed(ctx, markdown)
	}
	if err != nil {
		fail(err)
		return
	}
	if out.Action != ghissue.None {
		a.line("report-issue: %s", a.red.String(out.String()))
	}
}

// explainRefusal adds to a refused push's report the branch rules that
// apply to the branch it went to (with a token): never required, so a
// failure to read them is a note.
func (a *actionRun) explainRefusal(ctx context.Context, rep *report.Step) {
	if rep.Class != failure.Policy && rep.Class != failure.Structural {
		return
	}
	gh, err := a.github()
	if err != nil || gh == nil {
		return
	}
	full := a.getenv("GITHUB_REPOSITORY")
	if full == "" {
		return
	}
	owner, repo, err := ghapi.ParseRepo(full)
	if err != nil {
		rep.Notes = append(rep.Notes, "the branch rules were not read: GITHUB_REPOSITORY: "+err.Error())
		return
	}
	var branches []string
	for _, r := range rep.Refs {
		if !r.OK {
			if b := branchrules.BranchOf(r.To); b != "" && !slices.Contains(branches, b) {
				branches = append(branches, b)
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, githubTimeout)
	defer cancel()
	for _, b := range branches {
		// GITHUB_REF_PROTECTED describes the ref the workflow runs on.
		protected := a.getenv("GITHUB_REF_PROTECTED") == "true" && a.getenv("GITHUB_REF_NAME") == b
		text, err := branchrules.Explain(ctx, gh, owner, repo, b, protected)
		switch {
		case err != nil:
			rep.Notes = append(rep.Notes, branchrules.Note(err))
		case text != "":
			rep.Notes = append(rep.Notes, text)
		}
	}
}
