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
	return explainServerOf(t, status, false, nil, nil)
}

// explainServerOf is explainServer whose failed step is transient (npm
// ECONNRESET) when transient is set; reruns counts the re-runs asked.
func explainServerOf(t *testing.T, status string, transient bool, reruns *int, extra http.HandlerFunc) (api string, logAuth func() []string) {
	var mu sync.Mutex
	var auth []string
	logs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		out := []string{"2026-11-30T10:00:03.5000000Z npm error code E403",
			`2026-11-30T10:00:03.5100000Z npm error 403 403 Forbidden - PUT https://registry.npmjs.org/pkg - You do not have permission to publish "pkg"`}
		if transient {
			out = []string{"2026-11-30T10:00:03.5000000Z npm error code ECONNRESET", "2026-11-30T10:00:03.5100000Z npm error network aborted"}
		}
		lines := []string{
			"2026-11-30T10:00:00.1000000Z Current runner version: '2.321.0'",
			"2026-11-30T10:00:02.2000000Z ##[group]Run npm publish",
			"2026-11-30T10:00:02.2100000Z npm publish",
			"2026-11-30T10:00:02.2200000Z ##[endgroup]",
		}
		lines = append(append(lines, out...), "2026-11-30T10:00:03.6000000Z ##[error]Process completed with exit code 1.")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}))
	t.Cleanup(logs.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+explainToken {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/actions/runs/7":
			conclusion := `"failure"`
			if status != "completed" {
				conclusion = "null"
			}
			if status == "success" {
				status, conclusion = "completed", `"success"`
			}
			fmt.Fprintf(w, `{"id":7,"name":"publish","status":%q,"conclusion":%s,"run_attempt":1}`, status, conclusion)
		case "/repos/o/r/actions/runs/7/jobs", "/repos/o/r/actions/runs/7/attempts/1/jobs":
			fmt.Fprint(w, `{"total_count":1,"jobs":[{"id":70,"name":"publish","status":"completed","conclusion":"failure","steps":[
				{"name":"Set up job","conclusion":"success","number":1,"started_at":"2026-11-30T10:00:00Z","completed_at":"2026-11-30T10:00:02Z"},
				{"name":"Publish","conclusion":"failure","number":2,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`)
		case "/repos/o/r/actions/runs/7/rerun-failed-jobs":
			if r.Method != http.MethodPost || reruns == nil {
				http.NotFound(w, r)
				return
			}
			*reruns++
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, "{}")
		case "/repos/o/r/actions/runs/7/attempts/1":
			fmt.Fprintf(w, `{"id":7,"status":%q,"conclusion":"failure","run_attempt":1}`, status)
		case "/repos/o/r/actions/jobs/70/logs":
			w.Header().Set("Location", logs.URL+"/log.txt?sig=x")
			w.WriteHeader(http.StatusFound)
		default:
			if extra != nil {
				extra(w, r)
				return
			}
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

// TestActionExplainEvent runs the action's explain mode end to end on a
// workflow_run event payload: a transient failure is handed back for a
// re-run (exit 0, rerun true); a policy one is not (exit 77, the outputs
// name it).
func TestActionExplainEvent(t *testing.T) {
	for _, transient := range []bool{true, false} {
		reruns := 0
		api, _ := explainServerOf(t, "completed", transient, &reruns, nil)
		s := newActionStep(t)
		event := filepath.Join(s.dir, "event.json")
		os.WriteFile(event, []byte(`{"action":"completed","workflow_run":{"id":7,"run_attempt":1,"conclusion":"failure","html_url":"https://github.com/o/r/actions/runs/7"},"repository":{"full_name":"o/r"}}`), 0o644)
		s.env = append(s.env, "GITHUB_API_URL="+api, "GITHUB_EVENT_PATH="+event, "GITHUB_EVENT_NAME=workflow_run")
		s.inputs["explain"], s.inputs["rerun"], s.inputs["token"] = "event", "true", explainToken
		s.run()
		out := s.outputs()
		want := map[string]string{"class": "policy", "code": "npm-forbidden", "rerun": "false", "exit-code": "77"}
		wantCode, wantReruns := 77, 0
		if transient {
			want = map[string]string{"class": "transient", "code": "connection-reset", "rerun": "true", "exit-code": "0"}
			wantCode, wantReruns = 0, 1
		}
		if s.code != wantCode || reruns != wantReruns {
			t.Errorf("transient %v: exit %d, reruns %d; want %d, %d\n%s", transient, s.code, reruns, wantCode, wantReruns, s.stdout)
		}
		for k, v := range want {
			if out[k] != v {
				t.Errorf("transient %v: output %s = %q, want %q", transient, k, out[k], v)
			}
		}
		if !strings.Contains(out["outputs"], "publish / Publish") || !strings.Contains(s.read(s.summary), string(want["code"])) {
			t.Errorf("transient %v: outputs %s", transient, out["outputs"])
		}
		if strings.Contains(strings.ReplaceAll(s.stdout, "::add-mask::"+explainToken, ""), explainToken) {
			t.Errorf("the token is in the log:\n%s", s.stdout)
		}
	}
}

// TestActionExplainReportIssue: with report-issue, a policy stop opens the
// failure issue of the explained workflow (publish), and a later successful
// run of it closes that issue.
func TestActionExplainReportIssue(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	open := []map[string]any{}
	issues := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, r.Method+" "+r.URL.Path)
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/repos/o/r/issues":
			json.NewEncoder(w).Encode(open)
		case r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/issues":
			var req map[string]any
			json.NewDecoder(r.Body).Decode(&req)
			is := map[string]any{"number": 1, "title": req["title"], "body": req["body"], "labels": []map[string]string{{"name": "retrywise"}}, "html_url": "https://github.com/o/r/issues/1"}
			open = append(open, is)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(is)
		case r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/issues/1/comments":
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id":1}`)
		case r.Method == http.MethodPatch && r.URL.Path == "/repos/o/r/issues/1":
			open = nil
			fmt.Fprint(w, `{"number":1,"state":"closed"}`)
		default:
			http.NotFound(w, r)
		}
	}
	for _, status := range []string{"completed", "success"} {
		api, _ := explainServerOf(t, status, false, nil, issues)
		s := newActionStep(t)
		s.env = append(s.env, "GITHUB_API_URL="+api, "GITHUB_REPOSITORY=o/r", "GITHUB_WORKFLOW=triage", "GITHUB_JOB=triage", "GITHUB_RUN_ID=99")
		s.inputs["explain"], s.inputs["report-issue"], s.inputs["token"] = "https://github.com/o/r/actions/runs/7", "true", explainToken
		s.run()
		if status == "completed" {
			if s.code != 77 || len(open) != 1 || !strings.Contains(fmt.Sprint(open[0]["title"]), "publish / explain") {
				t.Fatalf("policy: exit %d, open %v\n%s", s.code, open, s.stdout)
			}
		} else if s.code != 0 || len(open) != 0 {
			t.Errorf("success: exit %d, open %v, calls %q\n%s", s.code, open, calls, s.stdout)
		}
	}
}

// TestExplainTokenRuleIsOneInBothFrontEnds: the command line and the
// action take the same token: the one given, else $GITHUB_TOKEN, else
// $GH_TOKEN (the action used to stop at $GITHUB_TOKEN).
func TestExplainTokenRuleIsOneInBothFrontEnds(t *testing.T) {
	for _, env := range [][]string{{"GITHUB_TOKEN=" + explainToken}, {"GH_TOKEN=" + explainToken}, {"GITHUB_TOKEN=", "GH_TOKEN=" + explainToken}} {
		api, _ := explainServer(t, "completed")
		code, stdout, stderr := runExplainCLI(t, append([]string{"GITHUB_API_URL=" + api}, env...), "https://github.com/o/r/actions/runs/7")
		if code != 77 || strings.Contains(stdout+stderr, explainToken) {
			t.Errorf("command line, %q: exit %d, want 77 (token used, never printed)\n%s%s", env[len(env)-1][:8], code, stdout, stderr)
		}
		s := newActionStep(t)
		s.env = append(append(s.env, "GITHUB_API_URL="+api), env...)
		s.inputs["explain"] = "https://github.com/o/r/actions/runs/7"
		s.run()
		if s.code != 77 || s.outputs()["code"] != "npm-forbidden" {
			t.Errorf("action, %q: exit %d, outputs %v; want 77 with the token of the environment\n%s", env[len(env)-1][:8], s.code, s.outputs(), s.stdout)
		}
		if strings.Contains(strings.ReplaceAll(s.stdout, "::add-mask::"+explainToken, ""), explainToken) {
			t.Errorf("the token is in the action's log:\n%s", s.stdout)
		}
	}
}
