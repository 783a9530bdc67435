package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestExplainCommandCannotReadTheRun: the cases where explain cannot read
// the run, each with its exit code and a message that says so, never a
// failed step of the run; without a token nothing is sent.
func TestExplainCommandCannotReadTheRun(t *testing.T) {
	var hits atomic.Int32
	var status atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(status.Load()))
		// The API's message quotes the token: it is masked.
		w.Write([]byte(`{"message":"Bad token ` + explainToken + `","documentation_url":"https://docs.github.com/rest"}`))
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	run := "https://github.com/o/r/actions/runs/7"
	withToken := func(api string) []string { return []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken} }

	code, stdout, stderr := runExplainCLI(t, []string{"GITHUB_API_URL=" + srv.URL + "/"}, run)
	if code != 78 || hits.Load() != 0 || !strings.Contains(stderr, "GITHUB_TOKEN") || !strings.Contains(stderr, "GH_TOKEN") {
		t.Errorf("no token: exit %d, %d requests\nstdout: %s\nstderr: %s", code, hits.Load(), stdout, stderr)
	}

	for _, tt := range []struct {
		status, code int
	}{{401, 77}, {403, 77}, {404, 66}} {
		status.Store(int32(tt.status))
		code, stdout, stderr := runExplainCLI(t, withToken(srv.URL+"/"), run)
		if code != tt.code || !strings.Contains(stderr, "retrywise: explain could not read the run") || !strings.Contains(stderr, "Bad token") {
			t.Errorf("%d: exit %d, want %d\nstdout: %s\nstderr: %s", tt.status, code, tt.code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, "failed step") || strings.Contains(stdout+stderr, explainToken) {
			t.Errorf("%d: a failed step, or the token:\nstdout: %s\nstderr: %s", tt.status, stdout, stderr)
		}
	}

	start := time.Now()
	code, stdout, stderr = runExplainCLI(t, withToken(closed), run)
	if code != 75 || !strings.Contains(stderr, "explain could not reach the GitHub API") || strings.Contains(stdout, "failed step") || time.Since(start) > 30*time.Second {
		t.Errorf("unreachable: exit %d in %s\nstdout: %s\nstderr: %s", code, time.Since(start), stdout, stderr)
	}
}

// TestActionExplainCannotReadTheRun: the action's explain mode, the same
// cases: no token exits 78 before any request; a 401 exits 77 with the
// API's message, as explain's failure, not a step of the run.
func TestActionExplainCannotReadTheRun(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Bad credentials"}`))
	}))
	defer srv.Close()

	s := newActionStep(t)
	s.env = append(s.env, "GITHUB_API_URL="+srv.URL+"/")
	s.inputs["explain"] = "https://github.com/o/r/actions/runs/7"
	s.run()
	if s.code != 78 || hits.Load() != 0 || !strings.Contains(s.stdout, "GITHUB_TOKEN") || !strings.Contains(s.stdout, "GH_TOKEN") {
		t.Errorf("no token: exit %d, %d requests\n%s", s.code, hits.Load(), s.stdout)
	}

	s = newActionStep(t)
	s.env = append(s.env, "GITHUB_API_URL="+srv.URL+"/")
	s.inputs["explain"], s.inputs["token"] = "https://github.com/o/r/actions/runs/7", explainToken
	s.run()
	if s.code != 77 || !strings.Contains(s.stdout, "explain could not read the run") || !strings.Contains(s.stdout, "Bad credentials") || strings.Contains(s.stdout, "failed step") {
		t.Errorf("401: exit %d\n%s", s.code, s.stdout)
	}
}
