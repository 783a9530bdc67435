package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// agent returns the fake agent's path and a log file that records its runs.
func agent(t *testing.T) (path, log string) {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "agent.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p, filepath.Join(t.TempDir(), "agent.log")
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestExecContinuesInContext: the agent prints its session id, streams part
// of its answer and fails with Codex's stream disconnect (transient). The
// retry is the continuation, given the captured id as $RETRYWISE_CONTEXT,
// never as shell text; in final mode stdout holds exactly the succeeding
// attempt's answer, once; the report records which command each attempt ran.
func TestExecContinuesInContext(t *testing.T) {
	ag, log := agent(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", []string{"AGENT_LOG=" + log}, "exec", "--stdout", "final", "--report", rep,
		"--context-from", `session id: (\S+)`, "--continue-with", ag+` resume "$RETRYWISE_CONTEXT"`, "--", ag, "run")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if want := "answer: part 1 of 2\nanswer: part 2 of 2\n"; r.stdout != want {
		t.Errorf("stdout = %q, want the succeeding attempt's output once: %q", r.stdout, want)
	}
	if got := readLog(t, log); got != "run\nresume sess-0199a3f2\n" {
		t.Errorf("the agent ran %q", got)
	}
	got, _ := readReport(t, rep)
	if len(got.Attempts) != 2 || got.Attempts[0].Class != failure.Transient || !strings.Contains(got.Attempts[1].Command, "resume") || !strings.Contains(got.Attempts[1].Why, "sess-0199a3f2") {
		t.Errorf("attempts = %+v", got.Attempts)
	}
	if !strings.Contains(strings.Join(got.Notes, "\n"), "succeeding attempt's output only") {
		t.Errorf("notes = %q", got.Notes)
	}
}

// TestExecNoContextCannotContinue: when the first attempt prints no id, the
// failure cannot be retried in the same context: exit 75, stop
// cannot-retry-in-context, and the report names the pattern that found
// nothing; nothing runs again.
func TestExecNoContextCannotContinue(t *testing.T) {
	ag, log := agent(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", []string{"AGENT_LOG=" + log}, "exec", "--report", rep,
		"--context-from", `session id: (\S+)`, "--continue-with", ag+` resume "$RETRYWISE_CONTEXT"`, "--", ag, "run", "-")
	if r.code != exitcode.Transient {
		t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
	}
	got, _ := readReport(t, rep)
	if got.Stop != retry.StopCannotRetry || !strings.Contains(got.Detail, `session id: (\S+)`) || len(got.Attempts) != 1 {
		t.Errorf("stop %s, detail %q, %d attempts", got.Stop, got.Detail, len(got.Attempts))
	}
	if got := readLog(t, log); got != "run -\n" {
		t.Errorf("the agent ran %q", got)
	}
}

// TestExecContextIsNotShellText: a captured context full of shell
// metacharacters reaches the continuation verbatim, as an environment
// variable, and runs nothing.
func TestExecContextIsNotShellText(t *testing.T) {
	ag, log := agent(t)
	dir := t.TempDir()
	evil := "x;touch${IFS}" + filepath.Join(dir, "pwned") + ";$(touch${IFS}" + filepath.Join(dir, "pwned2") + ")`id`"
	r := runCLI(t, "", []string{"AGENT_LOG=" + log, "AGENT_EXPECT=" + evil}, "exec", "--stdout", "final",
		"--context-from", `session id: (\S+)`, "--continue-with", ag+` resume "$RETRYWISE_CONTEXT"`, "--", ag, "run", evil)
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the context ran as shell text: %s exists", f)
		}
	}
	if got := readLog(t, log); got != "run "+evil+"\nresume "+evil+"\n" {
		t.Errorf("the agent ran %q", got)
	}
}

// TestExecLatestContextWins: a resumed session that prints a new id is
// continued from that one.
func TestExecLatestContextWins(t *testing.T) {
	s := script(t, `n=$(cat "$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1"
echo "session id: s$n" >&2
if [ $n -lt 3 ]; then echo "curl: (28) Operation timed out" >&2; exit 28; fi
echo "done in $RETRYWISE_CONTEXT"`)
	state := filepath.Join(t.TempDir(), "n")
	r := runCLI(t, "", nil, "exec", "--stdout", "final", "--context-from", `session id: (\S+)`,
		"--continue-with", s+" "+state+` # continue "$RETRYWISE_CONTEXT"`, "--", s, state)
	if r.code != exitcode.OK || r.stdout != "done in s2\n" {
		t.Errorf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestExecOnRetry: the clean-up runs before every retry; a failing one stops
// the loop with the step's last failure (75 here) and its exit and output
// in the report.
func TestExecOnRetry(t *testing.T) {
	dir := t.TempDir()
	s := script(t, `echo attempt >> "$1"; echo "curl: (28) Operation timed out" >&2; exit 28`)
	log := filepath.Join(dir, "log")
	r := runCLI(t, "", nil, "exec", "--schedule", "1s,1s", "--on-retry", "echo cleanup >> "+log, "--", s, log)
	if r.code != exitcode.Transient || readLog(t, log) != "attempt\ncleanup\nattempt\ncleanup\nattempt\n" {
		t.Errorf("exit %d, log %q\n%s", r.code, readLog(t, log), r.stderr)
	}
	rep := filepath.Join(dir, "r.json")
	os.Remove(log)
	r = runCLI(t, "", nil, "exec", "--schedule", "1s,1s", "--report", rep, "--on-retry", "echo 'cannot clean build/' >&2; exit 3", "--", s, log)
	got, _ := readReport(t, rep)
	if r.code != exitcode.Transient || got.Stop != retry.StopCleanupFailed || len(got.Attempts) != 1 || readLog(t, log) != "attempt\n" {
		t.Fatalf("exit %d, stop %s, %d attempts, log %q\n%s", r.code, got.Stop, len(got.Attempts), readLog(t, log), r.stderr)
	}
	if !strings.Contains(got.Detail, "exit 3") || !strings.Contains(got.Detail, "cannot clean build/") || got.Class != failure.Transient {
		t.Errorf("detail %q, class %s", got.Detail, got.Class)
	}
}

// TestExecStdoutLiveSeparator: in live mode a failed attempt's stdout has
// gone out already: the next attempt is preceded by a separator on stderr,
// and the report says so.
func TestExecStdoutLiveSeparator(t *testing.T) {
	s := script(t, `n=$(cat "$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1"
echo "line from attempt $n"
if [ $n -lt 2 ]; then echo "curl: (28) Operation timed out" >&2; exit 28; fi`)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", nil, "exec", "--stdout", "live", "--report", rep, "--", s, filepath.Join(t.TempDir(), "n"))
	if r.code != exitcode.OK || r.stdout != "line from attempt 1\nline from attempt 2\n" {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "--- attempt 2 (stdout of attempt 1 above is incomplete) ---") {
		t.Errorf("no separator:\n%s", r.stderr)
	}
	got, _ := readReport(t, rep)
	if !strings.Contains(strings.Join(got.Notes, "\n"), "incomplete output") {
		t.Errorf("notes = %q", got.Notes)
	}
}

// TestExecStdoutFinalBound: an attempt whose stdout outgrows --stdout-max
// fails as structural, and nothing of it reaches stdout.
func TestExecStdoutFinalBound(t *testing.T) {
	r := runCLI(t, "", nil, "exec", "--stdout", "final", "--stdout-max", "1KiB", "--", "sh", "-c", "head -c 5000 /dev/zero")
	if r.code != exitcode.Structural || !strings.Contains(r.stderr, "exec-stdout-too-large") || len(r.stdout) > 1024 {
		t.Errorf("exit %d, %d bytes on stdout\n%s", r.code, len(r.stdout), r.stderr)
	}
	for _, bad := range []string{"lots", "0", "-1MiB"} {
		if r := runCLI(t, "", nil, "exec", "--stdout-max", bad, "--", "true"); r.code != exitcode.Usage {
			t.Errorf("--stdout-max %s: exit %d", bad, r.code)
		}
	}
	for _, args := range [][]string{{"--stdout", "sometimes"}, {"--context-from", "no group"}, {"--context-from", `(a)(b)`, "--continue-with", "x"}, {"--context-from", `id: (\S+)`}} {
		if r := runCLI(t, "", nil, append(append([]string{"exec"}, args...), "--", "true")...); r.code != exitcode.Usage {
			t.Errorf("%q: exit %d", args, r.code)
		}
	}
}

// TestExecStdoutAuto: auto is live on a terminal (a pty) and final on a
// pipe, through the built binary.
func TestExecStdoutAuto(t *testing.T) {
	bin := buildBinary(t)
	s := script(t, `n=$(cat "$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1"
echo "line from attempt $n"
if [ $n -lt 2 ]; then echo "curl: (28) Operation timed out" >&2; exit 28; fi`)
	env := append(os.Environ(), "GITHUB_ACTIONS=")
	// A pipe: final.
	cmd := exec.Command(bin, "exec", "--schedule", "10ms", "--", s, filepath.Join(t.TempDir(), "n"))
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil || string(out) != "line from attempt 2\n" {
		t.Errorf("pipe: %v, stdout %q", err, out)
	}
	// Inside GitHub Actions, a pipe is the log: live.
	cmd = exec.Command(bin, "exec", "--schedule", "10ms", "--", s, filepath.Join(t.TempDir(), "n"))
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=true")
	if out, err = cmd.Output(); err != nil || string(out) != "line from attempt 1\nline from attempt 2\n" {
		t.Errorf("GITHUB_ACTIONS: %v, stdout %q", err, out)
	}
	// A terminal: live.
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd = exec.Command(bin, "exec", "--schedule", "10ms", "--", s, filepath.Join(t.TempDir(), "n"))
	var stderr bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, tty, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(ptmx); done <- b }()
	werr := cmd.Wait()
	var got []byte
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no end of the terminal's output")
	}
	text := strings.ReplaceAll(string(got), "\r\n", "\n")
	if werr != nil || text != "line from attempt 1\nline from attempt 2\n" || !strings.Contains(stderr.String(), "--- attempt 2") {
		t.Errorf("terminal: %v, stdout %q\n%s", werr, text, stderr.String())
	}
}

// TestJobExecContinuation: the same keys in a job file.
func TestJobExecContinuation(t *testing.T) {
	ag, log := agent(t)
	dir := t.TempDir()
	job := "version: 1\njobs:\n  j:\n    steps:\n      - id: agent\n        env: {AGENT_LOG: " + log + "}\n        exec:\n          command: [" + ag + ", run]\n          stdout: final\n          context-from: 'session id: (\\S+)'\n          continue-with: '" + ag + " resume \"$RETRYWISE_CONTEXT\"'\n          on-retry: 'echo cleaning >&2'\n"
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	if r.code != exitcode.OK || r.stdout != "answer: part 1 of 2\nanswer: part 2 of 2\n" || !strings.Contains(r.stderr, "cleaning") {
		t.Errorf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if got := readLog(t, log); got != "run\nresume sess-0199a3f2\n" {
		t.Errorf("the agent ran %q", got)
	}
}
