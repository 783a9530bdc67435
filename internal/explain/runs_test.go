package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
)

// fRun is one run of the fake repository: its workflow, when it was
// created, its latest attempt and conclusion, and its jobs by attempt.
type fRun struct {
	id         int64
	workflow   string // the file, such as ci.yml
	created    time.Time
	attempt    int
	conclusion string
	jobs       map[int][]fJob
}

// fakeRepo is an httptest server speaking GitHub's REST JSON for a
// repository's runs (listed with status and created filters, paginated),
// their attempts, jobs and logs (a redirect to a second server).
type fakeRepo struct {
	t         *testing.T
	api, logs *httptest.Server
	runs      []fRun
	perPage   int

	// listStatus, when set, is the answer to every list of runs;
	// goneLogs are the jobs whose logs answer 410.
	listStatus int
	goneLogs   map[int64]bool

	mu       sync.Mutex
	requests []string
	queries  []string
}

func newFakeRepo(t *testing.T, runs []fRun) *fakeRepo {
	g := &fakeRepo{t: t, runs: runs, perPage: 100}
	g.api = httptest.NewServer(http.HandlerFunc(g.serveAPI))
	g.logs = httptest.NewServer(http.HandlerFunc(g.serveLog))
	t.Cleanup(func() { g.api.Close(); g.logs.Close() })
	return g
}

var workflowIDs = map[string]int64{"ci.yml": 11, "release.yml": 12}

func (g *fakeRepo) runJSON(r fRun, attempt int) map[string]any {
	conclusion := r.conclusion
	if attempt < r.attempt {
		conclusion = "failure"
	}
	return map[string]any{
		"id": r.id, "name": strings.TrimSuffix(r.workflow, ".yml"), "workflow_id": workflowIDs[r.workflow],
		"status": "completed", "conclusion": conclusion, "run_attempt": attempt,
		"created_at": r.created.Format(time.RFC3339), "html_url": fmt.Sprintf("https://github.com/o/r/actions/runs/%d", r.id),
	}
}

func (g *fakeRepo) serveAPI(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	g.mu.Unlock()
	p := r.URL.Path
	q := r.URL.Query()
	if r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	var file string
	if f, ok := strings.CutPrefix(p, "/repos/o/r/actions/workflows/"); ok && strings.HasSuffix(f, "/runs") {
		file = strings.TrimSuffix(f, "/runs")
		p = "/repos/o/r/actions/runs"
	}
	switch {
	case p == "/repos/o/r/actions/runs" && g.listStatus != 0:
		writeJSON(w, g.listStatus, map[string]string{"message": "Resource not accessible by integration"})
	case p == "/repos/o/r/actions/runs":
		g.mu.Lock()
		g.queries = append(g.queries, r.URL.RawQuery)
		g.mu.Unlock()
		from, err := time.Parse(time.RFC3339, strings.TrimPrefix(q.Get("created"), ">="))
		if err != nil {
			writeJSON(w, 422, map[string]string{"message": "bad created: " + q.Get("created")})
			return
		}
		var list []fRun
		for _, run := range g.runs {
			if run.conclusion == q.Get("status") && !run.created.Before(from) && (file == "" || run.workflow == file) {
				list = append(list, run)
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].created.After(list[j].created) })
		page, _ := strconv.Atoi(q.Get("page"))
		page = max(page, 1)
		from0 := min((page-1)*g.perPage, len(list))
		to := min(from0+g.perPage, len(list))
		var out []any
		for _, run := range list[from0:to] {
			out = append(out, g.runJSON(run, run.attempt))
		}
		if to < len(list) {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=%d>; rel="next"`, g.api.URL, r.URL.Path, page+1))
		}
		writeJSON(w, 200, map[string]any{"total_count": len(list), "workflow_runs": out})
	case strings.HasPrefix(p, "/repos/o/r/actions/runs/"):
		rest := strings.Split(strings.TrimPrefix(p, "/repos/o/r/actions/runs/"), "/")
		id, _ := strconv.ParseInt(rest[0], 10, 64)
		var run *fRun
		for i := range g.runs {
			if g.runs[i].id == id {
				run = &g.runs[i]
			}
		}
		if run == nil {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		attempt := run.attempt
		if len(rest) >= 3 && rest[1] == "attempts" {
			attempt, _ = strconv.Atoi(rest[2])
			rest = append(rest[:1], rest[3:]...)
		}
		if len(rest) == 1 {
			writeJSON(w, 200, g.runJSON(*run, attempt))
			return
		}
		var js []any
		for _, j := range run.jobs[attempt] {
			var steps []any
			for i, s := range j.steps {
				steps = append(steps, map[string]any{"name": s.name, "status": "completed", "conclusion": s.conclusion, "number": i + 1, "started_at": ts(s.start), "completed_at": ts(s.end)})
			}
			js = append(js, map[string]any{"id": j.id, "run_id": id, "name": j.name, "status": "completed", "conclusion": j.conclusion, "steps": steps})
		}
		writeJSON(w, 200, map[string]any{"total_count": len(js), "jobs": js})
	case strings.HasPrefix(p, "/repos/o/r/actions/jobs/") && strings.HasSuffix(p, "/logs"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/repos/o/r/actions/jobs/"), "/logs")
		if n, _ := strconv.ParseInt(id, 10, 64); g.goneLogs[n] {
			writeJSON(w, http.StatusGone, map[string]string{"message": "Gone"})
			return
		}
		w.Header().Set("Location", fmt.Sprintf("%s/jobs/%s/log.txt", g.logs.URL, id))
		w.WriteHeader(http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

func (g *fakeRepo) serveLog(w http.ResponseWriter, r *http.Request) {
	var id int64
	fmt.Sscanf(r.URL.Path, "/jobs/%d/log.txt", &id)
	for _, run := range g.runs {
		for _, js := range run.jobs {
			for _, j := range js {
				if j.id == id {
					writeLog(w, j.steps)
					return
				}
			}
		}
	}
	http.NotFound(w, r)
}

// explainRuns explains the fake repository's runs since 7 days, at now.
func (g *fakeRepo) explainRuns(t *testing.T, o RunsOptions) *Table {
	t.Helper()
	clk := clock.NewFake(runsNow, true)
	c, err := ghapi.New(ghapi.Options{BaseURL: g.api.URL + "/", Token: testToken, Clock: clk, HTTPClient: g.api.Client()})
	if err != nil {
		t.Fatal(err)
	}
	o.API, o.Clock, o.LogClient = c, clk, g.logs.Client()
	o.Owner, o.Repo = "o", "r"
	if o.Since == 0 {
		o.Since = 7 * 24 * time.Hour
	}
	return ExplainRuns(context.Background(), o)
}

// runsNow is when the fake repository's runs are explained: six days after
// the first one.
var runsNow = t0.Add(6 * 24 * time.Hour)

var (
	resetOut = transientOut
	e503Out  = []string{"npm error code E503", "npm error 503 Service Unavailable - PUT https://registry.npmjs.org/pkg - Service Unavailable"}
)

// thirtyRuns are 30 runs, one every 4 hours from t0: ci's runs 1-10 reset
// (2, 5 and 8 passed on a re-run), 11-14 pass, 15-22 meet the registry's
// 503 (16 was re-run and failed again); release's 23-30 are refused (403).
func thirtyRuns() []fRun {
	var runs []fRun
	jid := int64(1000)
	job := func(name string, out []string) fJob {
		jid++
		return jobOf(jid, name, out...)
	}
	ok := func(name string) fJob {
		jid++
		return fJob{id: jid, name: name, conclusion: "success", steps: []fStep{{name: "Publish", conclusion: "success", end: time.Second, lines: []string{"done"}}}}
	}
	for i := 1; i <= 30; i++ {
		r := fRun{id: int64(100 + i), workflow: "ci.yml", created: t0.Add(time.Duration(i-1) * 4 * time.Hour), attempt: 1, conclusion: "failure", jobs: map[int][]fJob{}}
		switch {
		case i <= 10 && (i == 2 || i == 5 || i == 8):
			r.attempt, r.conclusion = 2, "success"
			r.jobs[1], r.jobs[2] = []fJob{job("test", resetOut)}, []fJob{ok("test")}
		case i <= 10:
			r.jobs[1] = []fJob{job("test", resetOut)}
		case i <= 14:
			r.conclusion = "success"
			r.jobs[1] = []fJob{ok("test")}
		case i == 16:
			r.attempt = 2
			r.jobs[1], r.jobs[2] = []fJob{job("test", e503Out)}, []fJob{job("test", e503Out)}
		case i <= 22:
			r.jobs[1] = []fJob{job("test", e503Out)}
		default:
			r.workflow = "release.yml"
			r.jobs[1] = []fJob{job("publish", policyOut)}
		}
		runs = append(runs, r)
	}
	return runs
}

// TestExplainRunsTable: 30 runs of a fake API make one table: per
// workflow and step the classes and codes, the runs, the re-runs and how
// many passed, and the step that fails persistently; the JSON and the
// Markdown (its Mermaid chart of failed runs per day, by class) say the same.
func TestExplainRunsTable(t *testing.T) {
	g := newFakeRepo(t, thirtyRuns())
	tb := g.explainRuns(t, RunsOptions{})
	var text bytes.Buffer
	if err := tb.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + text.String())
	if tb.ExitCode != exitcode.OK || !tb.Complete || tb.Cut != "" {
		t.Fatalf("exit = %d, complete = %v, cut = %q; want 0, complete", tb.ExitCode, tb.Complete, tb.Cut)
	}
	if tb.Runs != 26 || tb.PassedOnRerun != 3 || tb.Failed != 23 {
		t.Errorf("runs = %d (failed %d, passed on a re-run %d); want 26 (23, 3)", tb.Runs, tb.Failed, tb.PassedOnRerun)
	}
	if len(tb.Rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(tb.Rows))
	}
	ci, rel := tb.Rows[0], tb.Rows[1]
	if ci.Workflow != "ci" || ci.Job != "test" || ci.Step != "Publish" || ci.Runs != 18 || ci.Rerun != 4 || ci.RerunPassed != 3 {
		t.Errorf("ci row = %+v; want ci test/Publish in 18 runs, 4 re-run, 3 passed", ci)
	}
	if ci.Classes["transient"] != 18 || ci.Codes["connection-reset"] != 10 || ci.Codes["http-503"] != 8 {
		t.Errorf("ci classes %v codes %v", ci.Classes, ci.Codes)
	}
	if p := ci.Persistent; p == nil || p.Runs != 8 || !p.Since.Equal(t0.Add(14*4*time.Hour)) || p.Fingerprint != (failure.Fingerprint{Class: failure.Transient, Kind: failure.KindServer, Target: "registry.npmjs.org"}) {
		t.Errorf("ci persistent = %+v; want the 503's 8 runs since run 15", p)
	}
	if rel.Workflow != "release" || rel.Runs != 8 || rel.Classes["policy"] != 8 || rel.Codes["npm-forbidden"] != 8 || rel.Persistent != nil || rel.Rerun != 0 {
		t.Errorf("release row = %+v", rel)
	}
	out := text.String()
	for _, want := range []string{"ci", "test / Publish", "connection-reset 10", "http-503 8", "8 runs since 2026-12-02T18:00:00Z", "npm-forbidden 8", "complete"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}

	// The JSON.
	var js bytes.Buffer
	if err := tb.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Complete bool `json:"complete"`
		Runs     int  `json:"runs"`
		Rows     []struct {
			Workflow, Job, Step string
			Runs, Rerun         int
			RerunPassed         int            `json:"rerun_passed"`
			Classes             map[string]int `json:"classes"`
			Persistent          *struct {
				Runs   int    `json:"runs"`
				Kind   string `json:"kind"`
				Target string `json:"target"`
			} `json:"persistent"`
		} `json:"rows"`
		Days []struct {
			Date    string         `json:"date"`
			Classes map[string]int `json:"classes"`
		} `json:"days"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if !back.Complete || back.Runs != 26 || len(back.Rows) != 2 || back.Rows[0].RerunPassed != 3 || back.Rows[0].Persistent == nil || back.Rows[0].Persistent.Target != "registry.npmjs.org" {
		t.Errorf("JSON = %s", js.String())
	}
	perDay := map[string]map[string]int{}
	for _, d := range back.Days {
		perDay[d.Date] = d.Classes
	}
	if len(back.Days) != 8 || perDay["2026-11-30"]["transient"] != 4 || perDay["2026-12-01"]["transient"] != 6 || perDay["2026-12-04"]["policy"] != 6 {
		t.Errorf("days = %+v", back.Days)
	}

	// The Markdown and its chart.
	var md bytes.Buffer
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	t.Log("\n" + m)
	for _, want := range []string{
		"| ci | test / Publish | 18 | 4 | 3 |",
		"```mermaid\n",
		"xychart-beta\n",
		`x-axis ["11-29", "11-30", "12-01", "12-02", "12-03", "12-04", "12-05", "12-06"]`,
		"bar [0, 4, 6, 2, 6, 6, 2, 0]", // every class: the bars' tops
		"bar [0, 4, 6, 2, 6, 0, 0, 0]", // transient alone: the bottom
	} {
		if !strings.Contains(m, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// TestExplainRunsWorkflow: --workflow lists that workflow's runs only.
func TestExplainRunsWorkflow(t *testing.T) {
	g := newFakeRepo(t, thirtyRuns())
	tb := g.explainRuns(t, RunsOptions{Workflow: "release.yml"})
	if tb.ExitCode != 0 || len(tb.Rows) != 1 || tb.Rows[0].Workflow != "release" || tb.Runs != 8 {
		t.Errorf("exit %d, rows %+v", tb.ExitCode, tb.Rows)
	}
	for _, r := range g.requests {
		if strings.HasPrefix(r, "GET /repos/o/r/actions/runs?") || r == "GET /repos/o/r/actions/runs" {
			t.Errorf("request %q: want the workflow's runs only", r)
		}
	}
	if !strings.Contains(g.queries[0], "status=failure") || !strings.Contains(g.queries[0], "created=%3E%3D2026-11-29T10%3A00%3A00Z") {
		t.Errorf("query = %q", g.queries[0])
	}
}

// TestExplainRunsBounds: --max-runs and --max-calls cut the table short:
// exit 75, and the table says which bound did.
func TestExplainRunsBounds(t *testing.T) {
	t.Run("max-runs", func(t *testing.T) {
		g := newFakeRepo(t, thirtyRuns())
		tb := g.explainRuns(t, RunsOptions{MaxRuns: 10})
		if tb.ExitCode != exitcode.Transient || tb.Complete || tb.Runs != 10 || !strings.Contains(tb.Cut, "--max-runs 10") {
			t.Errorf("exit = %d, complete = %v, runs = %d, cut = %q", tb.ExitCode, tb.Complete, tb.Runs, tb.Cut)
		}
		var text bytes.Buffer
		tb.WriteText(&text)
		if !strings.Contains(text.String(), "--max-runs 10") {
			t.Errorf("text does not say the cut:\n%s", text.String())
		}
	})
	t.Run("max-calls", func(t *testing.T) {
		g := newFakeRepo(t, thirtyRuns())
		tb := g.explainRuns(t, RunsOptions{MaxCalls: 20})
		g.mu.Lock()
		n := len(g.requests)
		g.mu.Unlock()
		if n > 20 || tb.Calls > 20 {
			t.Errorf("requests = %d, calls = %d; want at most 20", n, tb.Calls)
		}
		if tb.ExitCode != exitcode.Transient || tb.Complete || !strings.Contains(tb.Cut, "--max-calls 20") || tb.Runs == 0 {
			t.Errorf("exit = %d, complete = %v, runs = %d, cut = %q", tb.ExitCode, tb.Complete, tb.Runs, tb.Cut)
		}
		var md bytes.Buffer
		tb.WriteMarkdown(&md)
		if !strings.Contains(md.String(), "--max-calls 20") {
			t.Errorf("Markdown does not say the cut")
		}
	})
}

// TestParseSince: Go durations and N days, within 90 days.
func TestParseSince(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "90d": 90 * 24 * time.Hour, "1d12h": 0} {
		got, err := ParseSince(in)
		if want == 0 {
			if err == nil {
				t.Errorf("ParseSince(%q) = %s, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseSince(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"91d", "0d", "-1h", "", "7 days", "2160h1s"} {
		if _, err := ParseSince(bad); err == nil {
			t.Errorf("ParseSince(%q): want an error", bad)
		}
	}
}

// TestExplainRunsAPICut: a log the API no longer serves leaves its run out
// and cuts the table (75, unread counted); a list of runs the token may
// not read is the API's refusal (77), nothing else read.
func TestExplainRunsAPICut(t *testing.T) {
	runs := thirtyRuns()
	g := newFakeRepo(t, runs)
	g.goneLogs = map[int64]bool{runs[29].jobs[1][0].id: true}
	tb := g.explainRuns(t, RunsOptions{})
	if tb.ExitCode != exitcode.Transient || tb.Complete || tb.Unread != 1 || tb.Runs != 25 || !strings.Contains(tb.Cut, "the API") {
		t.Errorf("exit = %d, complete = %v, unread = %d, runs = %d, cut = %q", tb.ExitCode, tb.Complete, tb.Unread, tb.Runs, tb.Cut)
	}

	g = newFakeRepo(t, runs)
	g.listStatus = http.StatusForbidden
	tb = g.explainRuns(t, RunsOptions{})
	if tb.ExitCode != exitcode.Policy || tb.Complete || tb.Runs != 0 || !strings.Contains(tb.Cut, "the failed runs could not be listed") {
		t.Errorf("403: exit = %d, runs = %d, cut = %q", tb.ExitCode, tb.Runs, tb.Cut)
	}
	if len(g.requests) != 1 {
		t.Errorf("requests = %q, want the one list", g.requests)
	}
}
