package explain

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
)

// rerun asks GitHub to re-run the run's failed jobs, once, when every
// failed step is transient and the run's attempt is within MaxReruns; it
// says why it did or did not. GitHub's refusals are named, not retried.
func (e *explainer) rerun(ctx context.Context, rows []*report.Step, attempt int) (bool, string) {
	for _, r := range rows {
		if r.Class != failure.Transient.String() {
			return false, fmt.Sprintf("not re-run: %s is %s, which a re-run cannot fix (%s)", r.ID, r.Class, r.Reason)
		}
	}
	if attempt > e.o.MaxReruns {
		return false, fmt.Sprintf("not re-run: every failed step is transient, but this is attempt %d, over --max-reruns %d", attempt, e.o.MaxReruns)
	}
	t := e.t
	f := e.call(ctx, "re-run the failed jobs", func(ctx context.Context) (*github.Response, error) {
		return e.o.API.GitHub().Actions.RerunFailedJobsByID(ctx, t.Owner, t.Repo, t.RunID)
	})
	if f != nil {
		return false, "not re-run: GitHub refused to re-run the failed jobs: " + refusal(f)
	}
	return true, fmt.Sprintf("re-run requested: every failed step is transient (attempt %d, --max-reruns %d)", attempt, e.o.MaxReruns)
}

// refusal names why GitHub refused a re-run.
func refusal(f *failure.Failure) string {
	msg := f.Reason
	var er *github.ErrorResponse
	st := status(f)
	if errors.As(f, &er) {
		msg = er.Message
		if er.Response != nil {
			st = er.Response.StatusCode
		}
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "month") || strings.Contains(low, "30 days") || strings.Contains(low, "too old") || strings.Contains(low, "older than"):
		return "the run is older than 30 days, and GitHub re-runs only newer runs (" + msg + ")"
	case strings.Contains(low, "already") || st == http.StatusConflict:
		return "the run is already re-running (" + msg + ")"
	case st == http.StatusForbidden || strings.Contains(low, "not accessible"):
		return "the token lacks the actions: write permission (" + msg + "); give the triage job permissions: {actions: write}"
	}
	return fmt.Sprintf("%s: %s", f.Class, f.Reason)
}
