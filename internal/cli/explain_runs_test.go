package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// attemptsServer is run 7 of o/r on attempt 2: job 72 of attempt 2 failed
// with npm's ECONNRESET, job 71 of attempt 1 with out1; reruns counts the
// re-runs asked.
func attemptsServer(t *testing.T, out1 []string, reruns *int) string {
	reset := []string{"npm error code ECONNRESET", "npm error network aborted"}
	logs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := reset
		if strings.Contains(r.URL.Path, "71") {
			out = out1
		}
		lines := append([]string{"##[group]Run npm publish", "npm publish", "##[endgroup]"}, out...)
		for i, l := range append(lines, "##[error]Process completed with exit code 1.") {
			fmt.Fprintf(w, "2026-11-30T10:00:02.%07dZ %s\n", i+1, l)
		}
	}))
	t.Cleanup(logs.Close)
	job := func(id int) string {
		return fmt.Sprintf(`{"total_count":1,"jobs":[{"id":%d,"name":"publish","status":"completed","conclusion":"failure","steps":[
			{"name":"Publish","conclusion":"failure","number":1,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`, id)
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/actions/runs/7", "/repos/o/r/actions/runs/7/attempts/2":
			fmt.Fprint(w, `{"id":7,"name":"publish","status":"completed","conclusion":"failure","run_attempt":2}`)
		case "/repos/o/r/actions/runs/7/attempts/1":
			fmt.Fprint(w, `{"id":7,"name":"publish","status":"completed","conclusion":"failure","run_attempt":1}`)
		case "/repos/o/r/actions/runs/7/jobs", "/repos/o/r/actions/runs/7/attempts/2/jobs":
			fmt.Fprint(w, job(72))
		case "/repos/o/r/actions/runs/7/attempts/1/jobs":
			fmt.Fprint(w, job(71))
		case "/repos/o/r/actions/jobs/71/logs", "/repos/o/r/actions/jobs/72/logs":
			w.Header().Set("Location", logs.URL+strings.TrimPrefix(r.URL.Path, "/repos/o/r/actions"))
			w.WriteHeader(http.StatusFound)
		case "/repos/o/r/actions/runs/7/rerun-failed-jobs":
			mu.Lock()
			*reruns++
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, "{}")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestActionExplainNoSecondRerun: the action's explain mode with rerun on a
// run at attempt 2 whose attempt 1 failed the same way asks no re-run
// (rerun false, exit 75, the log and summary say why); one whose attempt 1
// failed another way is re-run as before.
func TestActionExplainNoSecondRerun(t *testing.T) {
	for _, same := range []bool{true, false} {
		out1 := []string{"npm error code ETIMEDOUT", "npm error network request timed out"}
		if !same {
			out1 = []string{"npm error code E503", "npm error 503 Service Unavailable - PUT https://registry.npmjs.org/pkg"}
		}
		reruns := 0
		api := attemptsServer(t, out1, &reruns)
		s := newActionStep(t)
		s.env = append(s.env, "GITHUB_API_URL="+api)
		s.inputs["explain"], s.inputs["rerun"], s.inputs["token"] = "https://github.com/o/r/actions/runs/7", "true", explainToken
		s.run()
		out := s.outputs()
		const why = "attempt 2 failed the same way as attempt 1: not transient in practice"
		if same {
			if reruns != 0 || s.code != 75 || out["rerun"] != "false" || !strings.Contains(s.stdout, why) {
				t.Errorf("same: reruns %d, exit %d, rerun %q; want none, 75, false, and why\n%s", reruns, s.code, out["rerun"], s.stdout)
			}
			continue
		}
		if reruns != 1 || s.code != 0 || out["rerun"] != "true" {
			t.Errorf("different: reruns %d, exit %d, rerun %q; want 1, 0, true\n%s", reruns, s.code, out["rerun"], s.stdout)
		}
	}
}

// runsServer is o/r with three runs of ci.yml since 2026-11-29: two failed
// (npm ECONNRESET), one passed.
func runsServer(t *testing.T) string {
	logs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i, l := range []string{"##[group]Run npm publish", "npm publish", "##[endgroup]", "npm error code ECONNRESET", "npm error network aborted", "##[error]Process completed with exit code 1."} {
			fmt.Fprintf(w, "2026-11-30T10:00:02.%07dZ %s\n", i+1, l)
		}
	}))
	t.Cleanup(logs.Close)
	run := func(id int, conclusion, created string) string {
		return fmt.Sprintf(`{"id":%d,"name":"ci","workflow_id":11,"status":"completed","conclusion":%q,"run_attempt":1,"created_at":%q,"html_url":"https://github.com/o/r/actions/runs/%d"}`, id, conclusion, created, id)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+explainToken {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch p := r.URL.Path; {
		case p == "/repos/o/r/actions/workflows/ci.yml/runs" && r.URL.Query().Get("status") == "failure":
			fmt.Fprintf(w, `{"total_count":2,"workflow_runs":[%s,%s]}`, run(2, "failure", "2026-11-30T09:00:00Z"), run(1, "failure", "2026-11-29T09:00:00Z"))
		case p == "/repos/o/r/actions/workflows/ci.yml/runs":
			fmt.Fprintf(w, `{"total_count":1,"workflow_runs":[%s]}`, run(3, "success", "2026-11-30T10:00:00Z"))
		case p == "/repos/o/r/actions/runs/1/jobs" || p == "/repos/o/r/actions/runs/2/jobs":
			id := p[len("/repos/o/r/actions/runs/")]
			fmt.Fprintf(w, `{"total_count":1,"jobs":[{"id":%c0,"name":"test","status":"completed","conclusion":"failure","steps":[
				{"name":"Publish","conclusion":"failure","number":1,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`, id)
		case strings.HasSuffix(p, "/logs"):
			w.Header().Set("Location", logs.URL+"/log.txt")
			w.WriteHeader(http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestExplainCommandSince: explain --repo --workflow --since prints the
// table, writes it as JSON and Markdown, and exits 0 when complete, 75
// when --max-calls cut it.
func TestExplainCommandSince(t *testing.T) {
	api := runsServer(t)
	dir := t.TempDir()
	rep, sum := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.md")
	env := []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken}
	code, stdout, stderr := runExplainCLI(t, env, "--repo", "o/r", "--workflow", "ci.yml", "--since", "2d", "--report", rep, "--summary", sum)
	t.Log(stdout)
	if code != 0 || !strings.Contains(stdout, "test / Publish") || !strings.Contains(stdout, "connection-reset 2") || !strings.Contains(stderr, "2 failed runs read") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var tb struct {
		Complete bool `json:"complete"`
		Rows     []struct{ Runs int }
	}
	if b, err := os.ReadFile(rep); err != nil || json.Unmarshal(b, &tb) != nil || !tb.Complete || len(tb.Rows) != 1 || tb.Rows[0].Runs != 2 {
		t.Errorf("report: %v %s", err, b)
	}
	if md, err := os.ReadFile(sum); err != nil || !strings.Contains(string(md), "xychart-beta") {
		t.Errorf("summary: %v %s", err, md)
	}
	for _, s := range []string{stdout, stderr} {
		if strings.Contains(s, explainToken) {
			t.Error("the token was printed")
		}
	}
	code, stdout, _ = runExplainCLI(t, env, "--repo", "o/r", "--workflow", "ci.yml", "--since", "2d", "--max-calls", "3")
	if code != 75 || !strings.Contains(stdout, "cut short: --max-calls 3") {
		t.Errorf("--max-calls 3: exit %d\n%s", code, stdout)
	}
}

// TestExplainCommandSinceUsage: what --since refuses, before any request.
func TestExplainCommandSinceUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--since", "7d"},
		{"--repo", "o/r", "--since", "91d"},
		{"--repo", "o/r", "--since", "7 days"},
		{"--repo", "o/r", "--since", "7d", "--run", "7"},
		{"--repo", "o/r", "--since", "7d", "--rerun"},
		{"--repo", "o/r", "--since", "7d", "--max-runs", "0"},
		{"--repo", "o/r", "--since", "7d", "--max-calls", "100000"},
		{"--repo", "o/r", "--since", "7d", "--workflow", "../x.yml"},
		{"--repo", "o/r", "--workflow", "ci.yml", "--run", "7"},
	} {
		if code, _, stderr := runExplainCLI(t, []string{"GITHUB_TOKEN=" + explainToken, "GITHUB_API_URL=http://127.0.0.1:1/"}, args...); code != 64 {
			t.Errorf("%q: exit %d, stderr %s", args, code, stderr)
		}
	}
}
