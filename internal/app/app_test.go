package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/step"
)

func testApp(env []string) *App {
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
	return &App{Env: env, Clock: clk, Breakers: breaker.NewRegistry(clk), UserAgent: "retrywise/test", Rand: func() float64 { return 0.5 }}
}

// TestExplainToken: the token given, else $GITHUB_TOKEN, else $GH_TOKEN.
func TestExplainToken(t *testing.T) {
	tests := []struct {
		given string
		env   []string
		want  string
	}{
		{"flag", []string{"GITHUB_TOKEN=a", "GH_TOKEN=b"}, "flag"},
		{"", []string{"GITHUB_TOKEN=a", "GH_TOKEN=b"}, "a"},
		{"", []string{"GH_TOKEN=b"}, "b"},
		{"", []string{"GITHUB_TOKEN=", "GH_TOKEN=b"}, "b"},
		{"", nil, ""},
	}
	for _, tt := range tests {
		if got := testApp(tt.env).ExplainToken(tt.given); got != tt.want {
			t.Errorf("ExplainToken(%q) with %q = %q, want %q", tt.given, tt.env, got, tt.want)
		}
	}
}

// TestLoadJobFile: an invalid file is an *InvalidJobFile and 78, with
// every error; a file that is not there is 78; a valid one loads.
func TestLoadJobFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	os.WriteFile(bad, []byte("version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {command: [true], max-attempts: 0}\n"), 0o644)
	a := testApp(nil)
	_, code, err := a.LoadJobFile(context.Background(), bad)
	var invalid *InvalidJobFile
	if code != exitcode.Config || !errors.As(err, &invalid) || len(invalid.Errs) != 1 || !strings.HasSuffix(err.Error(), " (1 error): nothing ran") {
		t.Errorf("invalid file: code %d, err %v", code, err)
	}
	_, code, err = a.LoadJobFile(context.Background(), filepath.Join(dir, "none.yml"))
	if code != exitcode.Config || err == nil || errors.As(err, &invalid) {
		t.Errorf("missing file: code %d, err %v", code, err)
	}
	good := filepath.Join(dir, "good.yml")
	os.WriteFile(good, []byte("version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {command: [\"true\"]}\n"), 0o644)
	l, code, err := a.LoadJobFile(context.Background(), good)
	if err != nil || code != exitcode.OK || l == nil {
		t.Fatalf("valid file: code %d, err %v", code, err)
	}
	var out, errb bytes.Buffer
	_, code, err = a.OpenJob(JobOptions{Loaded: l, Job: "nope", Session: jobs.SessionOptions{Stdout: &out, Stderr: &errb}})
	if code != exitcode.Usage || err == nil {
		t.Errorf("unknown job: code %d, err %v", code, err)
	}
	js, _, err := a.OpenJob(JobOptions{Loaded: l, Session: jobs.SessionOptions{Stdout: &out, Stderr: &errb}})
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	rep, code, err := a.RunJob(context.Background(), js)
	if err != nil || code != exitcode.OK || len(rep.Steps) != 1 || !rep.Steps[0].OK() {
		t.Errorf("run: code %d, err %v, report %+v", code, err, rep)
	}
}

// TestRunStep: a real process's exit code is the step's; the report has
// its attempts.
func TestRunStep(t *testing.T) {
	a := testApp(os.Environ())
	c := step.ExecKind.New()
	fd := step.Lookup(c.Fields(), "command")
	if err := fd.SetValues([]string{"sh", "-c", "exit 3"}); err != nil {
		t.Fatal(err)
	}
	if err := step.Lookup(c.Fields(), "max-attempts").SetValues([]string{"1"}); err != nil {
		t.Fatal(err)
	}
	p, err := step.Prepare(context.Background(), step.ExecKind, c)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	red := a.Redactor()
	io := &step.IO{Stdin: strings.NewReader(""), Stdout: red.Writer(&out), Stderr: red.Writer(&errb), Red: red, Env: a.Env}
	rep, code, err := a.RunStep(context.Background(), StepOptions{Step: p, IO: io})
	if err != nil || rep == nil || code != rep.ExitCode || code == exitcode.OK || rep.AttemptCount() != 1 {
		t.Errorf("code %d, err %v, report %+v", code, err, rep)
	}
}

// TestRepoTarget: a run named by repository and ID is on
// $GITHUB_SERVER_URL's host when set, else github.com.
func TestRepoTarget(t *testing.T) {
	if got := testApp(nil).RepoTarget("o", "r", 7); got.Host != "github.com" || got.Owner != "o" || got.Repo != "r" || got.RunID != 7 {
		t.Errorf("no server: %+v", got)
	}
	if got := testApp([]string{"GITHUB_SERVER_URL=https://ghe.example.com"}).RepoTarget("o", "r", 7); got.Host != "ghe.example.com" {
		t.Errorf("GHES: %+v", got)
	}
}
