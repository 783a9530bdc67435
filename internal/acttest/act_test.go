//go:build act

package acttest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// What scripts/test-act hands the tests.
const (
	binEnv    = "RETRYWISE_ACT_BIN"          // the act binary
	runnerEnv = "RETRYWISE_ACT_RUNNER_IMAGE" // the image for ubuntu-latest
	cacheEnv  = "RETRYWISE_ACT_CACHE"        // act's cache folder (XDG_CACHE_HOME)
)

var squid *proxytest.Squid

func TestMain(m *testing.M) {
	for _, v := range []string{binEnv, runnerEnv, "DOCKER_HOST"} {
		if os.Getenv(v) == "" {
			fmt.Fprintf(os.Stderr, "acttest: %s is not set; run it through ./scripts/test-act, which installs act, starts podman's Docker API and builds the images\n", v)
			os.Exit(1)
		}
	}
	var err error
	squid, err = proxytest.StartSquid(proxytest.SquidOptions{Allow: []string{".allowed.test"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "acttest:", err)
		os.Exit(1)
	}
	code := m.Run()
	squid.Close()
	os.Exit(code)
}

// api is the stand-in API on 127.0.0.1: every path answers 503 the first
// time and 200 (or what answer says) after.
type api struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	answer func(r *http.Request) (int, string)
}

func newAPI(t *testing.T, answer func(r *http.Request) (int, string)) *api {
	a := &api{hits: map[string]int{}, answer: answer}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		key := r.Method + " " + r.URL.Path
		a.hits[key]++
		n := a.hits[key]
		a.mu.Unlock()
		if n == 1 && r.Method == http.MethodGet {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		status, body := 200, fmt.Sprintf(`{"ok":true,"path":%q}`, r.URL.Path)
		if a.answer != nil {
			status, body = a.answer(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[key]
}

// workspace makes a git repository holding files (path -> content or, with a
// leading @, the repository file of that path).
func workspace(t *testing.T, env []string, dir string, files map[string]string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
		gittest.Git(t, env, dir, "init", "--quiet", "--initial-branch=main")
	}
	for path, content := range files {
		if src, ok := strings.CutPrefix(content, "@"); ok {
			b, err := os.ReadFile(filepath.Join(repoRoot(t), src))
			if err != nil {
				t.Fatal(err)
			}
			content = string(b)
		}
		p := filepath.Join(dir, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(path, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, env, dir, "add", "-A")
	gittest.Git(t, env, dir, "commit", "--quiet", "-m", "workflows")
	return dir
}

// actRun is one act run: its log, its exit code and when the first attempt began.
type actRun struct {
	log          string
	code         int
	elapsed      time.Duration
	firstAttempt time.Duration
}

// act runs the workflow file of dir with act as the README says, offline:
// the local job image, no pulls, no rebuilds, the action from this checkout
// for retrywise/retrywise@v1, the workspace bound (-b) instead of copied.
func act(t *testing.T, dir, workflow string, vars ...string) actRun {
	t.Helper()
	args := []string{"workflow_dispatch", "-W", filepath.Join(".github", "workflows", workflow),
		"-P", "ubuntu-latest=" + os.Getenv(runnerEnv),
		"--pull=false", "--rebuild=false", "--action-offline-mode",
		"--network", "host", "--container-daemon-socket", "-",
		"--local-repository", "retrywise/retrywise@v1=" + repoRoot(t), "-b"}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	limit := 5 * time.Minute
	if os.Getenv("RETRYWISE_ACT_MEASURE") == "cold" {
		limit = 15 * time.Minute // act builds the image through the Docker API
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Getenv(binEnv), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+os.Getenv(cacheEnv), "NO_COLOR=1")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	r := actRun{}
	var b strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if r.firstAttempt == 0 && strings.Contains(line, "attempt 1") {
				r.firstAttempt = time.Since(start)
			}
			b.WriteString(line + "\n")
		}
	}()
	err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // a non-zero exit is r.code, a timeout ctx.Err()
	pw.Close()
	<-done
	r.elapsed, r.log = time.Since(start), b.String()
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		t.Fatalf("act timed out after %v:\n%s", r.elapsed, r.log)
	}
	t.Logf("act %s: exit %d in %.1fs, first attempt at %.1fs", workflow, r.code, r.elapsed.Seconds(), r.firstAttempt.Seconds())
	return r
}

// lines returns the log's lines that hold every one of subs.
func lines(log string, subs ...string) []string {
	var out []string
next:
	for _, l := range strings.Split(log, "\n") {
		for _, s := range subs {
			if !strings.Contains(l, s) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// TestModes: run: and url modes, their outputs, the report and the body-file
// read by later steps from act's /var/run/act, a denial by the proxy with one
// ::error, and a job output read by the next job.
func TestModes(t *testing.T) {
	env := gittest.Env(t)
	a := newAPI(t, nil)
	ws := workspace(t, env, "", map[string]string{".github/workflows/modes.yml": "@internal/acttest/testdata/modes.yml"})
	r := act(t, ws, "modes.yml", "API="+a.URL, "SQUID="+squid.URL)
	if r.code != 0 {
		t.Fatalf("act exit %d:\n%s", r.code, r.log)
	}
	for _, want := range []string{"CHECKED run", "CHECKED url", "CHECKED denied", "CHECKED job outputs"} {
		if len(lines(r.log, "| "+want)) != 1 {
			t.Errorf("act's log has no %q", want)
		}
	}
	if got := lines(r.log, "::error"); len(got) != 1 || !strings.Contains(got[0], "proxy-denied") {
		t.Errorf("act's log has %d ::error lines, want the one of the denial (proxy-denied): %q", len(got), got)
	}
	// the step summaries (act prints $GITHUB_STEP_SUMMARY), and the report
	// on the log naming the transient and the policy failure
	if n := len(lines(r.log, "Summary - ### retrywise")); n != 3 {
		t.Errorf("act's log has %d step summaries of retrywise, want 3", n)
	}
	if len(lines(r.log, "| ", "class:", "policy")) == 0 || len(lines(r.log, "| ", "transient")) == 0 {
		t.Errorf("act's log has no report naming the transient and the policy failure")
	}
	if a.count("GET /run") != 2 || a.count("GET /url") != 2 {
		t.Errorf("the API got %v, want /run and /url twice each (503, then 200)", a.hits)
	}
	if n, err := squid.CountLog("blocked.denied.test"); err != nil || n == 0 {
		t.Errorf("Squid did not see the denied request: %d %v", n, err)
	}
	// nothing in the workspace, where a later `git add -A` would commit it
	if st := gittest.Git(t, env, ws, "status", "--porcelain", "--ignored"); strings.TrimSpace(st) != "" {
		t.Errorf("the run left files in the workspace:\n%s", st)
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", r.log)
	}
}

// TestScheduledJobFile: examples/workflows/scheduled-job-file.yml as it is,
// with its job file, on the "no quota left" path: the quota answers 503
// then 200 {"left": 0}; the post is skipped and the run is green.
func TestScheduledJobFile(t *testing.T) {
	env := gittest.Env(t)
	a := newAPI(t, func(r *http.Request) (int, string) {
		if r.URL.Path == "/quota" {
			return 200, `{"left":0}`
		}
		return 201, `{"id":7}`
	})
	ws := workspace(t, env, "", map[string]string{
		".github/workflows/scheduled-job-file.yml": "@examples/workflows/scheduled-job-file.yml",
		".github/retrywise/publish.yml":            "@examples/workflows/retrywise/publish.yml",
	})
	r := act(t, ws, "scheduled-job-file.yml", "PUBLISH_API="+a.URL)
	if r.code != 0 {
		t.Fatalf("act exit %d:\n%s", r.code, r.log)
	}
	if len(lines(r.log, "| result=success attempts=2 quota-left=0")) != 1 {
		t.Errorf("the step after the job file did not get its outputs")
	}
	if a.count("GET /quota") != 2 || a.count("POST /posts") != 0 {
		t.Errorf("the API got %v, want GET /quota twice and no post", a.hits)
	}
	if len(lines(r.log, "::error")) != 0 {
		t.Errorf("a green run has ::error lines: %q", lines(r.log, "::error"))
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", r.log)
	}
}

// TestPushToAMovedRemote: examples/workflows/push.yml as it is, in a clone
// whose remote moved on: the push is refused as non-fast-forward (65), one
// ::error says so with the remedy, and the remote keeps the other commit.
func TestPushToAMovedRemote(t *testing.T) {
	env := gittest.Env(t)
	srv := gittest.NewServer(t, env)
	url, _ := srv.NewRepo(t, "site.git")
	seed := gittest.NewWork(t, env, url)
	gittest.Git(t, env, seed, "push", "--quiet", "origin", "HEAD:main")
	ws := gittest.Clone(t, env, url)
	other := gittest.Clone(t, env, url)
	moved := gittest.Commit(t, env, other, "other.txt", "someone else\n", "moved on")
	gittest.Git(t, env, other, "push", "--quiet", "origin", "HEAD:main")
	workspace(t, env, ws, map[string]string{
		".github/workflows/push.yml": "@examples/workflows/push.yml",
		"scripts/generate.sh":        "#!/bin/sh\ndate -u > generated.txt\n",
	})
	r := act(t, ws, "push.yml")
	if r.code == 0 {
		t.Fatalf("act exit 0, want the push step's failure:\n%s", r.log)
	}
	// git says "fetch first" when the remote has commits the clone never
	// fetched, "non-fast-forward" when it has them: the same refusal
	errs := lines(r.log, "::error")
	if len(errs) != 1 || !strings.Contains(errs[0], "structural") || !strings.Contains(errs[0], "git pull --rebase") {
		t.Errorf("act's log has %d ::error lines, want one naming the refusal and its remedy: %q", len(errs), errs)
	}
	if len(lines(r.log, "exit with `FAILURE`: 65")) != 1 || len(lines(r.log, "::set-output:: class=structural")) != 1 {
		t.Errorf("act's log does not show exit 65 and class structural")
	}
	if len(lines(r.log, "Summary - ### retrywise: push")) != 1 {
		t.Errorf("act's log has no step summary of the push")
	}
	head := gittest.Git(t, env, other, "ls-remote", url, "refs/heads/main")
	if !strings.HasPrefix(head, moved) {
		t.Errorf("the remote's main is %q, want the other writer's %s", head, moved)
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", r.log)
	}
}

// TestMeasureStart measures act's start to the first attempt, once, for the
// README (RETRYWISE_ACT_MEASURE=cold|warm, set by scripts/test-act).
func TestMeasureStart(t *testing.T) {
	which := os.Getenv("RETRYWISE_ACT_MEASURE")
	if which == "" {
		t.Skip("RETRYWISE_ACT_MEASURE is not set: scripts/test-act measures only when asked")
	}
	env := gittest.Env(t)
	ws := workspace(t, env, "", map[string]string{".github/workflows/hello.yml": `name: hello
on: workflow_dispatch
jobs:
  hello:
    runs-on: ubuntu-latest
    steps:
      - uses: retrywise/retrywise@v1
        with:
          run: echo hello
`})
	r := act(t, ws, "hello.yml")
	if r.code != 0 || r.firstAttempt == 0 {
		t.Fatalf("act exit %d, first attempt %v:\n%s", r.code, r.firstAttempt, r.log)
	}
	t.Logf("MEASURE %s %s: act start to the first attempt %.1fs, whole run %.1fs", which, os.Getenv("RETRYWISE_ACT_STORAGE"), r.firstAttempt.Seconds(), r.elapsed.Seconds())
}
