package explain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/report"
)

// rerun asks GitHub to re-run the run's failed jobs when the jobs list was
// read whole (cut is nil), every failed step is transient, the run's latest attempt is the one explained, is not
// running, and is within MaxReruns; it says why it did or did not. The
// request is sent once, never retried: it is not idempotent (a second one
// re-runs the run again). An ambiguous answer (a 5xx, a connection lost
// after sending) is followed by one read of the run, which confirms the
// re-run or does not. GitHub's refusals are named.
func (e *explainer) rerun(ctx context.Context, rows []*report.Step, attempt int, cut *ghapi.Cut) (bool, string) {
	if cut != nil {
		return false, "not re-run: not every job was read (" + cut.Error() + "), so not every failed step is known to be transient"
	}
	for _, r := range rows {
		if r.Class != failure.Transient {
			return false, fmt.Sprintf("not re-run: %s is %s, which a re-run cannot fix (%s)", r.ID, r.Class, r.Reason)
		}
	}
	for _, r := range rows {
		if p := r.Persistent; p != nil {
			return false, fmt.Sprintf("not re-run: %s was marked persistent by retrywise (the same failure in %d runs since %s): waiting has not helped, so a re-run would only wait again", r.ID, p.Runs, p.Since.UTC().Format(time.RFC3339))
		}
	}
	t := e.t
	gh := e.o.API.GitHub().Actions
	// The run's latest attempt, read now: --max-reruns counts it, whatever
	// attempt was explained, and a run re-run meanwhile is not re-run again.
	var latest *github.WorkflowRun
	if f := e.call(ctx, "read the run", func(ctx context.Context) (*github.Response, error) {
		var resp *github.Response
		var err error
		latest, resp, err = gh.GetWorkflowRunByID(ctx, t.Owner, t.Repo, t.RunID)
		return resp, err
	}); f != nil {
		return false, "not re-run: cannot read the run's latest attempt: " + permission(f).Reason
	}
	n := latest.GetRunAttempt()
	switch {
	case n > e.o.MaxReruns:
		why := fmt.Sprintf("not re-run: every failed step is transient, but the run is on attempt %d, over --max-reruns %d", n, e.o.MaxReruns)
		if n != attempt {
			why += fmt.Sprintf(" (attempt %d was explained)", attempt)
		}
		return false, why
	case latest.GetStatus() != "completed":
		return false, fmt.Sprintf("not re-run: the run is running again (attempt %d %s): it was re-run since it was read", n, latest.GetStatus())
	case n != attempt:
		return false, fmt.Sprintf("not re-run: attempt %d was explained, but the run's latest attempt is %d (%s); explain the latest attempt to decide its re-run", attempt, n, latest.GetConclusion())
	}

	// The attempt before: when it failed the same way, a re-run did not
	// help once; when it cannot be read, the decision is as without it.
	var before string
	if n >= 2 {
		why, same := e.sameAsBefore(ctx, rows, n)
		if same {
			return false, "not re-run: " + why
		}
		if why != "" {
			before = "; " + why
		}
	}

	// One request, outside the retry loop.
	pctx, cancel := context.WithTimeout(ctx, APITimeout)
	resp, err := gh.RerunFailedJobsByID(pctx, t.Owner, t.Repo, t.RunID)
	cancel()
	if err == nil {
		return true, fmt.Sprintf("re-run requested: every failed step is transient (attempt %d, --max-reruns %d)%s", n, e.o.MaxReruns, before)
	}
	f := e.classify(err, resp)
	what, ambiguous := rerunAnswer(err, resp, f)
	switch {
	case !ambiguous && (resp == nil || resp.Response == nil):
		return false, "not re-run: the re-run request could not be sent (" + what + "); nothing reached GitHub"
	case !ambiguous:
		return false, "not re-run: GitHub refused to re-run the failed jobs: " + refusal(f)
	}
	if ctx.Err() != nil {
		return false, fmt.Sprintf("re-run not confirmed: the re-run request was sent (%s) and the run could not be read after it (%s); it was not sent again: check the run", what, context.Cause(ctx))
	}
	// One read of the run, to say what the answer could not.
	gctx, cancel := context.WithTimeout(ctx, APITimeout)
	after, _, gerr := gh.GetWorkflowRunByID(gctx, t.Owner, t.Repo, t.RunID)
	cancel()
	switch {
	case gerr != nil:
		return false, fmt.Sprintf("re-run not confirmed: the answer to the re-run request was ambiguous (%s), and reading the run after it failed (%s); it was not sent again (a re-run is sent once): check the run", what, e.classify(gerr, nil).Reason)
	case after.GetRunAttempt() > n || running(after.GetStatus()):
		return true, fmt.Sprintf("re-run confirmed: the answer to the re-run request was ambiguous (%s), and reading the run shows attempt %d %s; it was sent once", what, after.GetRunAttempt(), after.GetStatus())
	}
	return false, fmt.Sprintf("re-run not confirmed: the answer to the re-run request was ambiguous (%s), and reading the run shows attempt %d still %s %s; it was not sent again (a re-run is sent once): check the run, or re-run it by hand", what, after.GetRunAttempt(), after.GetStatus(), after.GetConclusion())
}

// rerunAnswer says what the re-run request got, and whether that leaves open
// whether GitHub re-ran the run: a 5xx, or a connection lost or timed out
// once the request may have been sent, does; an answer under 500 (a
// refusal, go-github's own refusal under a spent rate limit) and a
// connection never made do not.
func rerunAnswer(err error, resp *github.Response, f *failure.Failure) (string, bool) {
	if resp != nil && resp.Response != nil {
		return fmt.Sprintf("HTTP %d", resp.StatusCode), resp.StatusCode >= 500
	}
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return f.Reason, false
	}
	return f.Reason, true
}

// running reports whether a run's status is one of a run that is queued or
// running.
func running(status string) bool {
	switch status {
	case "queued", "in_progress", "waiting", "requested", "pending":
		return true
	}
	return false
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
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	low := strings.ToLower(msg)
	switch {
	case errors.As(f, &rl) || errors.As(f, &ab) || st == http.StatusTooManyRequests || strings.Contains(low, "rate limit"):
		return "a rate limit (" + f.Reason + "); the request is sent once, so run explain --rerun again after it"
	case strings.Contains(low, "month") || strings.Contains(low, "30 days") || strings.Contains(low, "too old") || strings.Contains(low, "older than"):
		return "the run is older than 30 days, and GitHub re-runs only newer runs (" + msg + ")"
	case strings.Contains(low, "already") || st == http.StatusConflict:
		return "the run is already re-running (" + msg + ")"
	case st == http.StatusForbidden || strings.Contains(low, "not accessible"):
		return "the token lacks the actions: write permission (" + msg + "); give the triage job permissions: {actions: write}"
	}
	return fmt.Sprintf("%s: %s", f.Class, f.Reason)
}

// sameAsBefore reads attempt n-1 of the run (its record, its jobs, the logs
// of its failed jobs that failed again in attempt n) and says whether every
// failed step of rows (attempt n) failed with the same fingerprint
// (failure.FingerprintOf) in it, as the same step of the same job. When it
// did, why says so; when it did not, why is ""; when attempt n-1 cannot be
// read whole, same is false and why says so: the re-run is decided as
// without it (every failed step transient, within --max-reruns, which
// still bounds it), since only evidence withholds a re-run.
func (e *explainer) sameAsBefore(ctx context.Context, rows []*report.Step, n int) (why string, same bool) {
	prev := n - 1
	unread := func(what string) (string, bool) {
		return fmt.Sprintf("attempt %d could not be read (%s), so whether it failed the same way is not known", prev, what), false
	}
	t := e.t
	gh := e.o.API.GitHub().Actions
	var run *github.WorkflowRun
	if f := e.call(ctx, "read the attempt before", func(ctx context.Context) (*github.Response, error) {
		var resp *github.Response
		var err error
		run, resp, err = gh.GetWorkflowRunAttempt(ctx, t.Owner, t.Repo, t.RunID, prev, nil)
		return resp, err
	}); f != nil {
		return unread(permission(f).Reason)
	}
	if !isFailure(run.GetConclusion()) {
		return "", false
	}
	pe := *e
	pe.t.Attempt = prev
	jobs, cut, err := pe.listJobs(ctx, prev)
	switch {
	case err != nil:
		return unread(err.Error())
	case cut != nil:
		return unread(cut.Error())
	}
	names := map[string]bool{}
	for _, r := range rows {
		names[fmt.Sprint(r.Outputs["job"])] = true
	}
	var again []*github.WorkflowJob
	for _, j := range jobs {
		if names[j.GetName()] && isFailure(j.GetConclusion()) {
			again = append(again, j)
		}
	}
	before, bad := pe.failedRows(ctx, again, prev)
	if len(bad) > 0 {
		return unread(fmt.Sprintf("%d of its failed jobs' logs", len(bad)))
	}
	fps := map[string]failure.Fingerprint{}
	for _, r := range before {
		fps[stepKey(r)] = RowFingerprint(r)
	}
	var list []string
	for _, r := range rows {
		fp, ok := fps[stepKey(r)]
		if !ok || fp != RowFingerprint(r) {
			return "", false
		}
		list = append(list, fmt.Sprintf("%s: %s %s%s", r.ID, fp.Class, fp.Kind, map[bool]string{true: " on " + fp.Target, false: ""}[fp.Target != ""]))
	}
	return fmt.Sprintf("attempt %d failed the same way as attempt %d: not transient in practice (%s)", n, prev, strings.Join(list, "; ")), true
}

// stepKey names a row's step across attempts and runs: its job and step.
func stepKey(r *report.Step) string {
	return fmt.Sprint(r.Outputs["job"]) + "\x00" + fmt.Sprint(r.Outputs["step"])
}

// RowFingerprint is the fingerprint of a failed step's row
// (failure.FingerprintOf of its class, code, reason and evidence): two
// rows with equal fingerprints failed the same way.
func RowFingerprint(r *report.Step) failure.Fingerprint {
	return failure.FingerprintOf(&failure.Failure{Class: r.Class, Code: r.Code, Reason: r.Reason, Evidence: r.Evidence}, nil)
}
