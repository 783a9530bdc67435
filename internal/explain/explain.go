// Package explain reads a failed GitHub Actions workflow run (its jobs,
// steps and logs, through the project's ghapi client), classifies each
// failed step's output with the one classifier, offline, and decides
// whether re-running the failed jobs can help (only when every failed step
// is transient). ExplainLog explains a run from its log file instead,
// offline: the archive downloaded from the run's page, or one job's log.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// Kind is the report kind of an explained step.
const Kind = "explain"

// DefaultTail is how much of a failed step's output is classified: its last
// 64 KiB, as classify and exec keep.
const DefaultTail = 64 << 10

// MaxJobPages and MaxJobs bound the run's jobs list: 10 pages of 100, 1,000
// jobs. A list cut at a bound is said so (Result.Cut), and is not re-run.
const (
	MaxJobPages = 10
	MaxJobs     = 1000
)

// DefaultMaxReruns is --max-reruns' default.
const DefaultMaxReruns = 2

// DefaultPolicy is the retry policy of each API call: rate limits and 5xx
// are retried (after 1 s, then 3 s: within UnreachableBudget), a
// Retry-After or rate-limit reset honoured up to 10 minutes. An API that
// cannot be reached (failure.Unreachable) is not retried at all.
var DefaultPolicy = retry.Policy{
	Schedule:      []time.Duration{1 * time.Second, 3 * time.Second},
	MaxElapsed:    15 * time.Minute,
	RetryAfterCap: 10 * time.Minute,
}

// Options configures Explain.
type Options struct {
	// API is the GitHub API client (it carries the token).
	API *ghapi.Client
	// LogClient downloads the logs from the URL the API redirects to; it
	// must carry no token, and should follow redirects by retrywise's
	// policy (httpstep.NewClient). Nil means such a client of Go's default
	// transport.
	LogClient *http.Client
	// Clock drives the retry loop's waits; nil means the wall clock.
	Clock clock.Clock
	// Policy is the retry policy of each API call; zero means DefaultPolicy.
	Policy retry.Policy
	// Rand draws the waits' jitter; nil means math/rand/v2's.
	Rand func() float64
	// Progress is told of each API call that will be retried.
	Progress func(a retry.Attempt, maxAttempts int)
	// Rerun asks GitHub to re-run the failed jobs when every failed step is transient.
	Rerun bool
	// MaxReruns bounds Rerun: only a run whose run_attempt ≤ MaxReruns is re-run.
	MaxReruns int
	// Tail is how many bytes of each failed step's output are classified; 0 means DefaultTail.
	Tail int
	// Parallel is how many job logs are read at once; 0 means 4.
	Parallel int
}

// Result is an explained run.
type Result struct {
	// Report is the run's report: one step per failed step of the run.
	Report *report.Run
	// ExitCode is the exit code: the worst class's (ForClass), 0 for a
	// successful run or a run handed back for a re-run, 75 for a run still running.
	ExitCode int
	// Headline is the one-line summary.
	Headline string
	// Run is the run as the API returned it; nil when it could not be read.
	Run *github.WorkflowRun
	// Rerun is true when the failed jobs were handed back to GitHub for a re-run.
	Rerun bool
	// RerunWhy says why they were, or were not.
	RerunWhy string
	// Cut says where the jobs list was cut, at which bound (MaxJobPages,
	// MaxJobs, a page repeated); nil when it was read whole.
	Cut *ghapi.Cut
	// Worst is the worst failed step's row; nil when none failed.
	Worst *report.Step
	// LogCut says where a log file read offline was cut, at which bound
	// (ExplainLog); "" when it was read whole.
	LogCut string
	// Unread is true when explain could not read the run (or its jobs
	// list): its only row is explain's own failed API call, not a step of
	// the run, and the headline says so.
	Unread bool
}

// explainer is one Explain call.
type explainer struct {
	o   Options
	t   Target
	clk clock.Clock
	// mu serialises Progress: the jobs' logs are read in parallel.
	mu *sync.Mutex
	// calls, when set, bounds the API calls (ExplainRuns' --max-calls).
	calls *callBudget
}

// callBudget counts the API calls (every attempt of each) against a bound;
// a call past it is not sent.
type callBudget struct {
	mu        sync.Mutex
	max, used int
	hit       bool
}

// take counts one call; false when the bound is spent (the call is not sent).
func (b *callBudget) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used >= b.max {
		b.hit = true
		return false
	}
	b.used++
	return true
}

// state returns the calls made and whether one was refused.
func (b *callBudget) state() (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.hit
}

// errCallBound is the failure of a call the bound refused.
var errCallBound = errors.New("the bound on API calls was reached")

// UnreachableBudget bounds the waits of an API call that fails without
// an answer the server asked to wait for: DefaultPolicy's schedule sums
// to less.
const UnreachableBudget = 5 * time.Second

// ConnectTimeout bounds the opening of each connection to the API, its
// name's lookup included (the transport's dialer, set by internal/app): a
// dial that times out is an unreachable API (failure.Unreachable), not
// retried, so explain says so within UnreachableBudget.
const ConnectTimeout = 4 * time.Second

// APITimeout bounds each API call; LogTimeout each log download.
const (
	APITimeout = 30 * time.Second
	LogTimeout = 10 * time.Minute
)

// setDefaults fills the options left zero: the wall clock, DefaultPolicy,
// DefaultTail, 4 logs at once, a log client that follows redirects.
func (o *Options) setDefaults() {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Policy.MaxElapsed == 0 {
		o.Policy = DefaultPolicy
	}
	if o.Tail <= 0 {
		o.Tail = DefaultTail
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.LogClient == nil {
		o.LogClient = httpstep.NewClient(http.DefaultTransport, true)
	}
}

// Explain explains the run t names. It returns a Result whatever happened:
// an API failure (a missing permission, a run not found) is a row of its own.
func Explain(ctx context.Context, t Target, o Options) *Result {
	o.setDefaults()
	e := &explainer{o: o, t: t, clk: o.Clock, mu: &sync.Mutex{}}
	return e.explain(ctx)
}

func (e *explainer) explain(ctx context.Context) *Result {
	t := e.t
	start := e.clk.Now()
	rep := report.NewRun(Kind, start)
	res := &Result{Report: rep}
	finish := func(code int, headline string) *Result {
		if ctx.Err() != nil {
			// A signal stopped it: the run's record says cancelled, as
			// every command's does (Finish), and the exit is the signal's.
			code = exitcode.ForCause(ctx)
			headline = fmt.Sprintf("explain of %s cancelled (%v)", t, context.Cause(ctx))
			res.Rerun, res.RerunWhy = false, ""
		}
		res.ExitCode, res.Headline = code, headline
		rep.Finish(e.clk.Now(), code, headline)
		return res
	}
	gh := e.o.API.GitHub().Actions
	if err := ghapi.CheckRepo(t.Owner, t.Repo); err != nil {
		// Checked when the target was parsed; never a request to another path.
		return finish(exitcode.Usage, err.Error())
	}

	// The run.
	var run *github.WorkflowRun
	f := e.call(ctx, "read the run", func(ctx context.Context) (*github.Response, error) {
		var resp *github.Response
		var err error
		if t.Attempt > 0 {
			run, resp, err = gh.GetWorkflowRunAttempt(ctx, t.Owner, t.Repo, t.RunID, t.Attempt, nil)
		} else {
			run, resp, err = gh.GetWorkflowRunByID(ctx, t.Owner, t.Repo, t.RunID)
		}
		return resp, err
	})
	if f != nil {
		row := e.apiRow(ctx, "read the run", "read the run "+t.String(), f)
		rep.Steps = append(rep.Steps, row)
		res.Worst, res.Unread = row, true
		return finish(row.ExitCode, unreadHeadline(t, "read the run", f, row))
	}
	res.Run = run
	attempt := run.GetRunAttempt()
	if run.GetStatus() != "completed" {
		return finish(exitcode.Transient, fmt.Sprintf("run %d is still running (status %s): explain it once it has completed", t.RunID, run.GetStatus()))
	}
	switch run.GetConclusion() {
	case "success", "skipped", "neutral":
		return finish(exitcode.OK, fmt.Sprintf("run %d (attempt %d) concluded %s: nothing to explain", t.RunID, attempt, run.GetConclusion()))
	}

	// Its jobs, every page within the bounds.
	jobs, cut, err := e.listJobs(ctx, t.Attempt)
	if err != nil {
		var f *failure.Failure
		if !errors.As(err, &f) {
			f = failure.FromError(err)
		}
		row := e.apiRow(ctx, "list the jobs", "list the jobs of "+t.String(), f)
		rep.Steps = append(rep.Steps, row)
		res.Worst, res.Unread = row, true
		return finish(row.ExitCode, unreadHeadline(t, "list the run's jobs", f, row))
	}
	res.Cut = cut

	// Each failed job's log, a few at once; rows in the jobs' order.
	rows, _ := e.failedRows(ctx, jobs, attempt)
	rep.Steps = append(rep.Steps, rows...)
	if len(rep.Steps) == 0 && cut != nil {
		return finish(exitcode.Unknown, fmt.Sprintf("run %d (attempt %d) concluded %s, but none of the jobs read failed: %s, so the failed jobs were not found", t.RunID, attempt, run.GetConclusion(), cut.Error()))
	}
	if len(rep.Steps) == 0 {
		return finish(exitcode.OK, fmt.Sprintf("run %d (attempt %d) concluded %s, but no job failed: nothing to explain", t.RunID, attempt, run.GetConclusion()))
	}
	worst, code, headline := summarise(rep.Steps)
	res.Worst = worst

	if cut != nil {
		headline += "; " + cut.Error()
	}
	if e.o.Rerun && ctx.Err() == nil {
		res.Rerun, res.RerunWhy = e.rerun(ctx, rep.Steps, attempt, cut)
		if res.Rerun {
			code = exitcode.OK
		}
		for _, s := range rep.Steps {
			s.Outputs["rerun"] = res.Rerun
		}
		headline += "; " + res.RerunWhy
	}
	return finish(code, headline)
}

// isFailure reports whether a job's conclusion is one to explain.
func isFailure(c string) bool {
	switch c {
	case "failure", "timed_out", "startup_failure":
		return true
	}
	return false
}

// listJobs reads the run's jobs (of attempt, 0 for the latest), every
// page within MaxJobPages and MaxJobs.
func (e *explainer) listJobs(ctx context.Context, attempt int) ([]*github.WorkflowJob, *ghapi.Cut, error) {
	t := e.t
	gh := e.o.API.GitHub().Actions
	return ghapi.Walk(ctx, ghapi.Pages{What: "the run's jobs", PerPage: 100, MaxPages: MaxJobPages, MaxItems: MaxJobs},
		func(ctx context.Context, page int) ([]*github.WorkflowJob, *github.Response, error) {
			var js *github.Jobs
			var last *github.Response
			f := e.call(ctx, "list the run's jobs", func(ctx context.Context) (*github.Response, error) {
				var resp *github.Response
				var err error
				lo := github.ListOptions{Page: page, PerPage: 100}
				if attempt > 0 {
					js, resp, err = gh.ListWorkflowJobsAttempt(ctx, t.Owner, t.Repo, t.RunID, int64(attempt), &lo)
				} else {
					js, resp, err = gh.ListWorkflowJobs(ctx, t.Owner, t.Repo, t.RunID, &github.ListWorkflowJobsOptions{ListOptions: lo})
				}
				last = resp
				return resp, err
			})
			if f != nil {
				return nil, nil, f
			}
			return js.Jobs, last, nil
		})
}

// failedRows explains each failed job of jobs (of attempt), a few at once:
// its rows in the jobs' order, and the rows of the jobs whose logs could
// not be read (each such job is one row, of the failed call).
func (e *explainer) failedRows(ctx context.Context, jobs []*github.WorkflowJob, attempt int) ([]*report.Step, map[*report.Step]bool) {
	var failed []*github.WorkflowJob
	for _, j := range jobs {
		if isFailure(j.GetConclusion()) {
			failed = append(failed, j)
		}
	}
	rows := make([][]*report.Step, len(failed))
	unread := make([]bool, len(failed))
	sem := make(chan struct{}, e.o.Parallel)
	var wg sync.WaitGroup
	for i, j := range failed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rows[i], unread[i] = e.job(ctx, j, attempt)
		}()
	}
	wg.Wait()
	var all []*report.Step
	bad := map[*report.Step]bool{}
	for i, rs := range rows {
		all = append(all, rs...)
		if unread[i] {
			for _, r := range rs {
				bad[r] = true
			}
		}
	}
	return all, bad
}

// summarise returns the worst of the failed steps' rows (at least one),
// its exit code and the headline that names it.
func summarise(steps []*report.Step) (*report.Step, int, string) {
	worst := steps[0]
	for _, s := range steps[1:] {
		if rank(s.Class) > rank(worst.Class) {
			worst = s
		}
	}
	headline := fmt.Sprintf("%s: %s (%s)", worst.ID, worst.Class, worst.Reason)
	if n := len(steps); n > 1 {
		headline = fmt.Sprintf("%d failed steps; worst %s", n, headline)
	}
	return worst, worst.ExitCode, headline
}

// rank orders the classes from the least to the worst: what waiting can
// fix, then what is not there, then what nothing recognised, then what
// must change.
func rank(class failure.Class) int {
	switch class {
	case failure.Transient:
		return 1
	case failure.Absent:
		return 2
	case failure.Unknown:
		return 3
	case failure.Structural:
		return 4
	case failure.Policy:
		return 5
	}
	return 0
}

// job explains one failed job: one row per failed step (one for the job
// when no step failed, as a job that timed out or never started); unread is
// true when its log could not be read (the one row is that call's).
func (e *explainer) job(ctx context.Context, j *github.WorkflowJob, attempt int) (rows []*report.Step, unread bool) {
	t := e.t
	spans := make([]StepSpan, len(j.Steps))
	var keep []int
	for i, s := range j.Steps {
		spans[i] = StepSpan{Name: s.GetName(), Start: s.GetStartedAt().Time, End: s.GetCompletedAt().Time}
		if s.GetConclusion() == "failure" {
			spans[i].Keep = true
			keep = append(keep, i)
		}
	}
	target := fmt.Sprintf("%s (job %d)", j.GetName(), j.GetID())

	var logURL string
	f := e.call(ctx, "get the job's log", func(ctx context.Context) (*github.Response, error) {
		u, resp, err := e.o.API.JobLogURL(ctx, t.Owner, t.Repo, j.GetID())
		if err == nil {
			logURL = u.String()
		}
		return resp, err
	})
	var split *Split
	if f == nil {
		f = e.call(ctx, downloadLog, func(ctx context.Context) (*github.Response, error) {
			var err error
			split, err = e.download(ctx, logURL, spans)
			return nil, err
		})
	}
	if f != nil {
		f = logFailure(f)
		row := e.apiRow(ctx, j.GetName(), target, f)
		row.Outputs = map[string]any{"job": j.GetName(), "job_id": j.GetID(), "step": "", "attempt": attempt}
		return []*report.Step{row}, true
	}

	if len(keep) == 0 {
		// No step failed: the job itself did (timed out, cancelled, never started).
		return []*report.Step{e.row(j, "", -1, split.Last.String(), split, attempt, target)}, false
	}
	for _, i := range keep {
		text := ""
		if tl := split.Tails[i]; tl != nil {
			text = tl.String()
		} else {
			text = split.Last.String()
		}
		rows = append(rows, e.row(j, j.Steps[i].GetName(), i, text, split, attempt, target))
	}
	return rows, false
}

// row classifies one failed step's output.
func (e *explainer) row(j *github.WorkflowJob, step string, idx int, text string, split *Split, attempt int, target string) *report.Step {
	r := stepRow(failedJob{Name: j.GetName(), Conclusion: j.GetConclusion(), Target: target, Ended: j.GetCompletedAt().Time, Now: e.clk.Now(),
		Outputs: map[string]any{"job": j.GetName(), "job_id": j.GetID(), "step": step, "attempt": attempt}},
		step, text, split.Groups[idx])
	if split.Size > int64(e.o.Tail) {
		r.Notes = append(r.Notes, fmt.Sprintf("the job's log was %d bytes; the step's last %d were classified", split.Size, e.o.Tail))
	}
	return r
}

// failedJob is what a failed step's row says of its job, read through the
// API or from a log file.
type failedJob struct {
	Name string
	// Conclusion is the job's conclusion as the API gives it; "" when
	// read from a log file.
	Conclusion string
	// Target is the row's target.
	Target string
	// Outputs are the row's outputs (the step's name is added).
	Outputs map[string]any
	// Ended is when the job ended, and Now the explainer's time: a spent
	// limit's reset is judged between them. Zero when not known (a log file).
	Ended, Now time.Time
}

// stepRow classifies one failed step's output (text, its tail), the one
// classification path of explain, online and offline: the tool guessed
// from the step's name and its "Run …" groups, the exit code from the
// runner's "Process completed with exit code N".
func stepRow(j failedJob, step, text string, groups []string) *report.Step {
	tool := guessTool(step, groups)
	fl := failure.FromText(tool, text, ExitCodeOf(text))
	if !j.Ended.IsZero() {
		// a spent limit is judged against now: a reset already past (the wait
		// the log states, counted from when the job ended) makes a re-run useful
		fl = failure.ResetPassed(fl, j.Ended, j.Now)
	}
	if j.Conclusion == "timed_out" && step == "" {
		fl = failure.New(failure.Transient, failure.CodeTimeout, "the job hit its timeout-minutes", "raise the job's timeout-minutes, or find what made it slow; a re-run may pass", "conclusion: timed_out")
	}
	id := j.Name
	if step != "" {
		id += " / " + step
	}
	code := exitcode.ForClass(fl.Class, false)
	r := &report.Step{
		ID: id, Kind: Kind, Target: j.Target, Result: report.Failure,
		Class: fl.Class, Code: fl.Code, Decision: string(fl.Class.Decision()), Stop: retry.StopNotRetryable,
		Reason: fl.Reason, Remedy: fl.Remedy, ExitCode: code, Attempts: []retry.Attempt{},
		Outputs: j.Outputs,
	}
	for _, ev := range fl.Evidence {
		r.Evidence = append(r.Evidence, failure.Printable(ev))
	}
	if p := hindsight.Marked(text); p != nil && fl.Class == failure.Transient {
		r.Persistent = p
		r.Notes = append(r.Notes, fmt.Sprintf("retrywise marked this step persistent in the run: the same failure in %d runs since %s", p.Runs, p.Since.UTC().Format(time.RFC3339)))
	}
	switch fl.Class {
	case failure.Transient:
		r.Detail = "waiting can fix this: a re-run may pass"
		r.Remedy = report.WithoutRetrying(r.Remedy)
		if r.Remedy != "" {
			r.Remedy += "; "
		}
		r.Remedy += "re-run the failed jobs (--rerun does when every failed step is transient)"
	case failure.Unknown:
		r.Detail = "not recognised: nothing says a re-run would pass, so it is not re-run"
	default:
		r.Detail = "a re-run would fail the same way"
	}
	if tool != failure.ToolAuto {
		r.Notes = append(r.Notes, "classified as "+string(tool)+" output (guessed from the step)")
	}
	return r
}

// guessTool guesses who printed a step's output from its name and its
// "Run …" groups: the first word of a command that ToolOf knows.
func guessTool(step string, groups []string) failure.Tool {
	for _, s := range append([]string{step}, groups...) {
		s = strings.TrimPrefix(strings.TrimSpace(s), "Run ")
		for i, w := range strings.Fields(s) {
			if i >= 4 {
				break
			}
			w = strings.Trim(w, "\"'`;(){}")
			if t := failure.ToolOf(w); t != failure.ToolAuto {
				return t
			}
		}
	}
	return failure.ToolAuto
}

// download reads a job's log from url, with the log client (no token), as
// a stream.
func (e *explainer) download(ctx context.Context, url string, spans []StepSpan) (*Split, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if sc := req.URL.Scheme; sc != "http" && sc != "https" {
		// The URL is a redirect's Location: another scheme is never followed.
		return nil, &failure.RedirectSchemeError{Scheme: sc}
	}
	resp, err := e.o.LogClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, failure.FromHTTP(failure.Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Now: e.clk.Now()})
	}
	return SplitLog(resp.Body, spans, e.o.Tail)
}

// downloadLog is the call that downloads a log, bounded by LogTimeout.
const downloadLog = "download the job's log"

// call runs one API call in the retry loop: rate limits and 5xx are waited
// for (Retry-After and resets honoured); it returns the final failure, or nil.
func (e *explainer) call(ctx context.Context, what string, fn func(ctx context.Context) (*github.Response, error)) *failure.Failure {
	c := &retry.Coordinator{Policy: e.o.Policy, Clock: e.clk, Rand: e.o.Rand}
	if p := e.o.Progress; p != nil {
		c.Progress = func(a retry.Attempt, max int) {
			e.mu.Lock()
			defer e.mu.Unlock()
			p(a, max)
		}
	}
	timeout := APITimeout
	if what == downloadLog {
		timeout = LogTimeout
	}
	out, err := c.Run(ctx, apiCall(func(ctx context.Context, n int) error {
		if e.calls != nil && what != downloadLog && !e.calls.take() {
			f := failure.New(failure.Transient, failure.CodeMaxElapsed, "not sent: "+errCallBound.Error(), "")
			f.Err = errCallBound
			return f
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp, err := fn(ctx)
		if err == nil {
			return nil
		}
		return e.classify(err, resp)
	}))
	if err != nil {
		return failure.FromError(err)
	}
	if out.OK() {
		return nil
	}
	if out.Final == nil {
		return failure.FromError(fmt.Errorf("cannot %s", what))
	}
	return out.Final
}

// apiCall is one API call of the retry loop: a failure the loop would
// retry is, unless the API could not be reached at all (failure.Unreachable):
// a name that does not resolve or a refused connection is not fixed by
// waiting within a run, so explain gives up at once.
type apiCall func(ctx context.Context, n int) error

// Attempt performs attempt n.
func (c apiCall) Attempt(ctx context.Context, n int) error { return c(ctx, n) }

// CanRetry refuses an unreachable API.
func (apiCall) CanRetry(f *failure.Failure) (bool, string) {
	if errors.Is(f, errCallBound) {
		return false, errCallBound.Error()
	}
	if failure.Unreachable(f) {
		return false, "explain could not reach the GitHub API: waiting does not fix that within a run"
	}
	return true, ""
}

// MaxAPIMessage bounds the API's message quoted in a headline, in bytes.
const MaxAPIMessage = 200

// apiMessage is the message field of the API's answer to f's request,
// printable and at most MaxAPIMessage bytes; "" when it gave none.
func apiMessage(f *failure.Failure) string {
	var er *github.ErrorResponse
	if !errors.As(f, &er) || er.Message == "" {
		return ""
	}
	return redact.Clip(strings.TrimSpace(failure.Printable(er.Message)), MaxAPIMessage)
}

// unreadHeadline says that explain could not read the run (what it tried,
// what the API said, or that the API could not be reached): explain's own
// failure, never one of the run's steps.
func unreadHeadline(t Target, what string, f *failure.Failure, row *report.Step) string {
	if row.Result == report.Cancelled {
		return "cancelled" // finish says by what
	}
	row.Detail = fmt.Sprintf("explain could not read the run (it could not %s): this is explain's failure, not a step of the run", what)
	if failure.Unreachable(f) {
		row.Stop = retry.StopCannotRetry
		row.Remedy = "explain gave up at once (waiting does not fix this within a run): check the API's address ($GITHUB_API_URL, the run URL's host), the network, proxy and resolver, then run explain again"
		return fmt.Sprintf("explain could not read the run %s: explain could not reach the GitHub API (%s)", t, row.Reason)
	}
	h := fmt.Sprintf("explain could not read the run %s: %s", t, row.Reason)
	if what != "read the run" {
		h = fmt.Sprintf("explain could not read the run %s (it could not %s): %s", t, what, row.Reason)
	}
	if n := status(f); n != 0 {
		h += fmt.Sprintf(" (the API answered HTTP %d", n)
		if m := apiMessage(f); m != "" {
			// Quoted as is, never escaped: the masking that follows
			// (the front-ends' redactor) must still see any secret in it.
			h += ": \"" + m + "\""
		}
		h += ")"
	}
	return h
}

// classify turns an API error into a failure: go-github's errors through
// ghapi.Classify; an answer JobLogURL did not want (it returns a bare
// error) by its status and headers.
func (e *explainer) classify(err error, resp *github.Response) *failure.Failure {
	var fl *failure.Failure
	if errors.As(err, &fl) {
		return fl
	}
	var rs *failure.RedirectSchemeError
	if errors.As(err, &rs) {
		return failure.FromError(err)
	}
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if !errors.As(err, &er) && !errors.As(err, &rl) && !errors.As(err, &ab) && resp != nil && resp.Response != nil && resp.StatusCode >= 300 {
		f := failure.FromHTTP(failure.Response{Status: resp.StatusCode, Header: resp.Header, Now: e.clk.Now()})
		f.Err = err
		return f
	}
	return ghapi.Classify(err, e.clk.Now())
}

// apiRow is the row of an API call that failed; of one the context stopped
// (a signal during the call, or before it), the row is cancelled, with the
// signal's exit code and no class: what failed was the wait, not the run.
func (e *explainer) apiRow(ctx context.Context, id, target string, f *failure.Failure) *report.Step {
	if ctx.Err() != nil {
		return &report.Step{
			ID: id, Kind: Kind, Target: target, Result: report.Cancelled, Stop: retry.StopCancelled,
			Detail: "cancelled (" + context.Cause(ctx).Error() + ")", ExitCode: exitcode.ForCause(ctx),
			Attempts: []retry.Attempt{}, Outputs: map[string]any{},
		}
	}
	f = permission(f)
	r := &report.Step{
		ID: id, Kind: Kind, Target: target, Result: report.Failure,
		Class: f.Class, Code: f.Code, Decision: string(f.Class.Decision()), Stop: retry.StopNotRetryable,
		Reason: f.Reason, Remedy: f.Remedy, ExitCode: exitcode.ForClass(f.Class, false), Attempts: []retry.Attempt{},
		Outputs: map[string]any{},
	}
	for _, ev := range f.Evidence {
		r.Evidence = append(r.Evidence, failure.Printable(ev))
	}
	return r
}

// status returns the HTTP status a failure came from, 0 when none.
func status(f *failure.Failure) int {
	var er *github.ErrorResponse
	if errors.As(f, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	for _, ev := range f.Evidence {
		var n int
		if _, err := fmt.Sscanf(ev, "HTTP %d", &n); err == nil {
			return n
		}
	}
	return 0
}

// permission names the missing permission of a refused read.
func permission(f *failure.Failure) *failure.Failure {
	if f.Class == failure.Policy && status(f) == http.StatusForbidden {
		g := *f
		g.Reason = "the token cannot read the run: it lacks the actions: read permission (" + f.Reason + ")"
		g.Remedy = "give the token actions: read (a workflow's permissions: {actions: read}, or a fine-grained token's Actions: read)"
		return &g
	}
	return f
}

// logFailure says what a failed log download means: a 404 or 410 is a
// log that expired (or was deleted).
func logFailure(f *failure.Failure) *failure.Failure {
	switch status(f) {
	case http.StatusNotFound, http.StatusGone:
		g := *f
		g.Class = failure.Absent
		g.Reason = fmt.Sprintf("the job's log is gone (HTTP %d): logs expire after the repository's retention period (90 days by default) or were deleted", status(f))
		g.Remedy = "nothing to classify: re-run the job to get a new log, or keep logs longer (Settings → Actions → Artifact and log retention)"
		return &g
	}
	return f
}
