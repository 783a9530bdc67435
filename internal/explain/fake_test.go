package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

	mu       sync.Mutex
	reruns   int
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
	c, err := ghapi.New(ghapi.Options{BaseURL: g.api.URL + "/", Token: testToken, Clock: clk, HTTPClient: g.api.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (g *fakeGitHub) explain(t *testing.T, o Options) *Result {
	t.Helper()
	clk := clock.NewFake(t0.Add(time.Hour), true)
	g.clk = clk
	o.API = g.client(t, clk)
	o.Clock = clk
	o.LogClient = g.logs.Client()
	return Explain(context.Background(), Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}, o)
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
		writeJSON(w, 200, map[string]any{
			"id": 42, "name": "publish", "status": g.status, "conclusion": nilIfEmpty(g.conclusion), "run_attempt": g.attempt,
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
		var js []any
		for _, j := range g.jobs[min(from, len(g.jobs)):to] {
			var steps []any
			for i, s := range j.steps {
				steps = append(steps, map[string]any{"name": s.name, "status": "completed", "conclusion": s.conclusion, "number": i + 1, "started_at": ts(s.start), "completed_at": ts(s.end)})
			}
			js = append(js, map[string]any{"id": j.id, "run_id": 42, "name": j.name, "status": "completed", "conclusion": j.conclusion, "steps": steps, "started_at": ts(0), "completed_at": ts(time.Minute)})
		}
		if to < len(g.jobs) {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=%d&per_page=100>; rel="next"`, g.api.URL, p, page+1))
		}
		writeJSON(w, 200, map[string]any{"total_count": len(g.jobs), "jobs": js})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/repos/o/r/actions/jobs/") && strings.HasSuffix(p, "/logs"):
		id, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(p, "/repos/o/r/actions/jobs/"), "/logs"), 10, 64)
		for _, j := range g.jobs {
			if j.id == id && j.logStatus != 0 {
				writeJSON(w, j.logStatus, map[string]string{"message": "Not Found"})
				return
			}
		}
		w.Header().Set("Location", fmt.Sprintf("%s/jobs/%d/log.txt?sig=abc", g.logs.URL, id))
		w.WriteHeader(http.StatusFound)
	case r.Method == http.MethodPost && p == "/repos/o/r/actions/runs/42/rerun-failed-jobs":
		g.mu.Lock()
		g.reruns++
		g.mu.Unlock()
		if g.rerunCode != 0 {
			writeJSON(w, g.rerunCode, map[string]string{"message": g.rerunMsg})
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{})
	default:
		http.NotFound(w, r)
	}
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
	for _, j := range g.jobs {
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
