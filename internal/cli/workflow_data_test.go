package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// runInWorkflow runs the command line args as a run: step of a workflow
// runs it (GITHUB_ACTIONS=true), in-process, and returns the exit code and
// what the runner's log shows: stdout and stderr.
func runInWorkflow(t *testing.T, env []string, stdin string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &Command{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Env: append([]string{"GITHUB_ACTIONS=true"}, env...),
		Clock: clock.NewFake(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC), true), Version: "test", Rand: noJitter}
	code := c.Main(context.Background(), append([]string{"retrywise"}, args...))
	return code, out.String() + "\n" + errb.String()
}

// TestCommandLineInAWorkflowPrintsOutsideTextAsData: a command line run by
// a workflow's run: step writes into the runner's log as the action does,
// so what it quotes from outside (an API's names, messages and log lines,
// a server's answer, the text classify reads) sets no output, masks
// nothing and annotates nothing: no line retrywise prints is a command.
// A child's own output is its own (TestCommandLineInAWorkflowKeepsTheChildsCommands).
func TestCommandLineInAWorkflowPrintsOutsideTextAsData(t *testing.T) {
	body := strings.Join(hostile, "\n") + "\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	job := filepath.Join(dir, "job.yml")
	os.WriteFile(job, []byte(fmt.Sprintf("version: 1\njobs:\n  nightly:\n    steps:\n      - id: call\n        http:\n          url: %s/item\n", srv.URL)), 0o644)
	var hits atomic.Int32
	api := hostileExplainServer(t, &hits)
	for _, tt := range []struct {
		name  string
		env   []string
		stdin string
		args  []string
	}{
		{"http", nil, "", []string{"http", srv.URL + "/item"}},
		{"run", nil, "", []string{"run", "--config", job}},
		{"classify", nil, body, []string{"classify"}},
		{"explain", []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken}, "", []string{"explain", "https://github.com/o/r/actions/runs/7"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, log := runInWorkflow(t, tt.env, tt.stdin, tt.args...)
			for _, line := range strings.Split(log, "\n") {
				if readAsCommand(line) {
					t.Errorf("the log holds a command retrywise did not mean: %q", line)
				}
			}
			if !strings.Contains(log, "set-output name=evil") {
				t.Errorf("the outside text is not shown at all:\n%s", log)
			}
		})
	}
}

// TestCommandLineInAWorkflowKeepsTheChildsCommands: the child's own lines
// reach the runner as it wrote them, commands included; only retrywise's
// own text is defused.
func TestCommandLineInAWorkflowKeepsTheChildsCommands(t *testing.T) {
	code, log := runInWorkflow(t, nil, "", "exec", "--", "sh", "-c", `echo "::notice::from the child"; echo "::warning::on stderr" >&2`)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, log)
	}
	for _, want := range []string{"\n::notice::from the child\n", "\n::warning::on stderr\n"} {
		if !strings.Contains("\n"+log, want) {
			t.Errorf("the log lacks the child's %q:\n%s", strings.TrimSpace(want), log)
		}
	}
}
