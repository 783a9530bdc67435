package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/report/reporttest"
)

// These tests hold retrywise to its promises about signals and time bounds
// with real processes: a user's signal is forwarded at once and cuts any
// kill grace, the report is written and nothing of the process group
// survives; every time bound includes the grace. The wall-clock limits are
// generous (they only catch a hang or a grace that was not cut): the events
// themselves (the forwarded signal, the exit code, the empty group, the
// report) are what is checked. The timing of the grace itself is tested on
// the injected clock in internal/execstep.

// trapScript traps SIGTERM in the leader (saying so) and starts a background
// job that ignores SIGTERM and SIGINT; both print their pids.
// The job says its pid once its own trap is set, so no signal comes before.
const trapScript = `trap 'echo got TERM >&2' TERM; echo "leader $$" >&2; sh -c 'trap "" TERM INT; echo "bg $$" >&2; exec sleep 67' & while :; do sleep 0.1; done`

// exitOf waits for cmd (at most limit, else kills it and fails) and returns its exit code.
func exitOf(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, limit time.Duration) int {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err == nil {
			return 0
		} else if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		t.Fatalf("wait: %v", err)
	case <-time.After(limit):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running after %s (killed):\n%s", limit, stderr.String())
	}
	return 0
}

// groupGone fails the test unless the process group pgid is empty by
// limit (it is checked at once and then every 10 ms).
func groupGone(t *testing.T, pgid int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		left := groupMembers(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has %v", pgid, left)
		}
		time.Sleep(10 * time.Millisecond) // polling /proc, not waiting for behaviour
	}
}

// TestSignalsCutBoundGrace: a bound (--max-elapsed, --timeout, a job's
// timeout:) was reached and its grace has begun (the leader said "got
// TERM") when retrywise is signalled: the signal is forwarded and cuts the
// grace (60 s here): retrywise exits with 130/143, the group is empty and
// the report is written.
func TestSignalsCutBoundGrace(t *testing.T) {
	t.Parallel()
	job := func(sig string) string {
		return "version: 1\njobs:\n  j:\n    timeout: 2s\n    steps:\n      - id: s\n        exec: {kill-grace: 60s, command: [sh, -c, " + yamlQuote(trapScript) + "]}\n"
	}
	for _, tc := range []struct {
		name string
		args []string
		job  string
		sig  syscall.Signal
		code int
	}{
		{"max-elapsed/TERM", []string{"exec", "--max-elapsed", "2s", "--kill-grace", "60s"}, "", syscall.SIGTERM, exitcode.Terminated},
		{"max-elapsed/INT", []string{"exec", "--max-elapsed", "2s", "--kill-grace", "60s"}, "", syscall.SIGINT, exitcode.Interrupted},
		{"timeout/INT", []string{"exec", "--timeout", "2s", "--kill-grace", "60s", "--schedule", "1h"}, "", syscall.SIGINT, exitcode.Interrupted},
		{"job-timeout/TERM", []string{"run", "--config", "job.yml"}, job("TERM"), syscall.SIGTERM, exitcode.Terminated},
		{"job-timeout/INT", []string{"run", "--config", "job.yml"}, job("INT"), syscall.SIGINT, exitcode.Interrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.job != "" {
				if err := os.WriteFile(filepath.Join(dir, "job.yml"), []byte(tc.job), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep := filepath.Join(dir, "r.json")
			args := append(append([]string{}, tc.args...), "--report", rep)
			if tc.job == "" {
				args = append(args, "--", "sh", "-c", trapScript)
			}
			cmd, stderr := startProcs(t, dir, nil, args...)
			leader := pidAfter(t, stderr, "leader")
			pidAfter(t, stderr, "bg")
			t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL) })
			waitFor(t, stderr, "got TERM") // the bound was reached: the grace has begun
			cmd.Process.Signal(tc.sig)
			if code := exitOf(t, cmd, stderr, 15*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, stderr.String())
			}
			groupGone(t, leader, 5*time.Second)
			reporttest.ValidateFile(t, rep)
			if b, _ := os.ReadFile(rep); !strings.Contains(string(b), `"cancelled"`) {
				t.Errorf("the report does not say cancelled:\n%s", b)
			}
		})
	}
}

// yamlQuote quotes s as a YAML double-quoted scalar.
func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestSignalsBoundIncludesGrace: a grace longer than the bound is shortened
// to fit: the group is killed by the bound (2 s), not the bound plus the
// grace (32 s), with no signal from anyone.
func TestSignalsBoundIncludesGrace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		job  string
		code int
	}{
		{"timeout", []string{"exec", "--timeout", "2s", "--kill-grace", "30s", "--max-attempts", "1"}, "", exitcode.Transient},
		{"max-elapsed", []string{"exec", "--max-elapsed", "2s", "--kill-grace", "30s"}, "", exitcode.Transient},
		{"job-timeout", []string{"run", "--config", "job.yml"},
			"version: 1\njobs:\n  j:\n    timeout: 2s\n    steps:\n      - id: s\n        exec: {kill-grace: 30s, command: [sh, -c, " + yamlQuote(trapScript) + "]}\n", exitcode.Transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.job != "" {
				if err := os.WriteFile(filepath.Join(dir, "job.yml"), []byte(tc.job), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep := filepath.Join(dir, "r.json")
			args := append(append([]string{}, tc.args...), "--report", rep)
			if tc.job == "" {
				args = append(args, "--", "sh", "-c", trapScript)
			}
			cmd, stderr := startProcs(t, dir, nil, args...)
			leader := pidAfter(t, stderr, "leader")
			t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL) })
			// 2 s bound: 15 s is generous, and well short of the 32 s of bound plus grace.
			if code := exitOf(t, cmd, stderr, 15*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "got TERM") {
				t.Errorf("the leader never got SIGTERM (no grace at all):\n%s", stderr.String())
			}
			groupGone(t, leader, 5*time.Second)
			reporttest.ValidateFile(t, rep)
		})
	}
}

// TestSignalsKillGraceCap: --kill-grace above execstep.MaxKillGrace is a
// usage error (64), and in a job file a configuration error (78).
func TestSignalsKillGraceCap(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1000h", "5m1s", "2562047h"} {
		r := runCLI(t, "", nil, "exec", "--kill-grace", v, "--", "true")
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "--kill-grace") || !strings.Contains(r.stderr, "5m") {
			t.Errorf("--kill-grace %s: exit %d, stderr %q; want 64 naming the 5m cap", v, r.code, r.stderr)
		}
	}
	if r := runCLI(t, "", nil, "exec", "--kill-grace", "5m", "--", "true"); r.code != exitcode.OK {
		t.Errorf("--kill-grace 5m (the cap): exit %d %s", r.code, r.stderr)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte("version: 1\njobs:\n  j:\n    steps:\n      - id: s\n        exec: {kill-grace: 2h, command: [\"true\"]}\n"), 0o644)
	for _, verb := range []string{"validate", "run"} {
		r := runCLI(t, "", nil, verb, "--config", filepath.Join(dir, "job.yml"))
		if r.code != exitcode.Config || !strings.Contains(r.stderr, "kill-grace") {
			t.Errorf("%s: kill-grace: 2h: exit %d, stderr %q; want 78", verb, r.code, r.stderr)
		}
	}
}

// TestSignalsScheduleOnceJob: schedule --once --job is stopped by SIGINT
// (130) and SIGTERM (143) while its step runs: the step's group is killed
// and the run is recorded in the history.
func TestSignalsScheduleOnceJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitcode.Interrupted}, {syscall.SIGTERM, exitcode.Terminated}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			job := "version: 1\njobs:\n  j:\n    cron: \"0 0 1 1 *\"\n    steps:\n      - id: s\n        exec: {command: [sh, -c, " + yamlQuote(trapScript) + "]}\n"
			dir, hist := t.TempDir(), t.TempDir()
			writeJob(t, dir, job)
			cmd, stderr := startProcs(t, dir, nil, "schedule", "--history", hist, "--once", "--job", "j")
			leader := pidAfter(t, stderr, "leader")
			pidAfter(t, stderr, "bg")
			t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL) })
			cmd.Process.Signal(tc.sig)
			if code := exitOf(t, cmd, stderr, 15*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, stderr.String())
			}
			groupGone(t, leader, 5*time.Second)
			if reps := historyReports(t, hist, "j"); len(reps) != 1 {
				t.Errorf("history has %d reports, want 1", len(reps))
			}
		})
	}
}

// TestSignalsStdinBlocked: a command blocked reading stdin that never ends
// (a pipe whose writer stays open) is stopped by SIGINT and SIGTERM: 130 or
// 143, and an http step's report is written.
func TestSignalsStdinBlocked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		report bool
		sig    syscall.Signal
		code   int
	}{
		{"classify/INT", []string{"classify"}, false, syscall.SIGINT, exitcode.Interrupted},
		{"classify/TERM", []string{"classify", "--json"}, false, syscall.SIGTERM, exitcode.Terminated},
		{"http/INT", []string{"http", "--data-file", "-", "http://127.0.0.1:9/"}, true, syscall.SIGINT, exitcode.Interrupted},
		{"http/TERM", []string{"http", "--data-file", "-", "http://127.0.0.1:9/"}, true, syscall.SIGTERM, exitcode.Terminated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			rep := filepath.Join(dir, "r.json")
			args := tc.args
			if tc.report {
				args = append([]string{args[0], "--report", rep}, args[1:]...)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			cmd := exec.Command(buildBinary(t), args...)
			cmd.Dir, cmd.Stdin = dir, r
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					cmd.Wait()
				}
			})
			w.Write([]byte("partial input, never finished\n"))
			// The binary is reading stdin once it has read what was written:
			// a signal before its handler is installed would kill it
			// outright (exit -1), which the exit code check would catch.
			waitReading(t, cmd.Process.Pid)
			cmd.Process.Signal(tc.sig)
			if code := exitOf(t, cmd, stderr, 15*time.Second); code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, stderr.String())
			}
			if tc.report {
				reporttest.ValidateFile(t, rep)
			}
		})
	}
}

// waitReading waits until pid is blocked in a read (its wchan says pipe),
// so the signal comes while it waits for stdin.
func waitReading(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		// Every thread: the Go runtime reads on any of them.
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		for _, task := range tasks {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/wchan")
			if strings.Contains(string(b), "pipe") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond) // polling /proc
	}
	t.Fatalf("process %d never blocked reading its stdin", pid)
}
