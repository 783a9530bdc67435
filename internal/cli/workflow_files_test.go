package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
)

// The action's config: mode, retrywise run and retrywise exec inside a
// workflow (GITHUB_ACTIONS=true): every attempt of every exec step writes
// to file commands of its own, only the final attempt's reach the
// runner's, and the step summary stays within GitHub's 1 MiB.

// lateScript is a script that fails its first attempt leaving two
// background writers (A and B, lateWriter), and whose second attempt
// releases A, waits until A wrote to its file commands, and then writes
// ok=1, a heredoc, OK=1, /ok/bin and ok-summary; it also writes its
// $RETRYWISE_OUTPUT, which a job file's step outputs are made of.
func lateScript(dir string) string {
	count := filepath.Join(dir, "count")
	return `n=$(cat ` + count + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + count + `
if [ $n = 1 ]; then
` + lateWriter(dir, "A") + lateWriter(dir, "B") + `  echo "curl: (56) Recv failure: Connection reset by peer" >&2; exit 56
fi
echo go > ` + dir + `/release-A
cat ` + dir + `/done-A > /dev/null
echo ok=1 >> "$GITHUB_OUTPUT"
printf 'multi<<EOF\nx\ny\nEOF\n' >> "$GITHUB_OUTPUT"
echo OK=1 >> "$GITHUB_ENV"
echo /ok/bin >> "$GITHUB_PATH"
echo ok-summary >> "$GITHUB_STEP_SUMMARY"
echo "mine=$n" >> "$RETRYWISE_OUTPUT"
`
}

// lateFIFOs makes the FIFOs of lateScript's writers in dir, released at
// the test's end should it stop early.
func lateFIFOs(t *testing.T, dir string) map[string]string {
	t.Helper()
	fifos := mkfifos(t, dir, "release-A", "done-A", "release-B", "done-B")
	t.Cleanup(func() {
		unblockFIFO(fifos["release-A"], true)
		unblockFIFO(fifos["release-B"], true)
		unblockFIFO(fifos["done-A"], false)
		unblockFIFO(fifos["done-B"], false)
	})
	return fifos
}

// checkNoLateWrite checks that the runner's files hold the final
// attempt's writes (ok=1, the heredoc, OK, /ok/bin, ok-summary) and none
// of a late writer's (late=1, LATE, /late/bin, late-summary).
func checkNoLateWrite(t *testing.T, s *actionStep, when string) {
	t.Helper()
	out := s.outputs()
	if out["ok"] != "1" || out["multi"] != "x\ny" {
		t.Errorf("%s: outputs ok=%q multi=%q, want 1 and a heredoc's x\\ny", when, out["ok"], out["multi"])
	}
	if _, ok := out["late"]; ok || strings.Contains(s.read(s.output), "late") {
		t.Errorf("%s: a late writer of attempt 1 reached $GITHUB_OUTPUT: %q", when, s.read(s.output))
	}
	for _, f := range []struct{ path, ok, late string }{
		{s.envFile, "OK<<", "LATE"}, {s.pathFile, "/ok/bin", "/late/bin"}, {s.summary, "ok-summary", "late-summary"},
	} {
		got := s.read(f.path)
		if !strings.Contains(got, f.ok) || strings.Contains(got, f.late) {
			t.Errorf("%s: %s = %q, want the final attempt's %q and never %q", when, filepath.Base(f.path), got, f.ok, f.late)
		}
	}
}

// jobFile writes a job file in dir and returns its path.
func jobFile(t *testing.T, dir, text string) string {
	t.Helper()
	writeJob(t, dir, text)
	return filepath.Join(dir, "retrywise.yml")
}

// indent indents every line of a script by n spaces, for a YAML block.
func indent(script string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(script, "\n"), "\n", "\n"+pad) + "\n"
}

// lateJob is a job whose step flaky is lateScript, after a step that
// writes its own summary and output and before one that reads flaky's
// $RETRYWISE_OUTPUT.
func lateJob(dir string) string {
	return `version: 1
jobs:
  j:
    steps:
      - id: first
        exec:
          run: |
            echo first=1 >> "$GITHUB_OUTPUT"
            echo first-summary >> "$GITHUB_STEP_SUMMARY"
      - id: flaky
        retry: {max-attempts: 2, schedule: 1s}
        exec:
          run: |
` + indent(lateScript(dir), 12) + `      - id: after
        env: {MINE: "${steps.flaky.outputs.mine}"}
        exec:
          run: echo "after=$MINE" >> "$GITHUB_OUTPUT"
`
}

// TestConfigModeLateWriterOfAFailedAttemptNeverReachesTheWorkflow: in
// the action's config: mode, attempt 1 of a job's exec step leaves two
// background writers and fails; attempt 2 releases the first, waits until
// it wrote, and succeeds; the second is released after the run. Neither
// late write reaches the runner's files; the steps' own outputs and
// $RETRYWISE_OUTPUT's step outputs do.
func TestConfigModeLateWriterOfAFailedAttemptNeverReachesTheWorkflow(t *testing.T) {
	s := newActionStep(t)
	fifos := lateFIFOs(t, s.dir)
	s.inputs["config"] = jobFile(t, s.dir, lateJob(s.dir))
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	checkNoLateWrite(t, s, "after the run")
	out := s.outputs()
	if out["first"] != "1" || out["after"] != "2" || out["attempts"] != "4" {
		t.Errorf("outputs first=%q after=%q attempts=%q, want 1, 2 ($RETRYWISE_OUTPUT of flaky's attempt 2) and 4", out["first"], out["after"], out["attempts"])
	}
	var steps map[string]map[string]any
	if err := json.Unmarshal([]byte(out["outputs"]), &steps); err != nil || steps["flaky"]["mine"] != "2" {
		t.Errorf("outputs = %s (%v), want flaky's $RETRYWISE_OUTPUT mine=2", out["outputs"], err)
	}
	if sum := s.read(s.summary); strings.Index(sum, "first-summary") > strings.Index(sum, "ok-summary") || !strings.Contains(sum, "| exec |") {
		t.Errorf("summary = %q, want the steps' summaries in order, then retrywise's report", sum)
	}
	releaseAndWait(t, fifos["release-B"], fifos["done-B"])
	checkNoLateWrite(t, s, "after the second late writer")
	if m, _ := filepath.Glob(filepath.Join(s.temp, "retrywise-files-*")); len(m) != 0 {
		t.Errorf("the attempts' files are left behind: %v", m)
	}
}

// TestConfigModeReservedOutputIsLeftOut: a job step's $GITHUB_OUTPUT
// named like one of the action's own outputs does not override it.
func TestConfigModeReservedOutputIsLeftOut(t *testing.T) {
	s := newActionStep(t)
	s.inputs["config"] = jobFile(t, s.dir, `version: 1
jobs:
  j:
    steps:
      - id: liar
        exec:
          run: |
            echo result=failure >> "$GITHUB_OUTPUT"
            echo fine=yes >> "$GITHUB_OUTPUT"
`)
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	if got := s.read(s.output); strings.Contains(got, "failure") || s.outputs()["fine"] != "yes" || s.outputs()["result"] != "success" {
		t.Errorf("$GITHUB_OUTPUT = %q, want result=success only and fine=yes", got)
	}
	if !strings.Contains(s.stdout, "::warning title=retrywise%3A reserved output::step liar's output \"result\"") {
		t.Errorf("no warning for the reserved output:\n%s", s.stdout)
	}
}

// workflowCommand runs retrywise in-process as a workflow's step with the
// runner's files of s (GITHUB_ACTIONS=true) and returns its exit code and
// stderr.
func workflowCommand(t *testing.T, s *actionStep, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), true)
	c := &Command{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Env: s.env, Clock: clk, Version: "test", Rand: noJitter}
	code := c.Main(context.Background(), append([]string{"retrywise"}, args...))
	return code, stdout.String() + stderr.String()
}

// TestCommandsInAWorkflowLateWriterNeverReachesTheWorkflow: retrywise
// exec, retrywise run and schedule --once as a workflow's step give each
// attempt file commands of its own, as the action does.
func TestCommandsInAWorkflowLateWriterNeverReachesTheWorkflow(t *testing.T) {
	for _, cmd := range []string{"exec", "run", "schedule"} {
		t.Run(cmd, func(t *testing.T) {
			s := newActionStep(t)
			fifos := lateFIFOs(t, s.dir)
			args := []string{"exec", "--max-attempts", "2", "--schedule", "1s", "--", "sh", "-c", lateScript(s.dir)}
			switch cmd {
			case "run":
				args = []string{"run", "--config", jobFile(t, s.dir, lateJob(s.dir))}
			case "schedule":
				args = []string{"schedule", "--once", "--job", "j", "--history", t.TempDir(), "--config", jobFile(t, s.dir, lateJob(s.dir))}
			}
			code, log := workflowCommand(t, s, args...)
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", code, log)
			}
			checkNoLateWrite(t, s, "after the run")
			if cmd != "exec" {
				if out := s.outputs(); out["first"] != "1" || out["after"] != "2" {
					t.Errorf("outputs first=%q after=%q, want 1 and 2", out["first"], out["after"])
				}
			}
			releaseAndWait(t, fifos["release-B"], fifos["done-B"])
			checkNoLateWrite(t, s, "after the second late writer")
			if m, _ := filepath.Glob(filepath.Join(s.temp, "retrywise-files-*")); len(m) != 0 {
				t.Errorf("the attempts' files are left behind: %v", m)
			}
		})
	}
}

// TestExecOutsideAWorkflowLeavesTheVariablesAlone: without
// GITHUB_ACTIONS=true, retrywise exec passes $GITHUB_OUTPUT as it is.
func TestExecOutsideAWorkflowLeavesTheVariablesAlone(t *testing.T) {
	s := newActionStep(t)
	for i, kv := range s.env {
		if kv == "GITHUB_ACTIONS=true" {
			s.env[i] = "GITHUB_ACTIONS="
		}
	}
	code, log := workflowCommand(t, s, "exec", "--", "sh", "-c", `echo "was=$GITHUB_OUTPUT" >> "$GITHUB_OUTPUT"`)
	if code != exitcode.OK || s.outputs()["was"] != s.output {
		t.Errorf("exit %d, outputs %v, want was=%s:\n%s", code, s.outputs(), s.output, log)
	}
}

// bigSummary is shell text writing n bytes of summary lines to
// $GITHUB_STEP_SUMMARY.
func bigSummary(n int) string {
	return `yes '| é | a line of the step summary | ✓ |' | head -c ` + strconv.Itoa(n) + ` >> "$GITHUB_STEP_SUMMARY" || true`
}

// checkSummaryWithin checks what a run that wrote hundreds of MB of file
// commands kept: retrywise's peak memory (maxRSS, KiB) under 100 MiB, the
// runner's summary at most GitHub's 1 MiB and valid UTF-8; it returns the
// summary.
func checkSummaryWithin(t *testing.T, s *actionStep, maxRSS int64) string {
	t.Helper()
	t.Logf("peak resident memory (with its children): %.1f MB", float64(maxRSS)/1024)
	if maxRSS > 100<<10 {
		t.Errorf("peak resident memory %d KiB, want under 100 MiB", maxRSS)
	}
	st, err := os.Stat(s.summary)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the runner's step summary: %d bytes", st.Size())
	if st.Size() > 1<<20 {
		t.Errorf("the runner's step summary is %d bytes, over GitHub's 1 MiB", st.Size())
	}
	sum := s.read(s.summary)
	if !utf8.ValidString(sum) {
		t.Errorf("the step summary is not valid UTF-8 after the cut")
	}
	return sum
}

// checkBoundedSummary checks the runner's summary after a step wrote
// 300 MB of it: at most 1 MiB, valid UTF-8, cut on a line end before the
// note, with the warning in the log; it also checks retrywise's peak
// memory.
func checkBoundedSummary(t *testing.T, s *actionStep, maxRSS int64, log, what string) string {
	t.Helper()
	sum := checkSummaryWithin(t, s, maxRSS)
	note := what + "'s step summary was cut here by retrywise"
	if i, j := strings.LastIndex(sum, "| ✓ |\n"), strings.Index(sum, note); i < 0 || j < i {
		t.Errorf("the summary lacks the step's lines cut on a line end before the note %q:\n%s", note, tail(sum, 2000))
	}
	if !strings.Contains(log, "::warning title=retrywise%3A step summary cut::"+what+"'s step summary is 300000000 bytes") {
		t.Errorf("the log lacks the warning of the cut:\n%s", tail(log, 4000))
	}
	return sum
}

// TestConfigModeStepSummaryIsBounded: a job step writing 300 MB of step
// summary in the action's config: mode leaves the runner's summary within
// 1 MiB with a note, a warning, and retrywise's report; the later step's
// summary is left out and said so.
func TestConfigModeStepSummaryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MB")
	}
	bin := buildBinary(t)
	s := newActionStep(t)
	job := jobFile(t, s.dir, `version: 1
jobs:
  j:
    steps:
      - id: small
        exec: {run: echo small-summary >> "$GITHUB_STEP_SUMMARY"}
      - id: big
        exec:
          run: |
            `+bigSummary(300_000_000)+`
      - id: later
        exec: {run: echo later-summary >> "$GITHUB_STEP_SUMMARY"}
`)
	env := append(append([]string(nil), s.env...), action.InputVar("config")+"="+job, action.InputVar("report-issue")+"=false")
	cmd, setEnv, peak := measuredCommand(t, bin, "action")
	setEnv(env)
	cmd.Dir = s.workspace
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, tail(string(out), 4000))
	}
	sum := checkBoundedSummary(t, s, peak(), string(out), "step big")
	if !strings.HasPrefix(sum, "small-summary\n") || strings.Contains(sum, "later-summary") || !strings.Contains(sum, "1 later step(s) are left out") {
		t.Errorf("the summary does not hold small's summary first, and later's left out:\n%s", tail(sum, 2000))
	}
	if !strings.Contains(sum, "| exec |") {
		t.Errorf("the summary lacks retrywise's report:\n%s", tail(sum, 2000))
	}
}

// TestExecInAWorkflowStepSummaryIsBounded: retrywise exec as a workflow's
// step, its command writing 300 MB of step summary: the runner's summary
// stays within 1 MiB with a note and a warning.
func TestExecInAWorkflowStepSummaryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MB")
	}
	bin := buildBinary(t)
	s := newActionStep(t)
	cmd, setEnv, peak := measuredCommand(t, bin, "exec", "--", "bash", "-c", bigSummary(300_000_000))
	setEnv(s.env)
	cmd.Dir = s.workspace
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, tail(string(out), 4000))
	}
	checkBoundedSummary(t, s, peak(), string(out), "the command")
}

// TestExecInAWorkflowUnwritableRunnerFileExits78: when the runner's
// $GITHUB_OUTPUT cannot be written, an exec that succeeded exits 78 with a
// warning: its outputs are lost, so the step is not green.
func TestExecInAWorkflowUnwritableRunnerFileExits78(t *testing.T) {
	s := newActionStep(t)
	gone := filepath.Join(s.dir, "gone", "set_output")
	for i, kv := range s.env {
		if strings.HasPrefix(kv, "GITHUB_OUTPUT=") {
			s.env[i] = "GITHUB_OUTPUT=" + gone
		}
	}
	code, log := workflowCommand(t, s, "exec", "--", "sh", "-c", `echo ok=1 >> "$GITHUB_OUTPUT"`)
	if code != exitcode.Config || !strings.Contains(log, "::warning title=retrywise%3A file commands not written::cannot write to $GITHUB_OUTPUT") {
		t.Errorf("exit %d, want 78 and a warning:\n%s", code, log)
	}
}

// TestPushInAWorkflowHookWritesToItsOwnFiles: a push's hooks (and
// credential helpers) are children of git push, so in a workflow they get
// the push's own file commands, as an exec step's attempts do: what the
// pre-push hook writes reaches the runner's files when the step ends, and a
// background writer it leaves, released after the run, writes into a file
// nobody reads. Also through the action's push mode and a job's push step.
func TestPushInAWorkflowHookWritesToItsOwnFiles(t *testing.T) {
	for _, mode := range []string{"push", "run", "action"} {
		t.Run(mode, func(t *testing.T) {
			fx := newPushFixture(t)
			s := newActionStep(t)
			fifos := lateFIFOs(t, s.dir)
			hook := filepath.Join(fx.work, ".git", "hooks", "pre-push")
			os.WriteFile(hook, []byte("#!/bin/sh\n"+lateWriter(s.dir, "B")+`echo ok=1 >> "$GITHUB_OUTPUT"
printf 'multi<<EOF\nx\ny\nEOF\n' >> "$GITHUB_OUTPUT"
echo OK=1 >> "$GITHUB_ENV"
echo /ok/bin >> "$GITHUB_PATH"
echo ok-summary >> "$GITHUB_STEP_SUMMARY"
cat > /dev/null
`), 0o755)
			// git's isolated environment (no user config), then the runner's
			s.env = append(append([]string(nil), fx.env...), s.env...)
			var code int
			var log string
			switch mode {
			case "push":
				code, log = workflowCommand(t, s, "push", "--dir", fx.work, "--", "origin", "main")
			case "run":
				code, log = workflowCommand(t, s, "run", "--config", jobFile(t, s.dir, fmt.Sprintf("version: 1\njobs:\n  j:\n    steps:\n      - id: publish\n        push: {dir: %q, args: [origin, main]}\n", fx.work)))
			case "action":
				s.inputs["push"], s.inputs["push-args"], s.inputs["dir"] = "true", "origin main", fx.work
				s.run()
				code, log = s.code, s.stdout
			}
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", code, log)
			}
			out := s.outputs()
			if out["ok"] != "1" || out["multi"] != "x\ny" {
				t.Errorf("outputs %v, want the hook's ok=1 and multi", out)
			}
			releaseAndWait(t, fifos["release-B"], fifos["done-B"])
			checkNoLateWrite(t, s, "after the hook's late writer")
		})
	}
}
