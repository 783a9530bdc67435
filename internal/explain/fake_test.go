package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/ghapi"
)

const testToken = "ghs_testtoken0123456789abcdefABCDEF0123"

// t0 is when the fixtures' runs start.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// fStep is one step of a fixture job: its API record and its log lines.
type fStep struct {
	name       string
	conclusion string
	start, end time.Duration // from t0
	lines      []string      // log lines, without timestamps; "" lines are written as such
}

type fJob struct {
	id         int64
	name       string
	conclusion string
	steps      []fStep
	// log, when set, is served instead of the one built from the steps;
	// logStatus, when set, is the logs endpoint's answer.
	log       func(w io.Writer)
	logStatus int
}

// fakeGitHub is an httptest server speaking GitHub's REST JSON for a run,
// its jobs (paginated) and their logs (a redirect to a second server, which
// checks that no token arrives).
type fakeGitHub struct {
	t          *testing.T
	api, logs  *httptest.Server
	status     string
	conclusion string
	attempt    int
	jobs       []fJob
	perPage    int
	runStatus  int    // non-zero: the run endpoint answers this
	runMessage string // with this message
	rerunCode  int    // the re-run endpoint's status; 0 means 201
	rerunMsg   string
	rateLimit  int // answer this many requests of the run endpoint with a 429 first
	// rerunReset, when set, makes the re-run endpoint read the request and
	// close the connection (a reset) without answering.
	rerunReset bool
	// rerunTakes, when set, makes a re-run request start the run's next
	// attempt (queued), whatever the endpoint answers.
	rerunTakes bool
	// pageJobs, when set, serves page n of the jobs list instead of g.jobs.
	pageJobs func(page int) []fJob
	// jobsNext, when set, is the page the jobs list's next link names after
	// page n (0: none); jobFuse bounds how many pages carry one, so a walk
	// that ignores its bounds ends, late, rather than hang the test.
	jobsNext func(page int) int
	// postTo, when set, is the host:port every POST is sent to instead.
	postTo string
	// onRunGet, when set, is called (under the lock) before each read of the run.
	onRunGet func()
	// attemptJobs, when set for n, are the jobs of attempt n (.../attempts/n/jobs);
	// an earlier attempt than the latest concluded failure.
	attemptJobs map[int][]fJob
	// attemptStatus, when set, is the answer to a read of an earlier attempt.
	attemptStatus int

	mu       sync.Mutex
	reruns   int
	requests []string // "METHOD /path" of every API request, in order
	jobPages []int
	logAuth  []string
	apiAuth  []string
	logHits  int
	clk      *clock.Fake
}

func newFake(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{t: t, status: "completed", conclusion: "failure", attempt: 1, perPage: 100}
	g.logs = httptest.NewServer(http.HandlerFunc(g.serveLog))
	g.api = httptest.NewServer(http.HandlerFunc(g.serveAPI))
	t.Cleanup(func() { g.api.Close(); g.logs.Close() })
	return g
}

func (g *fakeGitHub) client(t *testing.T, clk clock.Clock) *ghapi.Client {
	hc := g.api.Client()
	if g.postTo != "" {
		hc = &http.Client{Transport: postTo{g.postTo, hc.Transport}}
	}
	c, err := ghapi.New(ghapi.Options{BaseURL: g.api.URL + "/", Token: testToken, Clock: clk, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (g *fakeGitHub) explain(t *testing.T, o Options) *Result {
	t.Helper()
	return g.explainAttempt(t, 0, o)
}

// explainAttempt explains attempt n of the run (0: the latest).
func (g *fakeGitHub) explainAttempt(t *testing.T, n int, o Options) *Result {
	t.Helper()
	clk := clock.NewFake(t0.Add(time.Hour), true)
	g.clk = clk
	o.API = g.client(t, clk)
	o.Clock = clk
	o.LogClient = g.logs.Client()
	return Explain(context.Background(), Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42, Attempt: n}, o)
}

func ts(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (g *fakeGitHub) serveAPI(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.apiAuth = append(g.apiAuth, r.Header.Get("Authorization"))
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	g.mu.Unlock()
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && (p == "/repos/o/r/actions/runs/42" || strings.HasPrefix(p, "/repos/o/r/actions/runs/42/attempts/") && !strings.HasSuffix(p, "/jobs")):
		g.mu.Lock()
		limited := g.rateLimit > 0
		if limited {
			g.rateLimit--
		}
		g.mu.Unlock()
		if limited {
			w.Header().Set("Retry-After", "30")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "You have exceeded a secondary rate limit."})
			return
		}
		if g.runStatus != 0 {
			writeJSON(w, g.runStatus, map[string]string{"message": g.runMessage, "documentation_url": "https://docs.github.com/rest"})
			return
		}
		g.mu.Lock()
		if g.onRunGet != nil {
			g.onRunGet()
		}
		status, conclusion, attempt := g.status, g.conclusion, g.attempt
		g.mu.Unlock()
		if a, ok := strings.CutPrefix(p, "/repos/o/r/actions/runs/42/attempts/"); ok {
			n, _ := strconv.Atoi(a) // an attempt's record names that attempt
			if n < attempt {
				if g.attemptStatus != 0 {
					writeJSON(w, g.attemptStatus, map[string]string{"message": "Server Error"})
					return
				}
				status, conclusion = "completed", "failure"
			}
			attempt = n
		}
		writeJSON(w, 200, map[string]any{
			"id": 42, "name": "publish", "status": status, "conclusion": nilIfEmpty(conclusion), "run_attempt": attempt,
			"html_url": "https://github.com/o/r/actions/runs/42", "created_at": ts(0), "updated_at": ts(time.Minute),
		})
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/jobs"):
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page < 1 {
			page = 1
		}
		g.mu.Lock()
		g.jobPages = append(g.jobPages, page)
		g.mu.Unlock()
		from := (page - 1) * g.perPage
		to := min(from+g.perPage, len(g.jobs))
		served := g.jobs[min(from, len(g.jobs)):to]
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(p, "/repos/o/r/actions/runs/42/attempts/"), "%d/jobs", &n); err == nil && g.attemptJobs[n] != nil {
			served = g.attemptJobs[n]
		}
		if g.pageJobs != nil {
			served = g.pageJobs(page)
		}
		js := make([]any, 0, len(served))
		for _, j := range served {
			var steps []any
			for i, s := range j.steps {
				steps = append(steps, map[string]any{"name": s.name, "status": "completed", "conclusion": s.conclusion, "number": i + 1, "started_at": ts(s.start), "completed_at": ts(s.end)})
			}
			js = append(js, map[string]any{"id": j.id, "run_id": 42, "name": j.name, "status": "completed", "conclusion": j.conclusion, "steps": steps, "started_at": ts(0), "completed_at": ts(time.Minute)})
		}
		next := 0
		switch {
		case g.jobsNext != nil:
			g.mu.Lock()
			if len(g.jobPages) < jobFuse {
				next = g.jobsNext(page)
			}
			g.mu.Unlock()
		case to < len(g.jobs):
			next = page + 1
		}
		if next != 0 {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=%d&per_page=100>; rel="next"`, g.api.URL, p, next))
		}
		writeJSON(w, 200, map[string]any{"total_count": len(g.jobs), "jobs": js})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/repos/o/r/actions/jobs/") && strings.HasSuffix(p, "/logs"):
		id, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(p, "/repos/o/r/actions/jobs/"), "/logs"), 10, 64)
		for _, j := range g.allJobs() {
			if j.id == id && j.logStatus != 0 {
				writeJSON(w, j.logStatus, map[string]string{"message": "Not Found"})
				return
			}
		}
		w.Header().Set("Location", fmt.Sprintf("%s/jobs/%d/log.txt?sig=abc", g.logs.URL, id))
		w.WriteHeader(http.StatusFound)
	case r.Method == http.MethodPost && p == "/repos/o/r/actions/runs/42/rerun-failed-jobs":
		io.Copy(io.Discard, r.Body)
		g.mu.Lock()
		g.reruns++
		if g.rerunTakes {
			g.attempt++
			g.status, g.conclusion = "queued", ""
		}
		g.mu.Unlock()
		if g.rerunReset {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				g.t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset, not a clean close
			}
			conn.Close()
			return
		}
		if g.rerunCode != 0 {
			writeJSON(w, g.rerunCode, map[string]string{"message": g.rerunMsg})
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{})
	default:
		http.NotFound(w, r)
	}
}

// postTo sends POSTs to another host:port.
type postTo struct {
	host string
	rt   http.RoundTripper
}

func (p postTo) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		r = r.Clone(r.Context())
		r.URL.Host = p.host
	}
	return p.rt.RoundTrip(r)
}

// jobFuse is how many pages of jobs a test server links on at most.
const jobFuse = 3000

// since returns the API requests after the first one that is req.
func (g *fakeGitHub) since(req string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, r := range g.requests {
		if r == req {
			return append([]string(nil), g.requests[i+1:]...)
		}
	}
	return nil
}

// allJobs are the jobs of every attempt.
func (g *fakeGitHub) allJobs() []fJob {
	all := append([]fJob(nil), g.jobs...)
	for _, js := range g.attemptJobs {
		all = append(all, js...)
	}
	return all
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (g *fakeGitHub) serveLog(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.logAuth = append(g.logAuth, r.Header.Get("Authorization"))
	g.logHits++
	g.mu.Unlock()
	var id int64
	fmt.Sscanf(r.URL.Path, "/jobs/%d/log.txt", &id)
	for _, j := range g.allJobs() {
		if j.id != id {
			continue
		}
		w.Header().Set("Content-Type", "text/plain")
		if j.log != nil {
			j.log(w)
			return
		}
		writeLog(w, j.steps)
		return
	}
	http.NotFound(w, r)
}

// writeLog writes a job's log in the runner's format: each line stamped
// with seven fractional digits, the set-up's groups, each step's output
// spread over its seconds.
func writeLog(w io.Writer, steps []fStep) {
	for _, s := range steps {
		n := len(s.lines)
		span := s.end - s.start
		for i, l := range s.lines {
			at := t0.Add(s.start + time.Duration(int64(span)*int64(i)/int64(max(n, 1))) + 123456700*time.Nanosecond)
			fmt.Fprintf(w, "%s %s\n", at.Format("2006-01-02T15:04:05.0000000Z"), l)
		}
	}
}

// jobOf builds a job whose step "Publish" (run: npm publish) fails with out.
func jobOf(id int64, name string, out ...string) fJob {
	fail := append([]string{"##[group]Run npm publish", "npm publish", "shell: /usr/bin/bash -e {0}", "##[endgroup]"}, out...)
	fail = append(fail, "##[error]Process completed with exit code 1.")
	return fJob{id: id, name: name, conclusion: "failure", steps: []fStep{
		{name: "Set up job", conclusion: "success", start: 0, end: 2 * time.Second, lines: []string{
			"Current runner version: '2.321.0'", "##[group]Operating System", "Ubuntu", "24.04.1", "LTS", "##[endgroup]",
			"##[group]Runner Image", "Image: ubuntu-24.04", "##[endgroup]", "Prepare workflow directory", "Complete job name: " + name}},
		{name: "Run actions/checkout@v4", conclusion: "success", start: 2 * time.Second, end: 4 * time.Second, lines: []string{
			"##[group]Run actions/checkout@v4", "with:", "  repository: o/r", "##[endgroup]", "Syncing repository: o/r",
			"npm error code E403", // a line of another step that must not be classified with Publish
		}},
		{name: "Publish", conclusion: "failure", start: 4 * time.Second, end: 6 * time.Second, lines: fail},
		{name: "Post Run actions/checkout@v4", conclusion: "success", start: 6 * time.Second, end: 7 * time.Second, lines: []string{
			"Post job cleanup.", "[command]/usr/bin/git version", "git version 2.47.1"}},
		{name: "Complete job", conclusion: "success", start: 7 * time.Second, end: 7 * time.Second, lines: []string{"Cleaning up orphan processes"}},
	}}
}

var (
	transientOut = []string{"npm error code ECONNRESET", "npm error network aborted"}
	policyOut    = []string{"npm error code E403", `npm error 403 403 Forbidden - PUT https://registry.npmjs.org/pkg - You do not have permission to publish "pkg"`}
)
