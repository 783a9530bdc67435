package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/step"
)

type run struct {
	code           int
	stdout, stderr string
	clock          *clock.Fake
}

// runCLI runs the CLI in-process with a fake clock that fires every wait at once.
func runCLI(t *testing.T, stdin string, env []string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
	c := &Command{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Env: append(os.Environ(), env...), Clock: clk, Version: "test", Rand: noJitter}
	code := c.Main(context.Background(), append([]string{"retrywise"}, args...))
	return run{code, out.String(), errb.String(), clk}
}

// script writes an executable shell script into a temp dir and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecRetriesTransientThenSucceeds(t *testing.T) {
	dir := t.TempDir()
	s := script(t, `n=$(cat "$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1"
if [ $n -lt 3 ]; then echo "curl: (28) Operation timed out after 5001 milliseconds with 0 bytes received" >&2; exit 28; fi
echo '{"ok":true}'
`)
	rep := filepath.Join(dir, "report.json")
	r := runCLI(t, "", nil, "exec", "--report", rep, "--", s, filepath.Join(dir, "count"))
	if r.code != exitcode.OK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "{\"ok\":true}\n" {
		t.Errorf("stdout = %q, want only the child's stdout", r.stdout)
	}
	if got := r.clock.Waits(); !slices.Equal(got, []time.Duration{10 * time.Second, 20 * time.Second}) {
		t.Errorf("waits = %v, want [10s 20s]", got)
	}
	for _, want := range []string{
		"retrywise: attempt 1/4 failed (transient: curl 28", "retrying in 10s",
		"retrywise: attempt 2/4 failed (transient: curl 28", "retrying in 20s",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	got, _ := readReport(t, rep)
	if !got.OK() || len(got.Attempts) != 3 || got.Attempts[0].Class != failure.Transient || !got.Attempts[2].OK || got.Policy.MaxAttempts != 4 {
		t.Errorf("report = %+v", got)
	}
}

func TestExecStopsOnNonFastForward(t *testing.T) {
	s := script(t, `cat >&2 <<'X'
To https://github.com/acme/site
 ! [rejected]        main -> main (non-fast-forward)
error: failed to push some refs to 'https://github.com/acme/site'
hint: Updates were rejected because the tip of your current branch is behind
X
exit 1
`)
	r := runCLI(t, "", nil, "exec", "--tool", "git", "--", s)
	if r.code != exitcode.Structural {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitcode.Structural, r.stderr)
	}
	if len(r.clock.Waits()) != 0 || strings.Contains(r.stderr, "retrying in") {
		t.Errorf("a structural failure was retried:\n%s", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "retrywise: structural") {
		t.Errorf("last stderr line = %q, want the one-line reason", last)
	}
	if !strings.Contains(r.stderr, "after 1 attempt") || !strings.Contains(strings.ToLower(r.stderr), "rebase") {
		t.Errorf("report lacks the attempt count or the remedy:\n%s", r.stderr)
	}
}

func TestExecChildKilledBySignalIsFailure(t *testing.T) {
	r := runCLI(t, "", nil, "exec", "--", "sh", "-c", "echo started; kill -KILL $$")
	// Nothing says who sent the signal or whether it would recur: unknown,
	// so retrywise stops at once rather than guess.
	if r.code != exitcode.Unknown || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d after waits %v, want %d at once:\n%s", r.code, r.clock.Waits(), exitcode.Unknown, r.stderr)
	}
	if last := lastLine(r.stderr); last != "retrywise: unknown: sh was killed by signal SIGKILL" {
		t.Errorf("last stderr line %q, want the reason naming the signal:\n%s", last, r.stderr)
	}
	if r.stdout != "started\n" {
		t.Errorf("stdout %q, want the child's output", r.stdout)
	}
}

func TestExecUnknownStopsUnlessAsked(t *testing.T) {
	r := runCLI(t, "", nil, "exec", "--", "sh", "-c", "echo 'something odd happened' >&2; exit 3")
	if r.code != exitcode.Unknown || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d after waits %v, want 1 with no retry", r.code, r.clock.Waits())
	}
	r = runCLI(t, "", nil, "exec", "--on-unknown", "retry", "--schedule", "1s", "--", "sh", "-c", "echo 'something odd' >&2; exit 3")
	if r.code != exitcode.Unknown || len(r.clock.Waits()) != 1 {
		t.Fatalf("--on-unknown retry: exit %d after waits %v, want 1 after one retry", r.code, r.clock.Waits())
	}
}

func TestExecUserRules(t *testing.T) {
	tests := []struct {
		name      string
		flags     []string
		wantCode  int
		wantWaits int
	}{
		{"retry-on regex", []string{"--retry-on", "database is locked"}, exitcode.Transient, 1},
		{"stop-on wins", []string{"--retry-on", "locked", "--stop-on", "database"}, exitcode.Unknown, 0},
		{"retry-on-exit", []string{"--retry-on-exit", "2-4"}, exitcode.Transient, 1},
		{"stop-on-exit wins", []string{"--retry-on-exit", "3", "--stop-on-exit", "3"}, exitcode.Unknown, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"exec", "--schedule", "1s"}, tt.flags...)
			r := runCLI(t, "", nil, append(args, "--", "sh", "-c", "echo 'Error: database is locked' >&2; exit 3")...)
			if r.code != tt.wantCode || len(r.clock.Waits()) != tt.wantWaits {
				t.Fatalf("exit %d waits %v, want %d and %d waits\n%s", r.code, r.clock.Waits(), tt.wantCode, tt.wantWaits, r.stderr)
			}
		})
	}
}

func TestExecAbsent(t *testing.T) {
	body := "echo 'curl: (22) The requested URL returned error: 404' >&2; exit 22"
	if r := runCLI(t, "", nil, "exec", "--", "sh", "-c", body); r.code != exitcode.Absent {
		t.Errorf("exit %d, want %d:\n%s", r.code, exitcode.Absent, r.stderr)
	}
	if r := runCLI(t, "", nil, "exec", "--absent-ok", "--", "sh", "-c", body); r.code != exitcode.OK {
		t.Errorf("--absent-ok: exit %d, want 0:\n%s", r.code, r.stderr)
	}
}

func TestExecStdinReplayedOnRetry(t *testing.T) {
	dir := t.TempDir()
	s := script(t, `n=$(ls "$1" | wc -l); cat > "$1/input.$n"
if [ $n -lt 1 ]; then echo "fatal: unable to access 'https://example.com/': Could not resolve host: example.com" >&2; exit 128; fi
`)
	input := strings.Repeat("line of input\n", 5000)
	r := runCLI(t, input, nil, "exec", "--", s, dir)
	if r.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"input.0", "input.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != input {
			t.Errorf("%s: got %d bytes (err %v), want the same %d bytes of stdin", name, len(b), err, len(input))
		}
	}
}

func TestExecStdinTooLargeIsNotReplayed(t *testing.T) {
	input := strings.Repeat("x", 8<<20+1)
	r := runCLI(t, input, nil, "exec", "--", "sh", "-c", "cat >/dev/null; echo 'curl: (7) Failed to connect to h port 443: Connection refused' >&2; exit 7")
	if r.code != exitcode.Transient || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d waits %v, want 75 with no retry", r.code, r.clock.Waits())
	}
	if !strings.Contains(r.stderr, "replay buffer") {
		t.Errorf("report does not say why it did not retry:\n%s", r.stderr)
	}
}

func TestExecMasksSecrets(t *testing.T) {
	const token = "ghp_s3cr3tT0kenValue1234567890"
	r := runCLI(t, "", []string{"GITHUB_TOKEN=" + token}, "exec", "--mask", "hunter2-extra",
		"--", "sh", "-c", `echo "pushing to https://x-access-token:$GITHUB_TOKEN@github.com/a/b"; echo "using hunter2-extra and $GITHUB_TOKEN" >&2; echo "fatal: Authentication failed for 'https://x-access-token:$GITHUB_TOKEN@github.com/a/b'" >&2; exit 128`)
	all := r.stdout + r.stderr
	for _, secret := range []string{token, "hunter2-extra"} {
		if strings.Contains(all, secret) {
			t.Errorf("secret %q leaked:\n%s", secret, all)
		}
	}
	if !strings.Contains(r.stdout, "***") || r.code != exitcode.Policy {
		t.Errorf("exit %d; stdout = %q", r.code, r.stdout)
	}
}

func TestExecTimeoutStopsProcessGroup(t *testing.T) {
	start := time.Now()
	r := runCLI(t, "", nil, "exec", "--timeout", "300ms", "--kill-grace", "500ms", "--max-attempts", "1", "--", "sh", "-c", "sleep 100 | cat")
	took := time.Since(start)
	if r.code != exitcode.Transient {
		t.Fatalf("exit %d, want 75 (a timeout is transient):\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "timed out after 300ms") {
		t.Errorf("report lacks the timeout:\n%s", r.stderr)
	}
	// sleep 100 holds the pipe: only killing the whole group ends the attempt before it.
	if took > 10*time.Second {
		t.Errorf("the attempt took %s: the process group was not stopped", took)
	}
}

func TestExecUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"exec"}, exitcode.Usage},
		{[]string{"exec", "--schedule", "soon", "--", "true"}, exitcode.Usage},
		{[]string{"exec", "--retry-on", "(", "--", "true"}, exitcode.Usage},
		{[]string{"exec", "--bogus", "--", "true"}, exitcode.Usage},
		{[]string{"exec", "--", "/nonexistent/cmd"}, exitcode.Config},
		{[]string{"exec", "--report", "/nonexistent/dir/r.json", "--", "true"}, exitcode.Config},
		{[]string{"nosuch"}, exitcode.Usage},
	}
	for _, tt := range tests {
		r := runCLI(t, "", nil, tt.args...)
		if r.code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, r.code, tt.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], "retrywise: ") {
			t.Errorf("%v: last stderr line %q is not the reason", tt.args, lines[len(lines)-1])
		}
	}
}

func TestHelpListsEveryFlagWithDefault(t *testing.T) {
	for cmd := range (&Command{}).subcommands() {
		r := runCLI(t, "", nil, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: retrywise "+cmd) || r.stderr != "" {
			t.Errorf("%s --help: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, r.code, r.stdout, r.stderr)
		}
	}
	r := runCLI(t, "", nil, "exec", "--help")
	for _, want := range []string{"--schedule", "(default 10s,20s,60s)", "--max-elapsed", "(default 15m0s)", "--kill-grace", "--retry-after-cap", "(default 5m0s)", "--on-unknown", "--report", "--mask", "--absent-ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("exec --help lacks %q", want)
		}
	}
	if r := runCLI(t, "", nil, "version"); r.stdout != "retrywise test\n" {
		t.Errorf("version = %q", r.stdout)
	}
}

// TestBinarySIGTERMDuringWait runs the real binary: SIGTERM during a one-hour
// wait must end it at once with exit 143 and the report.
func TestBinarySIGTERMDuringWait(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	cmd := exec.Command(bin, "exec", "--schedule", "1h", "--jitter", "0", "--max-elapsed", "2h", "--report", rep, "--", "sh", "-c", "echo 'curl: (6) Could not resolve host: example.com' >&2; exit 6")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "retrying in 1h0m0s")
	terminate(t, cmd, &stderr)
	if b, err := os.ReadFile(rep); err != nil || !strings.Contains(string(b), `"stop": "cancelled"`) {
		t.Errorf("JSON report missing or incomplete (%v):\n%s", err, b)
	}
}

// TestBinarySIGTERMForwardedToChild checks the signal reaches the child's process group.
func TestBinarySIGTERMForwardedToChild(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "exec", "--", "sh", "-c", "trap 'echo child got TERM >&2; exit 143' TERM; echo ready >&2; while :; do sleep 0.05; done")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "ready")
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitcode.Terminated {
		t.Fatalf("exit = %v, want 143\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "child got TERM") {
		t.Errorf("the child never saw SIGTERM:\n%s", stderr.String())
	}
}

// TestSecretsNeverPrinted proves that tokens in URLs, headers, the environment
// and git config never reach stdout, stderr or the JSON report.
func TestSecretsNeverPrinted(t *testing.T) {
	const token = "ghs_EnvToken0123456789abcdef"
	const header = "Bearer hdr-0123456789abcdef"
	rep := filepath.Join(t.TempDir(), "r.json")
	basic := "eC1hY2Nlc3MtdG9rZW46Z2hzX0VudlRva2VuMDEyMzQ1Njc4OWFiY2RlZg==" // base64("x-access-token:" + token)
	body := `echo "remote: https://x-access-token:` + token + `@github.com/o/r.git"
echo "Authorization: ` + header + `" >&2
echo "http.https://github.com/.extraheader=AUTHORIZATION: basic ` + basic + `" >&2
echo "fatal: unable to access 'https://user:` + token + `@github.com/o/r.git/': The requested URL returned error: 403" >&2
exit 128`
	r := runCLI(t, "", []string{"GH_APP_TOKEN=" + token}, "exec", "--report", rep, "--", "sh", "-c", body)
	b, _ := os.ReadFile(rep)
	all := r.stdout + r.stderr + string(b)
	for _, secret := range []string{token, "hdr-0123456789abcdef", basic} {
		if strings.Contains(all, secret) {
			t.Errorf("secret %q leaked:\n%s", secret, all)
		}
	}
	if r.code != exitcode.Policy || !strings.Contains(string(b), `"class": "policy"`) {
		t.Errorf("exit %d; report:\n%s", r.code, b)
	}
}

// TestBinarySIGTERMChildIgnoresIt: a child that ignores the forwarded SIGTERM
// is killed, and retrywise still exits 143 with its report: the signal cut
// the 60 s --kill-grace (terminate allows 10 s).
func TestBinarySIGTERMChildIgnoresIt(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "exec", "--kill-grace", "60s", "--", "sh", "-c", "trap '' TERM; echo ready >&2; sleep 90")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "ready")
	terminate(t, cmd, &stderr)
}

func TestExecCurlExitCodeWithoutMessage(t *testing.T) {
	// curl -s prints nothing; its exit status alone (28: timeout) is enough.
	dir := t.TempDir()
	curl := filepath.Join(dir, "curl")
	if err := os.WriteFile(curl, []byte("#!/bin/sh\nexit 28\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", nil, "exec", "--max-attempts", "2", "--schedule", "1s", "--", curl, "-s", "http://127.0.0.1:1/")
	if r.code != exitcode.Transient || len(r.clock.Waits()) != 1 {
		t.Fatalf("exit %d waits %v, want 75 after one retry:\n%s", r.code, r.clock.Waits(), r.stderr)
	}
}

// TestRunExecDiagnose runs exec from hand-built options: a curl failure at
// the proxy goes to the loop's Diagnose before the first wait, and its
// verdict (a denial) stops the loop and is the report's.
func TestRunExecDiagnose(t *testing.T) {
	s := script(t, `echo "curl: (56) CONNECT tunnel failed, response 403" >&2; exit 56`)
	var seen []*failure.Failure
	f, stdout, stderr, clk := testFactory(os.Environ())
	f.diagnose = denyHook(&seen)
	code := runKind(context.Background(), f, prepare(t, step.ExecKind, "command", s, "tool", "curl", "schedule", "1s,2s"))
	if code != exitcode.Policy || len(seen) != 1 || len(clk.Waits()) != 0 {
		t.Fatalf("exit %d after %d diagnoses and waits %v, want 77 after 1 and none:\n%s", code, len(seen), clk.Waits(), stderr)
	}
	if tr := seen[0].Trace; !tr.Network || !tr.Proxy || tr.Client != failure.ToolCurl {
		t.Errorf("the hook was given trace %+v, want curl's failure at the proxy", tr)
	}
	mustContain(t, "stderr", stderr.String(), "reason:   the hook denies it", "evidence: curl: (56) CONNECT tunnel failed, response 403", "retrywise: policy: the hook denies it")
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
}
