package explain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/report"
)

// The bounds of ExplainRuns: the runs explained (--max-runs) and the API
// calls made (--max-calls), by default and at most; the window (--since).
const (
	DefaultMaxRuns  = 100
	DefaultMaxCalls = 400
	MaxMaxRuns      = 1000
	MaxMaxCalls     = 10000
	MaxSince        = 90 * 24 * time.Hour
	// MaxRunPages bounds each list of runs: 10 pages of 100.
	MaxRunPages = 10
)

// RunsOptions configures ExplainRuns.
type RunsOptions struct {
	// Options are the API, the log client, the clock and the retry policy
	// of each call, as Explain's (Rerun and MaxReruns are not used).
	Options
	// Owner and Repo name the repository.
	Owner, Repo string
	// Workflow, when set, is the workflow's file name (ci.yml): only its runs.
	Workflow string
	// Since is the window: the runs created since now minus Since.
	Since time.Duration
	// MaxRuns bounds the runs explained; MaxCalls the API calls (every
	// attempt of each, the runs' lists included). 0 means the default.
	MaxRuns, MaxCalls int
}

// Table is the explanation of a repository's failed runs in a window:
// one row per workflow and step that failed, and the failed runs per day.
type Table struct {
	// Repo is OWNER/REPO; Workflow the workflow file asked for, "" for all.
	Repo     string `json:"repo"`
	Workflow string `json:"workflow,omitempty"`
	// Since and Until are the window.
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// Runs counts the runs explained: Failed that failed (their latest
	// attempt), PassedOnRerun that failed and then passed on a re-run
	// (their attempt 1 explained).
	Runs          int `json:"runs"`
	Failed        int `json:"failed"`
	PassedOnRerun int `json:"passed_on_rerun"`
	// Listed counts the candidate runs the lists held (within their bounds).
	Listed int `json:"listed"`
	// Unread counts the runs and jobs whose jobs or logs could not be read.
	Unread int `json:"unread"`
	// Calls counts the API calls made.
	Calls int `json:"calls"`
	// Complete is true when every run of the window was read; Cut says
	// otherwise what cut the table short (a bound, the API).
	Complete bool   `json:"complete"`
	Cut      string `json:"cut,omitempty"`
	// Rows are the failed steps, by workflow, job and step.
	Rows []*Row `json:"rows"`
	// Days are the failed runs per day (UTC) of the window, by class (the
	// worst of the run's failed steps).
	Days []Day `json:"days"`
	// ExitCode is 0 for a complete table, 75 for one cut short, the API's
	// class's when the runs could not be listed at all.
	ExitCode int `json:"exit_code"`
	// Headline is the one-line summary.
	Headline string `json:"headline"`

	// perDay counts the failed runs by day and class.
	perDay map[string]map[string]int
}

// Row is one workflow's step that failed in the window.
type Row struct {
	Workflow   string `json:"workflow"`
	WorkflowID int64  `json:"workflow_id"`
	Job        string `json:"job"`
	// Step is the failed step's name; "" for a job that failed without a
	// failed step (it timed out, it never started).
	Step string `json:"step"`
	// Classes and Codes count the runs by the step's class and code.
	Classes map[string]int `json:"classes"`
	Codes   map[string]int `json:"codes"`
	// Runs counts the runs the step failed in; Rerun those of them that
	// were re-run (more than one attempt); RerunPassed those whose re-run passed.
	Runs        int `json:"runs"`
	Rerun       int `json:"rerun"`
	RerunPassed int `json:"rerun_passed"`
	// Persistent, when set, is the longest streak of consecutive runs the
	// step failed in with one transient fingerprint, when it is at least
	// hindsight.DefaultAfter runs: a retry would only have delayed it.
	Persistent *Streak `json:"persistent,omitempty"`
	// LastRun is the URL of the newest run it failed in.
	LastRun string `json:"last_run"`
}

// Streak is a step's consecutive runs with one fingerprint.
type Streak struct {
	failure.Fingerprint
	// Code is the newest run's code.
	Code failure.Code `json:"code"`
	// Runs counts the runs; Since and Until are the first's and last's creation.
	Runs  int       `json:"runs"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// Day is one day's failed runs by class.
type Day struct {
	// Date is the day, YYYY-MM-DD (UTC).
	Date    string         `json:"date"`
	Classes map[string]int `json:"classes"`
}

// reDays is --since's days form: N days.
var reDays = regexp.MustCompile(`^([0-9]{1,3})d$`)

// ParseSince parses --since: a Go duration (36h) or N days (7d), more than
// 0 and at most MaxSince.
func ParseSince(s string) (time.Duration, error) {
	var d time.Duration
	if m := reDays.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--since %q: want a duration such as 36h or a number of days such as 7d", s)
		}
	}
	if d <= 0 || d > MaxSince {
		return 0, fmt.Errorf("--since %q: want more than 0 and at most 90d", s)
	}
	return d, nil
}

// reWorkflowFile is a workflow's file name, one path segment.
var reWorkflowFile = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}\.ya?ml$`)

// CheckWorkflow checks --workflow: a workflow's file name (ci.yml), or its
// path under .github/workflows/; it returns the file name.
func CheckWorkflow(s string) (string, error) {
	f := strings.TrimPrefix(s, ".github/workflows/")
	if !reWorkflowFile.MatchString(f) || f == "." || f == ".." {
		return "", fmt.Errorf("--workflow %q: want a workflow's file name, such as ci.yml", s)
	}
	return f, nil
}

// candidate is a run to explain: a failed one, or one that passed on a
// re-run (its attempt 1 is explained).
type candidate struct {
	run    *github.WorkflowRun
	passed bool
}

// runFailure is one explained run's failed steps.
type runFailure struct {
	c    candidate
	rows []*report.Step
}

// ExplainRuns explains the failed runs of a repository (or of one of its
// workflows) in a window, and the runs that failed and then passed on a
// re-run, within the bounds: each failed step classified as Explain does,
// one table. It returns a Table whatever happened.
func ExplainRuns(ctx context.Context, o RunsOptions) *Table {
	o.setDefaults()
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	now := o.Clock.Now().UTC()
	tb := &Table{Repo: o.Owner + "/" + o.Repo, Workflow: o.Workflow, Since: now.Add(-o.Since), Until: now, Rows: []*Row{}, Days: []Day{}}
	budget := &callBudget{max: o.MaxCalls}
	e := &explainer{o: o.Options, t: Target{Owner: o.Owner, Repo: o.Repo}, clk: o.Clock, mu: &sync.Mutex{}, calls: budget}
	var cuts []string
	finish := func(code int) *Table {
		tb.Calls, _ = budget.state()
		tb.Complete = len(cuts) == 0 && code == exitcode.OK
		tb.Cut = strings.Join(cuts, "; ")
		if ctx.Err() != nil {
			code = exitcode.ForCause(ctx)
			tb.Complete = false
			tb.Cut = strings.Join(append(cuts, "cancelled ("+context.Cause(ctx).Error()+")"), "; ")
		}
		tb.ExitCode = code
		tb.Headline = tb.headline()
		tb.days()
		return tb
	}
	if err := ghapi.CheckRepo(o.Owner, o.Repo); err != nil {
		cuts = append(cuts, err.Error())
		return finish(exitcode.Usage)
	}
	bound := func() bool {
		if _, hit := budget.state(); hit {
			cuts = appendOnce(cuts, fmt.Sprintf("--max-calls %d: the bound on API calls was reached", o.MaxCalls))
			return true
		}
		return false
	}

	// The two lists: the failed runs, and the runs that passed (those on a
	// re-run are explained; every pass ends a streak).
	created := ">=" + tb.Since.Format(time.RFC3339)
	list := func(status, what string, maxItems int) ([]*github.WorkflowRun, *ghapi.Cut, error) {
		gh := e.o.API.GitHub().Actions
		return ghapi.Walk(ctx, ghapi.Pages{What: what, PerPage: 100, MaxPages: MaxRunPages, MaxItems: maxItems},
			func(ctx context.Context, page int) ([]*github.WorkflowRun, *github.Response, error) {
				var rs *github.WorkflowRuns
				var last *github.Response
				f := e.call(ctx, "list the runs", func(ctx context.Context) (*github.Response, error) {
					lo := &github.ListWorkflowRunsOptions{Status: status, Created: created, ListOptions: github.ListOptions{Page: page, PerPage: 100}}
					var resp *github.Response
					var err error
					if o.Workflow != "" {
						rs, resp, err = gh.ListWorkflowRunsByFileName(ctx, o.Owner, o.Repo, o.Workflow, lo)
					} else {
						rs, resp, err = gh.ListRepositoryWorkflowRuns(ctx, o.Owner, o.Repo, lo)
					}
					last = resp
					return resp, err
				})
				if f != nil {
					return nil, nil, f
				}
				return rs.WorkflowRuns, last, nil
			})
	}
	// The newest failed runs, --max-runs of them (more are not read).
	failedRuns, fcut, err := list("failure", "the failed runs", o.MaxRuns)
	if err != nil {
		if bound() {
			return finish(exitcode.Transient)
		}
		f := listFailure(err)
		cuts = append(cuts, "the failed runs could not be listed: "+permission(f).Reason)
		if len(failedRuns) == 0 && f.Class != failure.Transient && f.Class != failure.Unknown {
			return finish(exitcode.ForClass(f.Class, false))
		}
		return finish(exitcode.Transient)
	}
	maxRunsCut := func() string {
		return fmt.Sprintf("--max-runs %d: more runs failed in the window, the newest %d were read", o.MaxRuns, o.MaxRuns)
	}
	switch {
	case fcut != nil && fcut.Why == ghapi.CutItems:
		cuts = append(cuts, maxRunsCut())
	case fcut != nil:
		cuts = append(cuts, fcut.Error())
	}
	passedRuns, pcut, err := list("success", "the passed runs", MaxRunPages*100)
	switch {
	case err != nil && bound():
	case err != nil:
		cuts = append(cuts, "the passed runs could not be listed (which failed runs passed on a re-run, and which streaks a pass ended, is not known): "+permission(listFailure(err)).Reason)
	case pcut != nil:
		cuts = append(cuts, pcut.Error())
	}
	var cands []candidate
	for _, r := range failedRuns {
		cands = append(cands, candidate{run: r})
	}
	for _, r := range passedRuns {
		if r.GetRunAttempt() > 1 {
			cands = append(cands, candidate{run: r, passed: true})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		return cands[i].run.GetCreatedAt().After(cands[j].run.GetCreatedAt().Time)
	})
	tb.Listed = len(cands)
	if len(cands) > o.MaxRuns {
		cuts = appendOnce(cuts, maxRunsCut())
		cands = cands[:o.MaxRuns]
	}

	// Each run, newest first, until a bound.
	var done []runFailure
	for _, c := range cands {
		if ctx.Err() != nil || bound() {
			break
		}
		rows, unread := e.runRows(ctx, c)
		if bound() {
			break // this run's read was cut: it is left out
		}
		if unread > 0 {
			tb.Unread += unread
			cuts = appendOnce(cuts, "the API: some runs' jobs or logs could not be read (unread counts them)")
		}
		if len(rows) == 0 && unread > 0 {
			continue
		}
		done = append(done, runFailure{c: c, rows: rows})
		tb.Runs++
		if c.passed {
			tb.PassedOnRerun++
		} else {
			tb.Failed++
		}
	}
	tb.rows(done, passedRuns)
	if len(cuts) > 0 {
		return finish(exitcode.Transient)
	}
	return finish(exitcode.OK)
}

// appendOnce appends s to list unless it is there.
func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// listFailure is the failure a list of runs ended with.
func listFailure(err error) *failure.Failure {
	var f *failure.Failure
	if !errors.As(err, &f) {
		f = failure.FromError(err)
	}
	return f
}

// runRows explains one run: a failed run's latest attempt, or attempt 1
// of one that passed on a re-run; its failed steps' rows, and how many of
// its jobs (or the run itself) could not be read.
func (e *explainer) runRows(ctx context.Context, c candidate) ([]*report.Step, int) {
	re := *e
	re.t.RunID = c.run.GetID()
	attempt := c.run.GetRunAttempt()
	if c.passed {
		attempt = 1
		var first *github.WorkflowRun
		gh := e.o.API.GitHub().Actions
		if f := re.call(ctx, "read the run's attempt 1", func(ctx context.Context) (*github.Response, error) {
			var resp *github.Response
			var err error
			first, resp, err = gh.GetWorkflowRunAttempt(ctx, re.t.Owner, re.t.Repo, re.t.RunID, 1, nil)
			return resp, err
		}); f != nil {
			return nil, 1
		}
		if !isFailure(first.GetConclusion()) {
			return nil, 0 // cancelled, say: nothing failed to explain
		}
		re.t.Attempt = 1
	}
	jobs, _, err := re.listJobs(ctx, re.t.Attempt)
	if err != nil {
		return nil, 1
	}
	rows, unread := re.failedRows(ctx, jobs, attempt)
	var kept []*report.Step
	for _, r := range rows {
		if !unread[r] {
			kept = append(kept, r)
		}
	}
	return kept, len(unread)
}

// rows builds the table's rows from the runs explained (newest first) and
// the runs that passed (which end streaks).
func (tb *Table) rows(done []runFailure, passed []*github.WorkflowRun) {
	type key struct {
		wf        int64
		job, step string
	}
	by := map[key]*Row{}
	var order []key
	for _, d := range done {
		run := d.c.run
		seen := map[key]bool{}
		for _, s := range d.rows {
			k := key{run.GetWorkflowID(), fmt.Sprint(s.Outputs["job"]), fmt.Sprint(s.Outputs["step"])}
			r := by[k]
			if r == nil {
				r = &Row{Workflow: run.GetName(), WorkflowID: run.GetWorkflowID(), Job: k.job, Step: k.step, Classes: map[string]int{}, Codes: map[string]int{}, LastRun: run.GetHTMLURL()}
				by[k] = r
				order = append(order, k)
			}
			if seen[k] {
				continue // a step counts once a run
			}
			seen[k] = true
			r.Runs++
			r.Classes[s.Class.String()]++
			r.Codes[string(s.Code)]++
			if run.GetRunAttempt() > 1 {
				r.Rerun++
				if d.c.passed {
					r.RerunPassed++
				}
			}
		}
	}

	// Streaks: each workflow's runs oldest first; a run that passed (at
	// first or on a re-run) or failed in other steps ends a step's streak.
	type event struct {
		at     time.Time
		wf     int64
		passed bool
		fps    map[key]*report.Step
	}
	var evs []event
	for _, d := range done {
		ev := event{at: d.c.run.GetCreatedAt().Time, wf: d.c.run.GetWorkflowID(), passed: d.c.passed, fps: map[key]*report.Step{}}
		for _, s := range d.rows {
			ev.fps[key{ev.wf, fmt.Sprint(s.Outputs["job"]), fmt.Sprint(s.Outputs["step"])}] = s
		}
		evs = append(evs, ev)
	}
	for _, p := range passed {
		if p.GetRunAttempt() == 1 {
			evs = append(evs, event{at: p.GetCreatedAt().Time, wf: p.GetWorkflowID(), passed: true})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	cur := map[key]*Streak{}
	for _, ev := range evs {
		for _, k := range order {
			if k.wf != ev.wf {
				continue
			}
			s, failed := ev.fps[k]
			if ev.passed || !failed {
				delete(cur, k)
				continue
			}
			fp := RowFingerprint(s)
			st := cur[k]
			if st == nil || st.Fingerprint != fp {
				st = &Streak{Fingerprint: fp, Since: ev.at}
				cur[k] = st
			}
			st.Runs++
			st.Until, st.Code = ev.at, s.Code
			r := by[k]
			if fp.Class == failure.Transient && st.Runs >= hindsight.DefaultAfter && (r.Persistent == nil || st.Runs >= r.Persistent.Runs) {
				cp := *st
				r.Persistent = &cp
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := by[order[i]], by[order[j]]
		if a.Workflow != b.Workflow {
			return a.Workflow < b.Workflow
		}
		if a.Job != b.Job {
			return a.Job < b.Job
		}
		return a.Step < b.Step
	})
	for _, k := range order {
		tb.Rows = append(tb.Rows, by[k])
	}

	// Failed runs per day, by the run's worst class.
	tb.perDay = map[string]map[string]int{}
	for _, d := range done {
		if len(d.rows) == 0 {
			continue
		}
		worst, _, _ := summarise(d.rows)
		day := d.c.run.GetCreatedAt().UTC().Format(time.DateOnly)
		if tb.perDay[day] == nil {
			tb.perDay[day] = map[string]int{}
		}
		tb.perDay[day][worst.Class.String()]++
	}
}
