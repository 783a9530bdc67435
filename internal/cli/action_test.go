package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/outputfile"
	"github.com/retrywise/retrywise/internal/report/reporttest"
)

// actionStep is a step of a workflow as the runner sets one up for the
// action: its file commands, temp folder and workspace, and its inputs.
type actionStep struct {
	t                                  *testing.T
	dir                                string
	output, summary, envFile, pathFile string
	temp, workspace                    string
	env                                []string
	inputs                             map[string]string
	stdout                             string
	code                               int
	clk                                *clock.Fake
}

// newActionStep returns a step with the runner's variables set and no inputs.
func newActionStep(t *testing.T) *actionStep {
	t.Helper()
	dir := t.TempDir()
	s := &actionStep{t: t, dir: dir, inputs: map[string]string{},
		output: filepath.Join(dir, "file_commands", "set_output_1"), summary: filepath.Join(dir, "file_commands", "step_summary_1"),
		envFile: filepath.Join(dir, "file_commands", "set_env_1"), pathFile: filepath.Join(dir, "file_commands", "add_path_1"),
		temp: filepath.Join(dir, "_temp"), workspace: filepath.Join(dir, "workspace")}
	for _, d := range []string{filepath.Dir(s.output), s.workspace, s.temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range gittest.Env(t) {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "RUNNER_") || k == "ACT" {
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(s.env, "GITHUB_ACTIONS=true", "GITHUB_OUTPUT="+s.output, "GITHUB_STEP_SUMMARY="+s.summary,
		"GITHUB_ENV="+s.envFile, "GITHUB_PATH="+s.pathFile, "RUNNER_TEMP="+s.temp, "GITHUB_WORKSPACE="+s.workspace)
	return s
}

// run runs `retrywise action` in-process with the inputs, in the workspace,
// on a fake clock that fires every wait at once.
func (s *actionStep) run() *actionStep {
	s.t.Helper()
	env := append([]string(nil), s.env...)
	for k, v := range s.inputs {
		env = append(env, action.InputVar(k)+"="+v)
	}
	var out bytes.Buffer
	s.clk = clock.NewFake(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), true)
	c := &Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Env: env, Clock: s.clk, Version: "test", Rand: noJitter}
	s.code = c.Main(context.Background(), []string{"retrywise", "action"})
	s.stdout = out.String()
	return s
}

// outputs parses $GITHUB_OUTPUT as the runner does.
func (s *actionStep) outputs() map[string]string {
	s.t.Helper()
	f, err := os.Open(s.output)
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	entries, err := outputfile.Parse(f)
	if err != nil {
		s.t.Fatalf("$GITHUB_OUTPUT does not parse: %v", err)
	}
	return outputfile.Map(entries)
}

func (s *actionStep) read(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// commands counts the log's lines that start with the workflow command ::name.
func commands(log, name string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "::"+name+"::") || strings.HasPrefix(line, "::"+name+" ") {
			n++
		}
	}
	return n
}

func TestActionRunSucceedsWithOutputsEnvPathAndSummary(t *testing.T) {
	s := newActionStep(t)
	s.inputs["run"] = `echo greeting=hi >> "$GITHUB_OUTPUT"
echo FOO=bar >> "$GITHUB_ENV"
echo /opt/tool/bin >> "$GITHUB_PATH"
echo '### from the script' >> "$GITHUB_STEP_SUMMARY"
echo working in $(pwd)`
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	for k, want := range map[string]string{"greeting": "hi", "result": "success", "exit-code": "0", "attempts": "1", "class": "", "code": ""} {
		if out[k] != want {
			t.Errorf("output %s = %q, want %q", k, out[k], want)
		}
	}
	var outs map[string]any
	if err := json.Unmarshal([]byte(out["outputs"]), &outs); err != nil || outs["greeting"] != "hi" {
		t.Errorf("outputs = %q (%v), want JSON with greeting", out["outputs"], err)
	}
	if env := s.read(s.envFile); !strings.Contains(env, "FOO<<") || !strings.Contains(env, "\nbar\n") {
		t.Errorf("$GITHUB_ENV = %q, want FOO=bar", env)
	}
	if p := s.read(s.pathFile); p != "/opt/tool/bin\n" {
		t.Errorf("$GITHUB_PATH = %q", p)
	}
	sum := s.read(s.summary)
	if i, j := strings.Index(sum, "### from the script"), strings.Index(sum, "| exec |"); i < 0 || j < 0 || i > j {
		t.Errorf("summary lacks the script's part then the report's:\n%s", sum)
	}
	if !strings.Contains(s.stdout, "\nworking in /") {
		t.Errorf("log lacks the script's output:\n%s", s.stdout)
	}
	if commands(s.stdout, "group") != 1 || commands(s.stdout, "endgroup") != 1 {
		t.Errorf("want one group for the one attempt:\n%s", s.stdout)
	}
	if commands(s.stdout, "warning") != 0 || commands(s.stdout, "error") != 0 {
		t.Errorf("a first-time success has no annotation:\n%s", s.stdout)
	}
	if !strings.HasPrefix(out["report"], s.temp+string(filepath.Separator)) {
		t.Errorf("report %q is not under $RUNNER_TEMP %s", out["report"], s.temp)
	}
	reporttest.ValidateFile(t, out["report"])
}

func TestActionRunRecoversWithOneWarningAndOnlyTheFinalAttemptsOutputs(t *testing.T) {
	s := newActionStep(t)
	count := filepath.Join(s.dir, "count")
	s.inputs["run"] = `n=$(cat ` + count + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + count + `
echo "try=$n" >> "$GITHUB_OUTPUT"
echo "STALE_$n=1" >> "$GITHUB_ENV"
if [ $n -lt 3 ]; then echo "curl: (56) Recv failure: Connection reset by peer" >&2; exit 56; fi
echo done`
	s.inputs["schedule"] = "100ms"
	s.inputs["max-attempts"] = "3"
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	if out["try"] != "3" || out["attempts"] != "3" || out["result"] != "success" {
		t.Errorf("outputs try=%q attempts=%q result=%q, want 3, 3, success", out["try"], out["attempts"], out["result"])
	}
	if env := s.read(s.envFile); strings.Contains(env, "STALE_1") || strings.Contains(env, "STALE_2") || !strings.Contains(env, "STALE_3") {
		t.Errorf("$GITHUB_ENV = %q, want the final attempt's only", env)
	}
	if n := commands(s.stdout, "warning"); n != 1 {
		t.Errorf("%d warnings, want exactly one for the recovery:\n%s", n, s.stdout)
	}
	if !strings.Contains(s.stdout, "succeeded after 3 attempts: attempt 1 failed (transient") {
		t.Errorf("the warning does not say what recovered:\n%s", s.stdout)
	}
	if commands(s.stdout, "group") != 3 || commands(s.stdout, "endgroup") != 3 {
		t.Errorf("want a group per attempt:\n%s", s.stdout)
	}
	if waits := s.clk.Waits(); len(waits) != 2 || waits[0] != 100*time.Millisecond || waits[1] != 100*time.Millisecond {
		t.Errorf("waits = %v, want two of the input's 100ms", waits)
	}
}

func TestActionRunCurlDeniedByTheProxyStopsAsPolicy(t *testing.T) {
	s := newActionStep(t)
	host := uniqueHost("action-denied")
	s.env = append(s.env, "https_proxy="+squid.URL)
	s.inputs["run"] = "curl -sS https://" + host + "/"
	s.inputs["schedule"] = "10s,20s"
	s.run()
	if s.code != exitcode.Policy {
		t.Fatalf("exit %d, want 77:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	if out["class"] != "policy" || out["code"] != "proxy-denied" || out["result"] != "failure" || out["exit-code"] != "77" || out["remedy"] == "" {
		t.Errorf("outputs = %v", out)
	}
	if n := commands(s.stdout, "error"); n != 1 {
		t.Errorf("%d error annotations, want one:\n%s", n, s.stdout)
	}
	if len(s.clk.Waits()) != 0 {
		t.Errorf("a policy stop waited %v", s.clk.Waits())
	}
}

func TestActionPushToAMovedRemoteStopsAsStructuralInsideStopCommands(t *testing.T) {
	s := newActionStep(t)
	env := s.env
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	other := gittest.Clone(t, env, gittest.FileURL(bare))
	gittest.Commit(t, env, other, "theirs.txt", "x\n", "theirs")
	gittest.Git(t, env, other, "push", "--quiet", "origin", "main")
	gittest.Commit(t, env, work, "mine.txt", "y\n", "mine")

	s.inputs["push"] = "true"
	s.inputs["push-args"] = "origin HEAD:main"
	s.inputs["dir"] = work
	s.run()
	if s.code != exitcode.Structural {
		t.Fatalf("exit %d, want 65:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	if out["class"] != "structural" || !strings.Contains(out["remedy"], "git pull --rebase") {
		t.Errorf("class %q remedy %q", out["class"], out["remedy"])
	}
	// The action's remedy names its input, not the command line's flag.
	if !strings.Contains(out["remedy"], "with: rebase-on-reject: 1") || strings.Contains(out["remedy"], "--rebase-on-reject") {
		t.Errorf("remedy %q does not name the input", out["remedy"])
	}
	if out["pushed"] == "" {
		t.Errorf("push's own outputs are not the step's: %v", out)
	}
	checkStopCommands(t, s.stdout, "[rejected] (fetch first)")
	if n := commands(s.stdout, "error"); n != 1 {
		t.Errorf("%d error annotations, want one:\n%s", n, s.stdout)
	}
}

func TestActionPushRemoteCannotIssueCommands(t *testing.T) {
	s := newActionStep(t)
	env := s.env
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	// A hook on the remote that declines the push and tries to set an
	// output and raise an error through the log.
	gittest.Hook(t, bare, "pre-receive", "#!/bin/sh\necho '::set-output name=pwned::1 remote-marker'\necho '::error::remote-marker'\nexit 1\n")
	s.inputs["push"] = "true"
	s.inputs["push-args"] = "origin HEAD:main"
	s.inputs["dir"] = work
	s.run()
	if s.code == exitcode.OK {
		t.Fatalf("exit 0 for a declined push:\n%s", s.stdout)
	}
	if out := s.outputs(); out["pwned"] != "" {
		t.Errorf("the remote set an output: %v", out)
	}
	checkStopCommands(t, s.stdout, "remote-marker")
}

// checkStopCommands fails unless every line of log containing marker lies
// between a ::stop-commands::TOKEN line and the matching ::TOKEN:: line.
func checkStopCommands(t *testing.T, log, marker string) {
	t.Helper()
	token := ""
	seen := false
	for _, line := range strings.Split(log, "\n") {
		switch {
		case token == "" && strings.HasPrefix(line, "::stop-commands::"):
			token = strings.TrimPrefix(line, "::stop-commands::")
		case token != "" && line == "::"+token+"::":
			token = ""
		case strings.Contains(line, marker):
			seen = true
			if token == "" {
				t.Errorf("%q is outside stop-commands:\n%s", line, log)
			}
		}
	}
	if !seen {
		t.Errorf("the log never shows %q:\n%s", marker, log)
	}
}

func TestActionNeverShowsTheToken(t *testing.T) {
	const token = "ghs_actionTokenValue1234567890abcdef"
	s := newActionStep(t)
	s.inputs["token"] = token
	s.inputs["run"] = `echo "the token is $INPUT_TOKEN"; echo "leak=$INPUT_TOKEN" >> "$GITHUB_OUTPUT"; echo "$INPUT_TOKEN" >&2; exit 3`
	s.run()
	if s.code == exitcode.OK {
		t.Fatalf("exit 0:\n%s", s.stdout)
	}
	if got := strings.Count(s.stdout, token); got != 1 || !strings.Contains(s.stdout, "::add-mask::"+token+"\n") {
		t.Errorf("the token shows %d times; want once, in the add-mask line:\n%s", got, s.stdout)
	}
	if i := strings.Index(s.stdout, "::add-mask::"); i != 0 {
		t.Errorf("add-mask is not the first line (at %d):\n%s", i, s.stdout)
	}
	out := s.outputs()
	for _, f := range []string{s.output, s.summary, out["report"]} {
		if strings.Contains(s.read(f), token) {
			t.Errorf("%s holds the token", f)
		}
	}
	if out["leak"] != "***" {
		t.Errorf("output leak = %q, want it masked", out["leak"])
	}
}

func TestActionMasksOnlyUnderTheRunner(t *testing.T) {
	s := newActionStep(t)
	for i, kv := range s.env {
		if kv == "GITHUB_ACTIONS=true" {
			s.env[i] = "GITHUB_ACTIONS=false"
		}
	}
	s.inputs["token"] = "ghs_notUnderTheRunner1234567890"
	s.inputs["run"] = "true"
	s.run()
	if s.code != exitcode.OK || strings.Contains(s.stdout, "add-mask") || strings.Contains(s.stdout, "ghs_notUnderTheRunner") {
		t.Errorf("exit %d; outside the runner no add-mask and no token:\n%s", s.code, s.stdout)
	}
}

func TestActionReservedOutputNamesStayInsideOutputs(t *testing.T) {
	s := newActionStep(t)
	s.inputs["run"] = `echo result=hacked >> "$GITHUB_OUTPUT"; echo mine=1 >> "$GITHUB_OUTPUT"`
	s.run()
	out := s.outputs()
	if s.code != exitcode.OK || out["result"] != "success" || out["mine"] != "1" {
		t.Fatalf("exit %d, outputs %v:\n%s", s.code, out, s.stdout)
	}
	var outs map[string]any
	json.Unmarshal([]byte(out["outputs"]), &outs)
	if outs["result"] != "hacked" {
		t.Errorf("outputs = %s, want the script's result inside", out["outputs"])
	}
	if n := commands(s.stdout, "warning"); n != 1 || !strings.Contains(s.stdout, `"result"`) {
		t.Errorf("want one warning naming the reserved output:\n%s", s.stdout)
	}
}

func TestActionHTTPBodyIsAFileAndTheServerCannotIssueCommands(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, `{"id": 42, "note": "::error::body-marker"}`)
	}))
	defer srv.Close()
	s := newActionStep(t)
	s.inputs["url"] = srv.URL + "/item"
	s.inputs["field"] = "id=.id\nnote=.note"
	s.inputs["schedule"] = "1s"
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	if out["id"] != "42" || out["status"] != "200" || out["pwned"] != "" {
		t.Errorf("outputs = %v", out)
	}
	body := s.read(out["body-file"])
	if !strings.Contains(body, `"id": 42`) || !strings.HasPrefix(out["body-file"], s.temp) {
		t.Errorf("body-file %q holds %q", out["body-file"], body)
	}
	if strings.Contains(s.stdout, "body-marker") {
		t.Errorf("the body reached the log (stdout is the log in url mode):\n%s", s.stdout)
	}
	if commands(s.stdout, "group") != 2 || commands(s.stdout, "warning") != 1 {
		t.Errorf("want two attempts' groups and one warning:\n%s", s.stdout)
	}
}

func TestActionConfigRunsAJobWithOutputsByStep(t *testing.T) {
	s := newActionStep(t)
	cfg := filepath.Join(s.dir, "job.yml")
	os.WriteFile(cfg, []byte(`version: 1
jobs:
  nightly:
    steps:
      - id: first
        exec:
          run: echo "n=1" >> "$RETRYWISE_OUTPUT"
      - id: second
        exec:
          command: [sh, -c, "echo second ran"]
`), 0o644)
	s.inputs["config"] = cfg
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	var outs map[string]map[string]any
	if err := json.Unmarshal([]byte(out["outputs"]), &outs); err != nil || outs["first"]["n"] != "1" {
		t.Errorf("outputs = %s (%v), want first.n", out["outputs"], err)
	}
	if out["attempts"] != "2" || !strings.Contains(s.stdout, "::group::step second: attempt 1 of") {
		t.Errorf("attempts %q; log:\n%s", out["attempts"], s.stdout)
	}
	reporttest.ValidateFile(t, out["report"])
}

func TestActionInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		unset  string
		code   int
		want   string
	}{
		{"no mode", map[string]string{}, "", exitcode.Usage, "no mode chosen"},
		{"two modes", map[string]string{"run": "true", "url": "http://127.0.0.1/"}, "", exitcode.Usage, "several modes chosen (run, url)"},
		{"push not a bool", map[string]string{"push": "yes"}, "", exitcode.Usage, `invalid input push "yes"`},
		{"another mode's input", map[string]string{"run": "true", "rebase-on-reject": "1"}, "", exitcode.Usage, "input rebase-on-reject does not apply to run mode"},
		{"a retry input in config mode", map[string]string{"config": "x.yml", "schedule": "1s"}, "", exitcode.Usage, "input schedule does not apply to config mode; in config mode the job file"},
		{"bad value", map[string]string{"run": "true", "max-attempts": "many"}, "", exitcode.Usage, "invalid input max-attempts"},
		{"resolve error names the input", map[string]string{"run": "true", "max-elapsed": "48h"}, "", exitcode.Usage, "invalid input max-elapsed 48h"},
		{"bad shell", map[string]string{"run": "true", "shell": "python3"}, "", exitcode.Usage, "invalid input shell"},
		{"bad step-summary", map[string]string{"run": "true", "step-summary": "maybe"}, "", exitcode.Usage, `invalid input step-summary "maybe"`},
		{"missing working-directory", map[string]string{"run": "true", "working-directory": "/nonexistent/x"}, "", exitcode.Config, "invalid input working-directory"},
		{"not under the runner", map[string]string{"run": "true"}, "GITHUB_OUTPUT", exitcode.Config, "$GITHUB_OUTPUT is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newActionStep(t)
			s.inputs = tt.inputs
			if tt.unset != "" {
				for i, kv := range s.env {
					if strings.HasPrefix(kv, tt.unset+"=") {
						s.env[i] = "UNSET_" + kv
					}
				}
			}
			s.run()
			if s.code != tt.code || !strings.Contains(s.stdout, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", s.code, tt.code, tt.want, s.stdout)
			}
		})
	}
}

func TestActionGitWorksOnAWorkspaceOwnedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatalf("this test changes a folder's owner and needs root: run go test as root (CI is root)")
	}
	s := newActionStep(t)
	gittest.Git(t, s.env, s.workspace, "init", "--quiet")
	if err := exec.Command("chown", "-R", "1234:1234", s.workspace).Run(); err != nil {
		t.Fatal(err)
	}
	// Without the action, git refuses the repository.
	if _, stderr, err := gittest.RunGit(s.env, s.workspace, "status"); err == nil || !strings.Contains(stderr, "dubious ownership") {
		t.Fatalf("git status on a foreign repository: %v %s; want dubious ownership", err, stderr)
	}
	s.inputs["run"] = `git -C "$GITHUB_WORKSPACE" status --short && echo status-ok`
	s.run()
	if s.code != exitcode.OK || !strings.Contains(s.stdout, "status-ok") {
		t.Errorf("exit %d:\n%s", s.code, s.stdout)
	}
}

// TestActionCancelledDuringWait: SIGTERM during a wait stops the action
// within a second with 143, and it still writes its outputs and report.
func TestActionCancelledDuringWait(t *testing.T) {
	bin := buildBinary(t)
	s := newActionStep(t)
	env := append([]string(nil), s.env...)
	env = append(env, action.InputVar("run")+"=echo 'curl: (28) Operation timed out' >&2; exit 28",
		action.InputVar("schedule")+"=1h", action.InputVar("jitter")+"=0", action.InputVar("max-elapsed")+"=2h")
	cmd := exec.Command(bin, "action")
	cmd.Env, cmd.Dir = env, s.workspace
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &out, "retrying in 1h0m0s")
	// The wait is an hour: exiting within stopLimit is the signal's event.
	if code := stopWithin(t, cmd, &out, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143\n%s", code, out.String())
	}
	o := s.outputs()
	if o["result"] != "cancelled" || o["exit-code"] != "143" {
		t.Errorf("outputs = %v", o)
	}
	reporttest.ValidateFile(t, o["report"])
}

// TestActionBinaryEndToEnd runs the built binary as the runner runs the
// action's entry point: INPUT_* and the file commands in a temp folder.
func TestActionBinaryEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	s := newActionStep(t)
	env := append(append([]string(nil), s.env...),
		action.InputVar("run")+"=echo \"sum=$((40+2))\" >> \"$GITHUB_OUTPUT\"; echo '::notice::the script may issue commands'",
		action.InputVar("max-attempts")+"=2", action.InputVar("token")+"=ghs_binaryTokenValue0123456789abcdef",
		action.InputVar("report-issue")+"=false", action.InputVar("step-summary")+"=true")
	cmd := exec.Command(bin, "action")
	cmd.Env, cmd.Dir = env, s.workspace
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	o := s.outputs()
	if o["sum"] != "42" || o["result"] != "success" || o["attempts"] != "1" {
		t.Errorf("outputs = %v", o)
	}
	if !strings.Contains(string(out), "\n::notice::the script may issue commands\n") || !strings.HasPrefix(string(out), "::add-mask::") || !strings.Contains(string(out), "::add-mask::ghs_binaryTokenValue0123456789abcdef\n") || strings.Count(string(out), "::add-mask::") > 3 {
		t.Errorf("log:\n%s", out)
	}
	if !strings.Contains(s.read(s.summary), "| exec |") {
		t.Errorf("summary:\n%s", s.read(s.summary))
	}
	reporttest.ValidateFile(t, o["report"])
}

// TestActionInAContainerSharesFilesThroughHome: the runner passes
// $RUNNER_TEMP as the host's path without mounting it in a container
// action, but mounts $RUNNER_TEMP/_github_home at $HOME: the report and the
// body-file go to $HOME, and the outputs name them by their host paths.
func TestActionInAContainerSharesFilesThroughHome(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, `{"ok":true}`) }))
	defer srv.Close()
	s := newActionStep(t)
	home := filepath.Join(s.dir, "github_home")
	os.MkdirAll(home, 0o755)
	hostTemp := filepath.Join(s.dir, "host", "_temp") // not there in the "container"
	for i, kv := range s.env {
		switch {
		case strings.HasPrefix(kv, "RUNNER_TEMP="):
			s.env[i] = "RUNNER_TEMP=" + hostTemp
		case strings.HasPrefix(kv, "HOME="):
			s.env[i] = "HOME=" + home
		}
	}
	s.inputs["url"] = srv.URL
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	hostHome := filepath.Join(hostTemp, "_github_home") + string(filepath.Separator)
	for _, name := range []string{"report", "body-file"} {
		rest, ok := strings.CutPrefix(out[name], hostHome)
		if !ok {
			t.Errorf("output %s = %q, want a path under %s", name, out[name], hostHome)
			continue
		}
		st, err := os.Stat(filepath.Join(home, rest))
		if err != nil || st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s is not in $HOME readable by the runner's user: %v %v", name, err, st)
		}
	}
}

// TestActionRunCurlFailDeniedByTheProxyIsProxyDenied: with --fail, curl
// reports the proxy's refused CONNECT as "(22) ... error: 403", as it
// would the server's 403; the probe names the proxy's denial.
func TestActionRunCurlFailDeniedByTheProxyIsProxyDenied(t *testing.T) {
	s := newActionStep(t)
	host := uniqueHost("action-denied-f")
	s.env = append(s.env, "https_proxy="+squid.URL)
	s.inputs["run"] = "curl -fsS \"https://" + host + "/\""
	s.run()
	out := s.outputs()
	if s.code != exitcode.Policy || out["code"] != "proxy-denied" || !strings.Contains(out["remedy"], "allowlist") {
		t.Errorf("exit %d code %q remedy %q, want 77 proxy-denied:\n%s", s.code, out["code"], out["remedy"], s.stdout)
	}
}

// TestActionUnderActSharesFilesThroughVarRunAct: act sets RUNNER_TEMP=/tmp,
// private to a Docker action's container; the report and the body-file go
// to act's shared /var/run/act, never to the workspace.
func TestActionUnderActSharesFilesThroughVarRunAct(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, `{"ok":true}`) }))
	defer srv.Close()
	old := action.ActShareDir
	t.Cleanup(func() { action.ActShareDir = old })
	action.ActShareDir = t.TempDir()
	s := newActionStep(t)
	s.env = append(s.env, "ACT=true")
	s.inputs["url"] = srv.URL
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	out := s.outputs()
	for _, name := range []string{"report", "body-file"} {
		if !strings.HasPrefix(out[name], filepath.Join(action.ActShareDir, "retrywise")+string(filepath.Separator)) {
			t.Errorf("output %s = %q, want a path under %s/retrywise", name, out[name], action.ActShareDir)
		} else if s.read(out[name]) == "" {
			t.Errorf("%s is empty", name)
		}
	}
	if entries, _ := os.ReadDir(s.workspace); len(entries) != 0 {
		t.Errorf("the workspace got files: %v", entries)
	}
}

// TestActionOutputsNotWrittenIsOneWarningAnd78: a $GITHUB_OUTPUT that cannot
// be written makes a green step exit 78 with one warning; a failed step
// keeps its own code.
func TestActionOutputsNotWrittenIsOneWarningAnd78(t *testing.T) {
	for _, tt := range []struct {
		script string
		want   int
	}{
		{"echo a=1 >> \"$GITHUB_OUTPUT\"; echo fine", exitcode.Config},
		{"echo 'fatal: not a git repository' >&2; exit 128", exitcode.Structural},
	} {
		s := newActionStep(t)
		for i, kv := range s.env {
			if strings.HasPrefix(kv, "GITHUB_OUTPUT=") {
				s.output = filepath.Join(s.dir, "no such folder", "set_output")
				s.env[i] = "GITHUB_OUTPUT=" + s.output
			}
		}
		s.inputs["run"] = tt.script
		s.run()
		if s.code != tt.want {
			t.Errorf("%q: exit %d, want %d:\n%s", tt.script, s.code, tt.want, s.stdout)
		}
		if n := commands(s.stdout, "warning"); n != 1 {
			t.Errorf("%q: %d warnings, want 1:\n%s", tt.script, n, s.stdout)
		}
		if !strings.Contains(s.stdout, "cannot write to $GITHUB_OUTPUT") {
			t.Errorf("%q: the warning does not name $GITHUB_OUTPUT:\n%s", tt.script, s.stdout)
		}
	}
}

// TestActionGitIdentity: a run: script that commits in a container with no
// git identity gets the GitHub Actions bot's (git's "Author identity
// unknown" no longer fails it); git-user-name/git-user-email override it;
// a repository that names its own committer keeps it.
func TestActionGitIdentity(t *testing.T) {
	script := `cd "$GITHUB_WORKSPACE" && git init -q . && git commit -q --allow-empty -m x && git log -1 --format='who=%an <%ae>' >> "$GITHUB_OUTPUT"`
	strip := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GIT_AUTHOR_") && !strings.HasPrefix(k, "GIT_COMMITTER_") && k != "EMAIL" {
				out = append(out, kv)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		inputs     map[string]string
		repoConfig bool
		want       string
	}{
		{"no identity anywhere", nil, false, "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"},
		{"inputs", map[string]string{"git-user-name": "Release Bot", "git-user-email": "release@example.test"}, false, "Release Bot <release@example.test>"},
		{"the repository's own", nil, true, "Repo Owner <owner@example.test>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newActionStep(t)
			s.env = append(strip(s.env), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
			if tt.repoConfig {
				gittest.Git(t, s.env, s.workspace, "init", "-q", ".")
				gittest.Git(t, s.env, s.workspace, "config", "user.name", "Repo Owner")
				gittest.Git(t, s.env, s.workspace, "config", "user.email", "owner@example.test")
			}
			s.inputs["run"] = script
			for k, v := range tt.inputs {
				s.inputs[k] = v
			}
			s.run()
			if s.code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", s.code, s.stdout)
			}
			if got := s.outputs()["who"]; got != tt.want {
				t.Errorf("the commit's author = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestActionMasksNoSettingOfItsOwn: the GIT_CONFIG_* that retrywise sets
// itself (the workspace in safe.directory) are not secrets: no mode masks
// them, so "safe.directory" never shows as *** in the log; a real secret
// still is masked.
func TestActionMasksNoSettingOfItsOwn(t *testing.T) {
	for _, mode := range []string{"run", "config"} {
		t.Run(mode, func(t *testing.T) {
			s := newActionStep(t)
			s.env = append(s.env, "DEPLOY_TOKEN=tok-0123456789abcdef")
			if mode == "config" {
				cfg := filepath.Join(s.dir, "job.yml")
				os.WriteFile(cfg, []byte("version: 1\njobs:\n  j:\n    steps:\n      - id: show\n        exec: {run: 'git config --get-all safe.directory; echo \"$DEPLOY_TOKEN\"'}\n"), 0o644)
				s.inputs["config"] = cfg
			} else {
				s.inputs["run"] = `git config --get-all safe.directory; echo "$DEPLOY_TOKEN"`
			}
			s.run()
			if s.code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", s.code, s.stdout)
			}
			if strings.Contains(s.stdout, "::add-mask::safe.directory") || !strings.Contains(s.stdout, s.workspace) {
				t.Errorf("retrywise's own git setting was masked, or the workspace is not in safe.directory:\n%s", s.stdout)
			}
			for _, line := range strings.Split(s.stdout, "\n") {
				// The runner is told to mask it (::add-mask::); nowhere else may it show.
				if strings.Contains(line, "tok-0123456789abcdef") && !strings.HasPrefix(line, "::add-mask::") {
					t.Errorf("the token was printed: %q", line)
				}
			}
		})
	}
}
