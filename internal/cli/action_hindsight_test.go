package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// issueAPI is a fake GitHub API of o/r that keeps one failure issue, #7,
// with its comments: what the action's hindsight reads and writes.
type issueAPI struct {
	srv      *httptest.Server
	mu       sync.Mutex
	issue    map[string]any   // nil until opened, and once closed
	comments []map[string]any // the issue's comments, oldest first
	titles   []string         // every title set by PATCH
}

// botID is the id of the account the token acts as (github-actions[bot]).
const botID = 41898282

func newIssueAPI(t *testing.T) *issueAPI {
	api := &issueAPI{}
	api.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		defer api.mu.Unlock()
		var in map[string]any
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			json.Unmarshal(b, &in)
		}
		w.Header().Set("Content-Type", "application/json")
		bot := map[string]any{"login": "github-actions[bot]", "id": botID}
		switch r.Method + " " + r.URL.Path {
		case "GET /repos/o/r/issues":
			list := []map[string]any{}
			if api.issue != nil {
				list = append(list, api.issue)
			}
			json.NewEncoder(w).Encode(list)
		case "POST /repos/o/r/issues":
			api.issue = map[string]any{"number": 7, "state": "open", "title": in["title"], "body": in["body"], "user": bot,
				"labels": []map[string]any{{"name": "retrywise"}}, "html_url": "https://github.com/o/r/issues/7"}
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(api.issue)
		case "GET /repos/o/r/issues/7/comments":
			json.NewEncoder(w).Encode(api.comments)
		case "POST /repos/o/r/issues/7/comments":
			c := map[string]any{"id": len(api.comments) + 1, "body": in["body"], "user": bot, "html_url": "https://github.com/o/r/issues/7#c"}
			api.comments = append(api.comments, c)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(c)
		case "PATCH /repos/o/r/issues/7":
			if t, ok := in["title"].(string); ok {
				api.titles = append(api.titles, t)
				api.issue["title"] = t
			}
			if in["state"] == "closed" {
				api.issue = nil
			}
			fmt.Fprint(w, `{"number": 7, "html_url": "https://github.com/o/r/issues/7"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message": "Not Found"}`)
		}
	}))
	t.Cleanup(api.srv.Close)
	return api
}

// hindsightStep is a run: step of o/r's workflow nightly, job publish,
// whose host cannot be resolved, with report-issue on.
func hindsightStep(t *testing.T, api *issueAPI, matrix string) *actionStep {
	s := newActionStep(t)
	s.env = append(s.env, "GITHUB_API_URL="+api.srv.URL, "GITHUB_REPOSITORY=o/r", "GITHUB_WORKFLOW=nightly", "GITHUB_JOB=publish",
		"GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=99", "GITHUB_RUN_ATTEMPT=1", "GITHUB_ACTION=fetch")
	s.inputs["token"] = "ghs_hindsightTokenForTheTest0123456789ab"
	s.inputs["report-issue"] = "true"
	s.inputs["matrix"] = matrix
	s.inputs["max-attempts"] = "3"
	s.inputs["schedule"] = "2s,4s"
	s.inputs["run"] = `echo "curl: (6) Could not resolve host: api.example.test" >&2; exit 6`
	return s
}

// bookOf decodes the hindsight marker of a body; "" when it has none.
func bookOf(body string) string {
	_, rest, ok := strings.Cut(body, "<!-- retrywise-hindsight v1 ")
	if !ok {
		return ""
	}
	b64, _, _ := strings.Cut(rest, " -->")
	b, _ := base64.StdEncoding.DecodeString(b64)
	return string(b)
}

// TestActionHindsightThroughTheIssue: in a workflow, the record lives in
// the failure issue. Run 1 opens the issue with the book, run 2 comments
// with it, run 3 reads both, makes one attempt, says "failing every run
// since" in its comment and the issue's title, and sets persistent; a
// marker in a comment of someone else is ignored; another matrix leg keeps
// a record of its own.
func TestActionHindsightThroughTheIssue(t *testing.T) {
	api := newIssueAPI(t)
	leg := `{"region": "eu"}`
	for run := 1; run <= 2; run++ {
		s := hindsightStep(t, api, leg).run()
		if s.code != exitcode.Transient || s.outputs()["attempts"] != "3" || s.outputs()["persistent"] != "false" {
			t.Fatalf("run %d: exit %d outputs %v\n%s", run, s.code, s.outputs(), s.stdout)
		}
	}
	if api.issue == nil || len(api.comments) != 1 {
		t.Fatalf("issue %v, %d comments", api.issue, len(api.comments))
	}
	first, second := bookOf(api.issue["body"].(string)), bookOf(api.comments[0]["body"].(string))
	if strings.Count(first, `"kind":"network"`) != 1 || strings.Count(second, `"kind":"network"`) != 2 || !strings.Contains(second, `"target":"api.example.test"`) {
		t.Fatalf("books:\n%s\n%s", first, second)
	}

	// Another leg of the matrix has no record yet: it retries.
	if s := hindsightStep(t, api, `{"region": "us"}`).run(); s.outputs()["attempts"] != "3" {
		t.Fatalf("the other leg: outputs %v\n%s", s.outputs(), s.stdout)
	}

	// Someone else's comment carrying a forged, empty book is ignored.
	api.mu.Lock()
	forged := base64.StdEncoding.EncodeToString([]byte(`{"version":1,"steps":{}}`))
	api.comments = append(api.comments, map[string]any{"id": 99, "user": map[string]any{"login": "mallory", "id": 666},
		"body": "<!-- retrywise-hindsight v1 " + forged + " -->"})
	api.mu.Unlock()

	s := hindsightStep(t, api, leg).run()
	out := s.outputs()
	if s.code != exitcode.Transient || out["attempts"] != "1" || out["persistent"] != "true" || out["code"] != "dns-failure" {
		t.Fatalf("run 3: exit %d outputs %v\n%s", s.code, out, s.stdout)
	}
	last := api.comments[len(api.comments)-1]["body"].(string)
	if !strings.Contains(last, "failing every run since 2026-12-01 (3 runs)") || len(api.titles) != 1 || !strings.Contains(api.titles[0], "failing every run since") {
		t.Fatalf("comment:\n%s\ntitles %v", last, api.titles)
	}
	if strings.Contains(s.stdout, "retrywise-hindsight") || strings.Contains(s.stdout, base64.StdEncoding.EncodeToString([]byte(`{"version"`))[:12]) {
		t.Errorf("the log prints the marker:\n%s", s.stdout)
	}

	// persist-after: 0 turns it off: the step retries again.
	s = hindsightStep(t, api, leg)
	s.inputs["persist-after"] = "0"
	if s.run(); s.outputs()["attempts"] != "3" {
		t.Fatalf("persist-after 0: outputs %v", s.outputs())
	}
	s = hindsightStep(t, api, leg)
	s.inputs["persist-after"] = "1"
	if s.run(); s.code != exitcode.Usage || !strings.Contains(s.stdout, "persist-after") {
		t.Fatalf("persist-after 1: exit %d\n%s", s.code, s.stdout)
	}
}

// TestActionHindsightUnreadableIssueTurnsItOff: an API that fails the
// read runs the step as without hindsight, and never fails it for that.
func TestActionHindsightUnreadableIssueTurnsItOff(t *testing.T) {
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"message": "Resource not accessible by integration"}`)
	}))
	t.Cleanup(broken.Close)
	s := hindsightStep(t, &issueAPI{srv: broken}, "null")
	s.inputs["run"] = "true"
	s.run()
	if s.code != exitcode.OK || !strings.Contains(s.stdout, "hindsight: off for this run") {
		t.Fatalf("exit %d\n%s", s.code, s.stdout)
	}
}
