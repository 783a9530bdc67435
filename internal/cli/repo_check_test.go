package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
)

// countingAPI is a GitHub API stand-in that only counts what reaches it.
func countingAPI(t *testing.T) (url string, hits *atomic.Int32) {
	hits = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("a request reached the API: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/", hits
}

// badRepoRuns are run URLs whose owner or repository is no GitHub name.
var badRepoRuns = []string{
	"https://github.com/o/../actions/runs/1",
	"https://github.com/../x/actions/runs/1",
	"https://github.com/%2e%2e/x/actions/runs/1",
	"https://github.com/o/%2E%2E/actions/runs/1",
	"https://github.com/o/./actions/runs/1",
	"https://github.com/o.x/r/actions/runs/1",
	"https://github.com/-o/r/actions/runs/1",
	"https://github.com/o/r%3Fx/actions/runs/1",
	"https://github.com/o%20x/r/actions/runs/1",
}

// TestExplainRefusesABadRepository: `explain` checks OWNER/REPO against
// GitHub's name rules before any request: each bad form exits 64, saying
// so, and nothing reaches the API, with --rerun too.
func TestExplainRefusesABadRepository(t *testing.T) {
	api, hits := countingAPI(t)
	env := []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken}
	var cases [][]string
	for _, repo := range []string{"../x", "o/..", "o/.", "%2e%2e/x", "o/%2e%2e", "o.x/r", "o/r?x", "o/r#x", "-o/r"} {
		cases = append(cases, []string{"--repo", repo, "--run", "1"}, []string{"--rerun", "--repo", repo, "--run", "1"})
	}
	for _, u := range badRepoRuns {
		cases = append(cases, []string{u}, []string{"--rerun", u})
	}
	for _, args := range cases {
		code, stdout, stderr := runExplainCLI(t, env, args...)
		if code != exitcode.Usage || !strings.Contains(stderr, "invalid repository") {
			t.Errorf("%q: exit %d, want 64 naming the repository\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
}

// TestActionExplainRefusesABadRepository: the action's explain input (a
// run URL, or the event's repository) is checked the same way: exit 64,
// no request.
func TestActionExplainRefusesABadRepository(t *testing.T) {
	api, hits := countingAPI(t)
	for _, u := range append(badRepoRuns, "event") {
		s := newActionStep(t)
		s.env = append(s.env, "GITHUB_API_URL="+api)
		if u == "event" {
			event := filepath.Join(s.dir, "event.json")
			os.WriteFile(event, []byte(`{"workflow_run":{"id":7,"run_attempt":1,"html_url":""},"repository":{"full_name":"../x"}}`), 0o644)
			s.env = append(s.env, "GITHUB_EVENT_PATH="+event, "GITHUB_EVENT_NAME=workflow_run")
		}
		s.inputs["explain"], s.inputs["rerun"], s.inputs["token"] = u, "true", explainToken
		s.run()
		if s.code != exitcode.Usage || !strings.Contains(s.stdout, "invalid repository") {
			t.Errorf("%s: exit %d, want 64 naming the repository:\n%s", u, s.code, s.stdout)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
}

// TestActionRefusesABadGitHubRepository: a $GITHUB_REPOSITORY that is no
// GitHub name sends no request: report-issue warns, and a refused push's
// branch rules are not read.
func TestActionRefusesABadGitHubRepository(t *testing.T) {
	api, hits := countingAPI(t)
	for _, repo := range []string{"../x", "o/..", "o/%2e%2e", "o/r?x=1"} {
		s := newActionStep(t)
		s.env = append(s.env, "GITHUB_API_URL="+api, "GITHUB_REPOSITORY="+repo, "GITHUB_WORKFLOW=nightly", "GITHUB_JOB=publish", "GITHUB_RUN_ID=99")
		s.inputs["token"], s.inputs["report-issue"], s.inputs["run"] = "ghs_badRepoTokenValue0123456789abcdef", "true", "exit 3"
		s.run()
		if s.code == exitcode.OK || commands(s.stdout, "warning") != 1 || !strings.Contains(s.stdout, "invalid repository") {
			t.Errorf("%s: exit %d; want the run's failure and one warning naming the repository:\n%s", repo, s.code, s.stdout)
		}

		s = newActionStep(t)
		s.env = append(s.env, "GITHUB_API_URL="+api, "GITHUB_REPOSITORY="+repo)
		bare := gittest.NewBare(t, s.env, filepath.Join(t.TempDir(), "origin.git"))
		work := gittest.NewWork(t, s.env, gittest.FileURL(bare))
		gittest.Hook(t, bare, "pre-receive", "#!/bin/sh\necho 'GH006: Protected branch update failed for refs/heads/main.' >&2\nexit 1\n")
		s.inputs["token"], s.inputs["push"], s.inputs["push-args"], s.inputs["dir"] = "ghs_badRepoTokenValue0123456789abcdef", "true", "origin HEAD:main", work
		s.run()
		if s.code == exitcode.OK {
			t.Errorf("%s: exit 0 for a refused push:\n%s", repo, s.stdout)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
}

// TestActionExplainEventPayloadIsBounded: the event payload explain: event
// reads is read to at most action.MaxEventPayload; a larger one (here a
// sparse file, all zeros) fails before any request, naming the bound.
func TestActionExplainEventPayloadIsBounded(t *testing.T) {
	api, hits := countingAPI(t)
	s := newActionStep(t)
	event := filepath.Join(s.dir, "event.json")
	f, err := os.Create(event)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(action.MaxEventPayload + 1)
	f.Close()
	s.env = append(s.env, "GITHUB_API_URL="+api, "GITHUB_EVENT_PATH="+event, "GITHUB_EVENT_NAME=workflow_run")
	s.inputs["explain"], s.inputs["token"] = "event", explainToken
	s.run()
	if s.code == exitcode.OK || !strings.Contains(s.stdout, "is over 32 MiB") {
		t.Errorf("exit %d, want a failure naming the bound:\n%s", s.code, s.stdout)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
}
