package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghissue"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/userfile"
)

// runExplain runs the explain mode: the run the explain input names (a
// run URL, or event for the workflow_run event's run) explained as
// `retrywise explain` does, re-run when rerun allows; the outputs name the
// worst failed step, and rerun says whether the run was handed back.
func (a *actionRun) runExplain(ctx context.Context) int {
	rerun, err := ParseBool("rerun", a.input("rerun"), false)
	if err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	maxReruns := explain.DefaultMaxReruns
	if v := a.input("max-reruns"); v != "" {
		if maxReruns, err = strconv.Atoi(v); err != nil || maxReruns < 0 {
			return a.fail(exitcode.Usage, fmt.Sprintf("invalid input max-reruns %q: want a whole number, 0 or more", v))
		}
	}
	t, err := a.explainTarget(ctx)
	if err != nil {
		return a.fail(exitcode.Usage, err.Error())
	}
	token := a.input("token")
	a.streams(a.app.Redactor(a.app.ExplainToken(token)))
	defer a.close()
	if err := a.log.Mask(a.red.Given()...); err != nil {
		return a.fail(exitcode.Config, err.Error())
	}
	a.line("explaining %s", t)
	res, code, err := a.app.Explain(ctx, app.ExplainOptions{
		Target: t, Token: token, Rerun: rerun, MaxReruns: maxReruns,
		Progress: func(at retry.Attempt, max int) {
			a.line("GitHub API: attempt %d/%d failed (%s: %s); retrying in %s", at.N, max, at.Class, at.Reason, at.Wait)
		},
	})
	if err != nil {
		return a.fail(code, err.Error())
	}
	a.worst, a.headline = res.Worst, res.Headline
	a.explainIssue(t, res)
	a.extra = map[string]string{"rerun": strconv.FormatBool(res.Rerun)}
	outputs := map[string]any{}
	for _, s := range res.Report.Steps {
		outputs[s.ID] = map[string]any{"class": s.Class, "code": string(s.Code), "reason": s.Reason, "remedy": s.Remedy}
	}
	return a.finish(ctx, res.Report, outputs)
}

// MaxEventPayload bounds the event payload explain: event reads
// ($GITHUB_EVENT_PATH); GitHub caps a webhook payload at 25 MB.
const MaxEventPayload = 32 << 20

// explainTarget is the run the explain input names: a run URL, or event
// for the run of the workflow_run event at $GITHUB_EVENT_PATH (the
// attempt that completed).
func (a *actionRun) explainTarget(ctx context.Context) (explain.Target, error) {
	v := a.input("explain")
	if v != "event" {
		return explain.ParseURL(v)
	}
	path := a.getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return explain.Target{}, errors.New("explain: event needs $GITHUB_EVENT_PATH (a workflow_run event)")
	}
	b, err := userfile.ReadFile(ctx, path, MaxEventPayload)
	if err != nil {
		return explain.Target{}, fmt.Errorf("explain: event: cannot read the event payload: %w", err)
	}
	if len(b) > MaxEventPayload {
		return explain.Target{}, fmt.Errorf("explain: event: the event payload ($GITHUB_EVENT_PATH) is over %d MiB, more than GitHub sends (25 MB)", MaxEventPayload>>20)
	}
	var ev struct {
		WorkflowRun *struct {
			ID         int64  `json:"id"`
			HTMLURL    string `json:"html_url"`
			RunAttempt int    `json:"run_attempt"`
		} `json:"workflow_run"`
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return explain.Target{}, fmt.Errorf("explain: event: the event payload is not JSON: %v", err)
	}
	if ev.WorkflowRun == nil {
		return explain.Target{}, fmt.Errorf("explain: event: the event (%s) is not a workflow_run event: trigger the workflow on: workflow_run, or give a run URL", a.getenv("GITHUB_EVENT_NAME"))
	}
	var t explain.Target
	if t, err = explain.ParseURL(ev.WorkflowRun.HTMLURL); err != nil {
		owner, repo, rerr := explain.ParseRepo(ev.Repository.FullName)
		switch {
		case rerr != nil && ev.Repository.FullName != "":
			return explain.Target{}, fmt.Errorf("explain: event: the payload's repository: %v", rerr)
		case rerr != nil || ev.WorkflowRun.ID <= 0:
			return explain.Target{}, fmt.Errorf("explain: event: the payload names no run: %v", err)
		}
		t = a.app.RepoTarget(owner, repo, ev.WorkflowRun.ID)
	}
	if ev.WorkflowRun.RunAttempt > 0 && t.Attempt == 0 {
		t.Attempt = ev.WorkflowRun.RunAttempt
	}
	return t, nil
}

// explainIssue points report-issue at the explained run's workflow: its
// failure issue is opened (or commented on) for a policy or structural
// stop, and closed when a later run of that workflow succeeds; a run that
// was re-run, still runs, or failed in another class leaves it as it is.
func (a *actionRun) explainIssue(t explain.Target, res *explain.Result) {
	if res.Run == nil {
		a.issueSkip = "the run could not be read, so its workflow's failure issue is left as it is"
		return
	}
	name := res.Run.GetName()
	if name == "" {
		name = fmt.Sprintf("workflow %d", res.Run.GetWorkflowID())
	}
	a.issueRun = &ghissue.Run{
		Owner: t.Owner, Repo: t.Repo, Workflow: name, Job: "explain",
		ServerURL: "https://" + t.Host, ID: t.RunID, Attempt: res.Run.GetRunAttempt(),
	}
	switch {
	case res.Run.GetStatus() == "completed" && res.Run.GetConclusion() == "success":
	case res.Rerun:
		a.issueSkip = "the run was handed back for a re-run, so its workflow's failure issue waits for the re-run's outcome"
	case res.Worst == nil:
		a.issueSkip = "nothing failed that an issue would report"
	case res.Worst.Class != failure.Policy && res.Worst.Class != failure.Structural:
		a.issueSkip = fmt.Sprintf("the worst failure is %s, not a policy or structural stop, so no issue is opened", res.Worst.Class)
	}
}
