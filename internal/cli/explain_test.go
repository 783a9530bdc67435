package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

const explainToken = "ghp_explainTestToken0123456789abcdefABCD"

// explainServer is a small GitHub: run 7 of o/r with one failed job whose
// log (on a second server) ends in an npm publish refusal.
func explainServer(t *testing.T, status string) (api string, logAuth func() []string) {
	var mu sync.Mutex
	var auth []string
	logs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		for _, l := range []string{
			"2026-11-30T10:00:00.1000000Z Current runner version: '2.321.0'",
			"2026-11-30T10:00:02.2000000Z ##[group]Run npm publish",
			"2026-11-30T10:00:02.2100000Z npm publish",
			"2026-11-30T10:00:02.2200000Z ##[endgroup]",
			"2026-11-30T10:00:03.5000000Z npm error code E403",
			`2026-11-30T10:00:03.5100000Z npm error 403 403 Forbidden - PUT https://registry.npmjs.org/pkg - You do not have permission to publish "pkg"`,
			"2026-11-30T10:00:03.6000000Z ##[error]Process completed with exit code 1.",
		} {
			fmt.Fprintln(w, l)
		}
	}))
	t.Cleanup(logs.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+explainToken {
			http.Error(w, `{"message":"Bad credentials"}`, 401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/actions/runs/7":
			conclusion := `"failure"`
			if status != "completed" {
				conclusion = "null"
			}
			fmt.Fprintf(w, `{"id":7,"status":%q,"conclusion":%s,"run_attempt":1}`, status, conclusion)
		case "/repos/o/r/actions/runs/7/jobs":
			fmt.Fprint(w, `{"total_count":1,"jobs":[{"id":70,"name":"publish","status":"completed","conclusion":"failure","steps":[
				{"name":"Set up job","conclusion":"success","number":1,"started_at":"2026-11-30T10:00:00Z","completed_at":"2026-11-30T10:00:02Z"},
				{"name":"Publish","conclusion":"failure","number":2,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`)
		case "/repos/o/r/actions/jobs/70/logs":
			w.Header().Set("Location", logs.URL+"/log.txt?sig=x")
			w.WriteHeader(http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/", func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auth...) }
}

func runExplainCLI(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	c := &Command{Stdout: &out, Stderr: &errb, Env: env, Clock: clock.NewFake(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC), true), Version: "test", Rand: noJitter}
	code = c.Main(context.Background(), append([]string{"retrywise", "explain"}, args...))
	return code, out.String(), errb.String()
}

func TestExplainCommandPolicy(t *testing.T) {
	api, logAuth := explainServer(t, "completed")
	dir := t.TempDir()
	rep, sum := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.md")
	env := []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken}
	code, stdout, stderr := runExplainCLI(t, env, "--report", rep, "--summary", sum, "--rerun", "https://github.com/o/r/actions/runs/7")
	if code != 77 {
		t.Fatalf("exit = %d, want 77\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{"step publish / Publish:", "code:     npm-forbidden", "not re-run: publish / Publish is policy"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var doc struct {
		Run struct {
			ExitCode int `json:"exit_code"`
		}
		Steps []struct {
			Kind, Class string
			Outputs     map[string]any
		}
	}
	b, err := os.ReadFile(rep)
	if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Steps) != 1 || doc.Steps[0].Kind != "explain" || doc.Steps[0].Class != "policy" || doc.Run.ExitCode != 77 || doc.Steps[0].Outputs["rerun"] != false {
		t.Errorf("report: %v %s", err, b)
	}
	if md, err := os.ReadFile(sum); err != nil || !strings.Contains(string(md), "npm-forbidden") {
		t.Errorf("summary: %v %s", err, md)
	}
	for _, s := range []string{stdout, stderr, string(b)} {
		if strings.Contains(s, explainToken) {
			t.Error("the token was printed")
		}
	}
	if a := logAuth(); len(a) != 1 || a[0] != "" {
		t.Errorf("the log server got Authorization %q", a)
	}
}

func TestExplainCommandStillRunning(t *testing.T) {
	api, _ := explainServer(t, "in_progress")
	code, _, stderr := runExplainCLI(t, []string{"GITHUB_API_URL=" + api, "GH_TOKEN=" + explainToken}, "--repo", "o/r", "--run", "7")
	if code != 75 || !strings.Contains(stderr, "still running") {
		t.Errorf("exit = %d, stderr = %s", code, stderr)
	}
}

func TestExplainCommandUsage(t *testing.T) {
	for _, args := range [][]string{{"https://github.com/o/r/pull/7"}, {}, {"--repo", "o", "--run", "7"}, {"--repo", "o/r", "--run", "7", "https://github.com/o/r/actions/runs/7"}} {
		if code, _, stderr := runExplainCLI(t, nil, args...); code != 64 {
			t.Errorf("%q: exit %d, stderr %s", args, code, stderr)
		}
	}
}
