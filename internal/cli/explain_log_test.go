package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/report/reporttest"
)

// sampleLogs is the sample log archive of the docs, and its text files.
const (
	sampleLogs    = "../../testdata/explain/logs_sample.zip"
	sampleLogsDir = "../../testdata/explain/logs_sample"
)

// explainLogBinary runs the built binary's explain with args, with env (no
// token, no proxy, an API address that is a closed port: nothing may be
// sent) and stdin, and returns its exit code and streams.
func explainLogBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"explain"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GITHUB_API_URL=http://127.0.0.1:9/"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestExplainLogCommand: explain --log reads the sample archive and a
// job's .txt log offline, without a token, into the rows, reports and exit
// code of the online explain; a file it cannot read exits 66 (missing) or
// 65 (not a log), and --log with a run exits 64.
func TestExplainLogCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rep, sum := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.md")
	code, stdout, stderr := explainLogBinary(t, nil, "--log", sampleLogs, "--report", rep, "--summary", sum)
	if code != 77 {
		t.Fatalf("exit %d, want 77\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"retrywise explain " + sampleLogs + ": 2 failed steps (exit 77)",
		"step publish / Publish the package:\n    class:    transient\n    code:     http-503",
		"step deploy site / Push the site:\n    class:    policy\n    code:     git-permission-denied",
		"classified as npm output",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if want := "retrywise: 2 failed steps; worst deploy site / Push the site: policy (permission to octo/site.git denied to github-actions[bot])\n"; !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr does not end with %q:\n%s", want, stderr)
	}
	reporttest.ValidateFile(t, rep)
	b, _ := os.ReadFile(rep)
	if !strings.Contains(string(b), `"exit_code": 77`) || !strings.Contains(string(b), `"log": "deploy site/4_Push the site.txt in `+sampleLogs+`"`) {
		t.Errorf("report:\n%s", b)
	}
	if md, err := os.ReadFile(sum); err != nil || !strings.Contains(string(md), "git-permission-denied") || !strings.Contains(string(md), "http-503") {
		t.Errorf("summary: %v\n%s", err, md)
	}

	// One job's log: its steps are split at the runner's Run markers.
	code, stdout, stderr = explainLogBinary(t, nil, "--log", filepath.Join(sampleLogsDir, "0_publish.txt"))
	if code != 75 || !strings.Contains(stdout, "step publish / Run npm publish --access public:") || strings.Contains(stdout, "orphan") {
		t.Errorf("the job's txt: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	// A secret of the environment in the log is masked, as online.
	const secret = "s3cr3t-Vq8RkT2mW9xLp4Zc"
	leaky := filepath.Join(dir, "0_leaky.txt")
	os.WriteFile(leaky, []byte("2026-12-01T09:14:06.1000000Z ##[group]Run curl -fsS https://api.example.test\n2026-12-01T09:14:06.2000000Z ##[endgroup]\n2026-12-01T09:14:06.3000000Z curl: (22) The requested URL returned error: 401 for token "+secret+"\n2026-12-01T09:14:06.4000000Z ##[error]Process completed with exit code 22.\n"), 0o644)
	code, stdout, stderr = explainLogBinary(t, []string{"API_TOKEN=" + secret}, "--log", leaky, "--report", rep)
	b, _ = os.ReadFile(rep)
	if code != 77 || strings.Contains(stdout+stderr+string(b), secret) || !strings.Contains(stdout, "***") {
		t.Errorf("a secret in the log: exit %d\nstdout: %s\nstderr: %s\nreport: %s", code, stdout, stderr, b)
	}

	// Files it cannot read, and --log with a run.
	garbage := filepath.Join(dir, "garbage.bin")
	os.WriteFile(garbage, []byte("\x00\x01binary"), 0o644)
	truncated := filepath.Join(dir, "truncated.zip")
	whole, _ := os.ReadFile(sampleLogs)
	os.WriteFile(truncated, whole[:len(whole)/2], 0o644)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--log", filepath.Join(dir, "nope.zip")}, 66, "no such file"},
		{[]string{"--log", dir}, 66, "a folder, not a file"},
		{[]string{"--log", garbage}, 65, "neither a zip archive nor a text log"},
		{[]string{"--log", truncated}, 65, "not a valid zip archive"},
		{[]string{"--log", sampleLogs, "https://github.com/o/r/actions/runs/7"}, 64, "not both"},
		{[]string{"https://github.com/o/r/actions/runs/7", "--log", sampleLogs}, 64, "not both"},
		{[]string{"--log", sampleLogs, "--repo", "o/r", "--run", "7"}, 64, "takes no --repo"},
		{[]string{"--log", sampleLogs, "--rerun"}, 64, "--rerun needs the run on GitHub"},
	} {
		code, stdout, stderr := explainLogBinary(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) || strings.Contains(stdout, "failed step") {
			t.Errorf("%q: exit %d, want %d saying %q\nstdout: %s\nstderr: %s", tt.args, code, tt.code, tt.want, stdout, stderr)
		}
	}
	if os.Geteuid() != 0 {
		locked := filepath.Join(dir, "locked.txt")
		os.WriteFile(locked, []byte("x\n"), 0o000)
		if code, _, stderr := explainLogBinary(t, nil, "--log", locked); code != 66 || !strings.Contains(stderr, "cannot be read") {
			t.Errorf("an unreadable file: exit %d: %s", code, stderr)
		}
	}
}

// TestExplainLogFIFO: a job's log may come from a FIFO (read once, as a
// stream); a signal while explain waits for its writer exits 130 within
// the bound.
func TestExplainLogFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	job, err := os.ReadFile(filepath.Join(sampleLogsDir, "1_deploy site.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, dir, "log")
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.Write(job)
			f.Close()
		}
	}()
	if code, stdout, stderr := explainLogBinary(t, nil, "--log", fifo); code != 77 || !strings.Contains(stdout, "step log / Run git push origin HEAD:gh-pages:") {
		t.Errorf("a FIFO's log: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	idle := mkfifo(t, dir, "idle")
	cmd := exec.Command(buildBinary(t), "explain", "--log", idle)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOpening(t, cmd.Process.Pid, &stderr)
	cmd.Process.Signal(syscall.SIGINT)
	start := time.Now()
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || time.Since(start) > fifoLimit || !strings.Contains(stderr.String(), "idle") {
		t.Errorf("a FIFO no one writes: exit %d after %s: %s", code, time.Since(start), stderr.String())
	}
}
