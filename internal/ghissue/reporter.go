// Package ghissue keeps one GitHub issue open per failing job of a workflow:
// the action's report-issue mode. A scheduled workflow fails silently (GitHub
// notifies only the author of the cron line), so on a final failure the
// reporter opens an issue labelled retrywise, or comments on the one already
// open, and on the next success comments and closes it.
//
// The open issue is found by listing the repository's open issues labelled
// retrywise and matching a hidden marker in the body (Marker: repository,
// workflow and job), not with the search API, whose index lags behind
// writes: two failures in a row would open two issues. Bodies are cut to
// GitHub's limit with a visible note; the marker and the run link are kept.
package ghissue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/redact"
)

// perPage is the page size of the issue list, GitHub's largest.
const perPage = 100

// maxPages bounds the issue list: 100 pages of 100 open issues labelled
// retrywise; maxFound bounds the open issues of one job found in it.
const (
	maxPages = 100
	maxFound = 100
)

// Action is what a Reporter did.
type Action string

// The four actions.
const (
	Opened    Action = "opened"
	Commented Action = "commented"
	Closed    Action = "closed"
	None      Action = "none"
)

// Outcome is what a Reporter did, for the log; on an error it says what was
// done before the error (None when nothing was written).
type Outcome struct {
	// Action is what was done.
	Action Action
	// Number is the issue's number, 0 with None.
	Number int
	// URL is the issue's page, or the comment's for Commented.
	URL string
	// Note is a warning worth a log line, "" when there is none.
	Note string
}

// String returns the outcome in one line, such as "opened issue #12 https://github.com/o/r/issues/12".
func (o Outcome) String() string {
	var s string
	switch o.Action {
	case Opened:
		s = fmt.Sprintf("opened issue #%d", o.Number)
	case Commented:
		s = fmt.Sprintf("commented on issue #%d", o.Number)
	case Closed:
		s = fmt.Sprintf("closed issue #%d", o.Number)
	default:
		s = "no open issue to close"
	}
	if o.URL != "" {
		s += " " + o.URL
	}
	if o.Note != "" {
		s += " (" + o.Note + ")"
	}
	return s
}

// Reporter opens, comments on and closes the failure issue of one run's job.
type Reporter struct {
	gh  *github.Client
	run Run
	hs  Hindsight
}

// WithHindsight makes Failed carry hs: the book's marker, and when
// persistent, a title and headline that say "failing every run since".
func (r *Reporter) WithHindsight(hs Hindsight) *Reporter {
	r.hs = hs
	return r
}

// New returns a Reporter for run that calls the API through gh (with a
// token that has issues: write, such as ghapi.Client.GitHub's).
func New(gh *github.Client, run Run) *Reporter { return &Reporter{gh: gh, run: run} }

// Failed reports a final failure with markdown, the run's report: it
// comments on the open failure issue of the job, or opens one when none is
// open.
func (r *Reporter) Failed(ctx context.Context, markdown string) (Outcome, error) {
	if err := ghapi.CheckRepo(r.run.Owner, r.run.Repo); err != nil {
		return Outcome{Action: None}, err
	}
	open, err := r.find(ctx)
	if err != nil {
		return Outcome{Action: None}, err
	}
	if len(open) > 0 {
		is := open[0]
		c, _, err := r.gh.Issues.CreateComment(ctx, r.run.Owner, r.run.Repo, is.GetNumber(), &github.IssueComment{
			Body: github.String(failureComment(r.run, markdown, r.hs)),
		})
		if err != nil {
			return Outcome{Action: None}, r.fail(fmt.Sprintf("comment on issue #%d", is.GetNumber()), err)
		}
		if p := r.hs.Persistent; p != nil {
			if title := titleWith(r.run, persistentWhat(p)); is.GetTitle() != title {
				if _, _, err := r.gh.Issues.Edit(ctx, r.run.Owner, r.run.Repo, is.GetNumber(), &github.IssueRequest{Title: github.String(title)}); err != nil {
					return Outcome{Action: Commented, Number: is.GetNumber(), URL: firstNonEmpty(c.GetHTMLURL(), is.GetHTMLURL())}, r.fail(fmt.Sprintf("retitle issue #%d", is.GetNumber()), err)
				}
			}
		}
		return Outcome{Action: Commented, Number: is.GetNumber(), URL: firstNonEmpty(c.GetHTMLURL(), is.GetHTMLURL()), Note: duplicates(open)}, nil
	}
	is, _, err := r.gh.Issues.Create(ctx, r.run.Owner, r.run.Repo, &github.IssueRequest{
		Title:  github.String(r.title()),
		Body:   github.String(issueBody(r.run, markdown, r.hs)),
		Labels: &[]string{Label},
	})
	if err != nil {
		return Outcome{Action: None}, r.fail("open an issue", err)
	}
	o := Outcome{Action: Opened, Number: is.GetNumber(), URL: is.GetHTMLURL()}
	if !slices.ContainsFunc(is.Labels, func(l *github.Label) bool { return l.GetName() == Label }) {
		o.Note = fmt.Sprintf("GitHub did not apply the label %s (it drops labels the token may not set or create); without it the next failure opens another issue: create the label once under Issues → Labels", Label)
	}
	return o, nil
}

// title is a new issue's title: Title, or "failing every run since" for
// a persistent failure.
func (r *Reporter) title() string {
	if p := r.hs.Persistent; p != nil {
		return titleWith(r.run, persistentWhat(p))
	}
	return Title(r.run)
}

// Recovered reports a success: it comments on the open failure issue of the
// job and closes it as completed (every such issue, should there be more
// than one). With none open it writes nothing and returns None.
func (r *Reporter) Recovered(ctx context.Context) (Outcome, error) {
	if err := ghapi.CheckRepo(r.run.Owner, r.run.Repo); err != nil {
		return Outcome{Action: None}, err
	}
	open, err := r.find(ctx)
	if err != nil {
		return Outcome{Action: None}, err
	}
	if len(open) == 0 {
		return Outcome{Action: None}, nil
	}
	done := Outcome{Action: None}
	for i, is := range open {
		n := is.GetNumber()
		if _, _, err := r.gh.Issues.CreateComment(ctx, r.run.Owner, r.run.Repo, n, &github.IssueComment{
			Body: github.String(recoveredComment(r.run)),
		}); err != nil {
			return done, r.fail(fmt.Sprintf("comment on issue #%d", n), err)
		}
		if i == 0 {
			done = Outcome{Action: Commented, Number: n, URL: is.GetHTMLURL()}
		}
		closed, _, err := r.gh.Issues.Edit(ctx, r.run.Owner, r.run.Repo, n, &github.IssueRequest{
			State:       github.String("closed"),
			StateReason: github.String("completed"),
		})
		if err != nil {
			return done, r.fail(fmt.Sprintf("close issue #%d", n), err)
		}
		if i == 0 {
			done = Outcome{Action: Closed, Number: n, URL: firstNonEmpty(closed.GetHTMLURL(), is.GetHTMLURL())}
		}
	}
	if len(open) > 1 {
		done.Note = "also closed " + numbers(open[1:])
	}
	return done, nil
}

// find returns the open issues (not pull requests) labelled retrywise whose
// body holds the job's marker, oldest first. The list is read within
// maxPages pages and maxFound issues of the job; a list cut at a bound (or
// at a next link that repeats a page) is an error wrapping the *ghapi.Cut:
// the job's issue may be behind the cut.
func (r *Reporter) find(ctx context.Context) ([]*github.Issue, error) {
	marker := Marker(r.run)
	op := "list the open issues labelled " + Label
	found, cut, err := ghapi.Walk(ctx, ghapi.Pages{What: "the open issues labelled " + Label, PerPage: perPage, MaxPages: maxPages, MaxItems: maxFound},
		func(ctx context.Context, page int) ([]*github.Issue, *github.Response, error) {
			opts := &github.IssueListByRepoOptions{
				State:       "open",
				Labels:      []string{Label},
				ListOptions: github.ListOptions{Page: page, PerPage: perPage},
			}
			if page == 1 {
				opts.Page = 0 // as GitHub's own first page: no page= parameter
			}
			issues, resp, err := r.gh.Issues.ListByRepo(ctx, r.run.Owner, r.run.Repo, opts)
			if err != nil {
				return nil, nil, r.fail(op, err)
			}
			var mine []*github.Issue
			for _, is := range issues {
				if !is.IsPullRequest() && strings.Contains(is.GetBody(), marker) {
					mine = append(mine, is)
				}
			}
			return mine, resp, nil
		})
	switch {
	case err != nil:
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, &Error{Op: op, Repository: r.run.Repository(), Err: err}
	case cut != nil:
		return nil, &Error{Op: op, Repository: r.run.Repository(), Err: cut}
	}
	slices.SortFunc(found, func(a, b *github.Issue) int { return a.GetNumber() - b.GetNumber() })
	return found, nil
}

// fail wraps err, an error of go-github, as an *Error.
func (r *Reporter) fail(op string, err error) error {
	e := &Error{Op: op, Repository: r.run.Repository(), Err: err}
	var (
		rle   *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &rle):
		e.Status = statusOf(rle.Response)
	case errors.As(err, &abuse):
		e.Status = statusOf(abuse.Response)
	case errors.As(err, &er):
		e.Status = statusOf(er.Response)
		if e.Status == http.StatusForbidden {
			e.Permission = "issues: write"
		}
	}
	return e
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// Error is a refused or failed call of GitHub's issue API. Its text never
// holds a token: go-github's errors carry the URL, never the headers, and
// the text is masked by redact's patterns besides.
type Error struct {
	// Op is what was being done, such as "open an issue" or "close issue #12".
	Op string
	// Repository is owner/repo.
	Repository string
	// Status is GitHub's HTTP status, 0 when no answer came.
	Status int
	// Permission is the job permission the token lacks ("issues: write") when GitHub answered 403 outside a rate limit, else "".
	Permission string
	// Err is go-github's error; errors.As reaches its *github.ErrorResponse or rate-limit error (for ghapi.Classify).
	Err error
}

// Error says what failed, GitHub's answer and what to do.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "could not %s in %s: ", e.Op, e.Repository)
	var (
		rle   *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(e.Err, &rle):
		fmt.Fprintf(&b, "HTTP %d: the API rate limit (%d requests an hour) is spent until %s", e.Status, rle.Rate.Limit, rle.Rate.Reset.UTC().Format(time.RFC3339))
	case errors.As(e.Err, &abuse):
		fmt.Fprintf(&b, "HTTP %d: GitHub's secondary rate limit: %s", e.Status, abuse.Message)
	case errors.As(e.Err, &er):
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if er.Message != "" {
			b.WriteString(": " + er.Message)
		}
		for _, d := range er.Errors {
			if d.Message != "" {
				b.WriteString("; " + d.Message)
			} else if d.Field != "" || d.Code != "" {
				fmt.Fprintf(&b, "; %s %s", d.Field, d.Code)
			}
		}
		b.WriteString(hint(e.Status, e.Permission))
	default:
		b.WriteString(e.Err.Error())
	}
	return new(redact.Redactor).String(b.String())
}

// Unwrap returns go-github's error.
func (e *Error) Unwrap() error { return e.Err }

// hint says what to do about an answer with status.
func hint(status int, permission string) string {
	switch {
	case permission != "":
		return fmt.Sprintf(" (the token lacks %s: give the job `permissions: %s`, or pass a token that has it)", permission, permission)
	case status == http.StatusUnauthorized:
		return " (GitHub did not accept the token)"
	case status == http.StatusNotFound:
		return " (the repository or issue is not visible to the token)"
	case status == http.StatusGone:
		return " (issues are disabled in this repository: Settings → General → Features → Issues)"
	}
	return ""
}

// duplicates is the note for more than one open failure issue of a job.
func duplicates(open []*github.Issue) string {
	if len(open) < 2 {
		return ""
	}
	return "also open for this job: " + numbers(open[1:])
}

func numbers(issues []*github.Issue) string {
	s := make([]string, len(issues))
	for i, is := range issues {
		s[i] = fmt.Sprintf("#%d", is.GetNumber())
	}
	return strings.Join(s, ", ")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
