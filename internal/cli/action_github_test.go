package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
)

// fakeRepoAPI speaks the GitHub REST JSON the action uses for one
// repository o/r: the issue list, create, comment and close, and the
// branch rules of main.
type fakeRepoAPI struct {
	srv  *httptest.Server
	mu   sync.Mutex
	open []map[string]any // the open issues labelled retrywise
	reqs []string         // "METHOD path" of every request
	// bodies are the JSON bodies sent, by "METHOD path".
	bodies map[string]map[string]any
	auth   []string
}

func newFakeRepoAPI(t *testing.T) *fakeRepoAPI {
	api := &fakeRepoAPI{bodies: map[string]map[string]any{}}
	api.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		defer api.mu.Unlock()
		key := r.Method + " " + r.URL.Path
		api.reqs = append(api.reqs, key)
		api.auth = append(api.auth, r.Header.Get("Authorization"))
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			var m map[string]any
			json.Unmarshal(b, &m)
			api.bodies[key] = m
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case key == "GET /repos/o/r/issues":
			json.NewEncoder(w).Encode(api.open)
		case key == "POST /repos/o/r/issues":
			issue := map[string]any{"number": 7, "state": "open", "title": api.bodies[key]["title"], "body": api.bodies[key]["body"],
				"labels": []map[string]any{{"name": "retrywise"}}, "html_url": "https://github.com/o/r/issues/7"}
			api.open = append(api.open, issue)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(issue)
		case key == "POST /repos/o/r/issues/7/comments":
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id": 1, "html_url": "https://github.com/o/r/issues/7#issuecomment-1"}`)
		case key == "PATCH /repos/o/r/issues/7":
			api.open = nil
			fmt.Fprint(w, `{"number": 7, "state": "closed", "html_url": "https://github.com/o/r/issues/7"}`)
		case key == "GET /repos/o/r/rules/branches/main":
			fmt.Fprint(w, `[{"type": "pull_request", "ruleset_source_type": "Repository", "ruleset_source": "o/r", "ruleset_id": 42,
			  "parameters": {"required_approving_review_count": 1, "dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
			  "require_last_push_approval": false, "required_review_thread_resolution": false}}]`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message": "Not Found"}`)
		}
	}))
	t.Cleanup(api.srv.Close)
	return api
}

func (api *fakeRepoAPI) sent(key string) bool {
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, r := range api.reqs {
		if r == key {
			return true
		}
	}
	return false
}

// githubStep is an action step of workflow "nightly", job "publish" of o/r
// with a token and the fake API.
func githubStep(t *testing.T, api *fakeRepoAPI, token string) *actionStep {
	s := newActionStep(t)
	s.env = append(s.env, "GITHUB_API_URL="+api.srv.URL, "GITHUB_REPOSITORY=o/r", "GITHUB_WORKFLOW=nightly", "GITHUB_JOB=publish",
		"GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=99", "GITHUB_RUN_ATTEMPT=1")
	s.inputs["token"] = token
	s.inputs["report-issue"] = "true"
	return s
}

func TestActionOpensTheFailureIssueAndClosesItOnRecovery(t *testing.T) {
	const token = "ghs_issueTokenForTheActionTest0123456789"
	api := newFakeRepoAPI(t)

	s := githubStep(t, api, token)
	s.inputs["run"] = `echo "publish failed: quota-marker" >&2; exit 3`
	s.run()
	if s.code == exitcode.OK || !api.sent("POST /repos/o/r/issues") {
		t.Fatalf("exit %d, requests %v:\n%s", s.code, api.reqs, s.stdout)
	}
	body, _ := api.bodies["POST /repos/o/r/issues"]["body"].(string)
	for _, want := range []string{"retrywise-failure", "quota-marker", "https://github.com/o/r/actions/runs/99"} {
		if !strings.Contains(body, want) {
			t.Errorf("issue body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, token) || !strings.Contains(s.stdout, "report-issue: opened issue #7") {
		t.Errorf("the body holds the token, or the log does not say what was done:\n%s", s.stdout)
	}
	for _, a := range api.auth {
		if a != "Bearer "+token {
			t.Errorf("Authorization %q, want the token input", a)
		}
	}

	s = githubStep(t, api, token)
	s.inputs["run"] = "true"
	s.run()
	if s.code != exitcode.OK || !api.sent("POST /repos/o/r/issues/7/comments") || !api.sent("PATCH /repos/o/r/issues/7") {
		t.Fatalf("exit %d, requests %v:\n%s", s.code, api.reqs, s.stdout)
	}
	if got := api.bodies["PATCH /repos/o/r/issues/7"]["state"]; got != "closed" {
		t.Errorf("PATCH state = %v, want closed", got)
	}
}

func TestActionUnderActReportsNoIssueUnlessForced(t *testing.T) {
	api := newFakeRepoAPI(t)
	s := githubStep(t, api, "ghs_actTokenValue0123456789abcdefghij")
	s.env = append(s.env, "ACT=true")
	s.inputs["run"] = "exit 3"
	s.run()
	if len(api.reqs) != 0 || !strings.Contains(s.stdout, "report-issue: ") {
		t.Errorf("under act: requests %v; log:\n%s", api.reqs, s.stdout)
	}
	s.inputs["report-issue"] = "force"
	s.run()
	if !api.sent("POST /repos/o/r/issues") {
		t.Errorf("report-issue: force under act sent %v", api.reqs)
	}
}

func TestActionIssueFailureIsAWarningNotTheResult(t *testing.T) {
	s := newActionStep(t)
	s.inputs["report-issue"] = "true"
	s.inputs["token"] = ""
	s.inputs["run"] = "true"
	s.run()
	if s.code != exitcode.OK || commands(s.stdout, "warning") != 1 || !strings.Contains(s.stdout, "token") {
		t.Errorf("exit %d; want 0 with one warning about the missing token:\n%s", s.code, s.stdout)
	}
}

func TestActionNamesTheBranchRuleThatRefusedAPush(t *testing.T) {
	api := newFakeRepoAPI(t)
	s := githubStep(t, api, "ghs_rulesTokenValue0123456789abcdefgh")
	s.inputs["report-issue"] = "false"
	env := s.env
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	gittest.Hook(t, bare, "pre-receive", "#!/bin/sh\necho 'GH006: Protected branch update failed for refs/heads/main.' >&2\necho 'error: Changes must be made through a pull request.' >&2\nexit 1\n")
	s.inputs["push"] = "true"
	s.inputs["push-args"] = "origin HEAD:main"
	s.inputs["dir"] = work
	s.run()
	if s.code == exitcode.OK || !api.sent("GET /repos/o/r/rules/branches/main") {
		t.Fatalf("exit %d, requests %v:\n%s", s.code, api.reqs, s.stdout)
	}
	if !strings.Contains(s.stdout, `branch "main" has rules: pull_request`) || !strings.Contains(s.read(s.summary), "changes must go through a pull request") {
		t.Errorf("the report does not name the rule:\n%s", s.stdout)
	}
}
