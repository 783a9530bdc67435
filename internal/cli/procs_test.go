package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// These tests run the built binary with children that leave processes
// behind (background jobs that ignore SIGINT and SIGTERM, a shell that traps
// SIGTERM) and check that nothing retrywise started outlives a stopped
// attempt or retrywise itself.

// startProcs starts the binary with args, its stderr in the returned buffer;
// the test's clean-up kills it if the test left it running.
func startProcs(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr
}

// pidAfter waits for "LABEL PID" in b, registers a clean-up that kills the
// process if the test left it alive, and returns the pid.
func pidAfter(t *testing.T, b *syncBuffer, label string) int {
	t.Helper()
	waitFor(t, b, label+" ")
	m := regexp.MustCompile(regexp.QuoteMeta(label) + ` (\d+)\n`)
	deadline := time.After(30 * time.Second)
	for m.FindStringSubmatch(b.String()) == nil {
		select {
		case <-b.wake():
		case <-deadline:
			t.Fatalf("no %q line in:\n%s", label, b.String())
		}
	}
	pid, _ := strconv.Atoi(m.FindStringSubmatch(b.String())[1])
	t.Cleanup(func() {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pid
}

// procStat returns the state and process group of pid from /proc/PID/stat;
// ok is false when there is no such process.
func procStat(pid int) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, 0, false
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0][0], pgid, true
}

// alive reports whether pid is a running process (a zombie is dead: it only
// waits for whoever adopted it to reap it).
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// groupMembers returns the live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, g, ok := procStat(pid); ok && g == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone fails the test unless every pid is dead by deadline; it checks
// /proc at every tick until then.
func waitGone(t *testing.T, deadline time.Time, what string, pids ...int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: process %v still running", what, left)
		}
		<-tick.C
	}
}

// stopLimit bounds how long retrywise may take to exit after a signal in
// these tests: generous, so a loaded machine does not fail them; the
// promise of a kill within 500 ms is tested on the fake clock in
// internal/execstep, and here the events are: the exit code, the report
// and the empty group.
const stopLimit = 10 * time.Second

// stopWithin sends sig to the running binary and returns its exit code; a
// binary still running after limit is killed and fails the test.
func stopWithin(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, sig syscall.Signal, limit time.Duration) int {
	t.Helper()
	cmd.Process.Signal(sig)
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
		t.Fatalf("still running %s after %v (killed):\n%s", limit, sig, stderr.String())
	}
	return 0
}

// TestProcsSignalDuringTimeoutGrace: the attempt's --timeout is near and
// its child, which traps SIGTERM, is in its grace (20 s, shortened to 2 s to
// fit in the 4 s timeout) when retrywise is terminated: retrywise exits
// 143, nothing of the group survives and the report is written.
func TestProcsSignalDuringTimeoutGrace(t *testing.T) {
	t.Parallel()
	rep := filepath.Join(t.TempDir(), "r.json")
	cmd, stderr := startProcs(t, "", nil, "exec", "--timeout", "4s", "--kill-grace", "20s", "--report", rep, "--",
		"sh", "-c", `trap 'echo got TERM >&2' TERM; echo "leader $$" >&2; (trap '' TERM INT; exec sleep 61) & echo "bg $!" >&2; while :; do sleep 0.1; done`)
	leader := pidAfter(t, stderr, "leader")
	bg := pidAfter(t, stderr, "bg")
	t.Cleanup(func() { syscall.Kill(-leader, syscall.SIGKILL) })
	waitFor(t, stderr, "got TERM") // the timeout fired: the grace has begun
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Terminated, stderr.String())
	}
	waitGone(t, time.Now().Add(stopLimit), "after retrywise exited", leader, bg)
	if left := groupMembers(leader); len(left) > 0 {
		t.Errorf("group %d still has %v", leader, left)
	}
	if got, _ := readReport(t, rep); got.Stop != "cancelled" || len(got.Attempts) != 1 {
		t.Errorf("report = %+v", got)
	}
}

// TestProcsSIGINTBackgroundJob: a shell's background job ignores SIGINT, so
// the forwarded signal stops only the shell; the job is killed with the
// group all the same.
func TestProcsSIGINTBackgroundJob(t *testing.T) {
	t.Parallel()
	cmd, stderr := startProcs(t, "", nil, "exec", "--kill-grace", "60s", "--", "sh", "-c", `sleep 40 & echo "bg $!" >&2; wait`)
	bg := pidAfter(t, stderr, "bg")
	if code := stopWithin(t, cmd, stderr, syscall.SIGINT, stopLimit); code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	waitGone(t, time.Now().Add(stopLimit), "after SIGINT", bg)
}

// TestProcsSIGTERMJobIgnoresIt: a background job that ignores SIGTERM and
// SIGINT is killed with the group when retrywise is terminated, although the
// shell that started it exited at once.
func TestProcsSIGTERMJobIgnoresIt(t *testing.T) {
	t.Parallel()
	cmd, stderr := startProcs(t, "", nil, "exec", "--kill-grace", "60s", "--", "sh", "-c", `(trap '' TERM INT; exec sleep 41) & echo "bg $!" >&2; wait`)
	bg := pidAfter(t, stderr, "bg")
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Terminated, stderr.String())
	}
	waitGone(t, time.Now().Add(stopLimit), "after SIGTERM", bg)
}

// TestProcsTimeoutKillsGroup: an attempt stopped by --timeout has its whole
// group killed at the timeout (--kill-grace inside it), before the retry is
// waited for, even though the shell obeyed SIGTERM at once.
func TestProcsTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	cmd, stderr := startProcs(t, "", nil, "exec", "--timeout", "500ms", "--kill-grace", "1s", "--schedule", "1h", "--jitter", "0", "--max-elapsed", "2h", "--",
		"sh", "-c", `(trap '' TERM INT; exec sleep 42) & echo "bg $!" >&2; wait`)
	bg := pidAfter(t, stderr, "bg")
	waitFor(t, stderr, "retrying in 1h0m0s")
	// Only SIGKILL ends the job (it ignores SIGTERM and sleeps 42 s) and
	// retrywise now waits an hour: the job dying at all is the kill's
	// event. That the kill precedes the report is execstep's
	// TestBoundIncludesGrace, on the fake clock.
	waitGone(t, time.Now().Add(stopLimit), "after the timed-out attempt was reported", bg)
	if !strings.Contains(stderr.String(), "timed out") && !strings.Contains(stderr.String(), "timeout") {
		t.Errorf("the attempt was not reported as timed out:\n%s", stderr.String())
	}
	terminate(t, cmd, stderr)
}

// TestProcsOnRetryHook: the --on-retry clean-up runs as a step of its own
// and is stopped the same way: its background job dies with retrywise.
func TestProcsOnRetryHook(t *testing.T) {
	t.Parallel()
	cmd, stderr := startProcs(t, "", nil, "exec", "--kill-grace", "60s", "--schedule", "10ms", "--on-retry", `(trap '' TERM INT; exec sleep 43) & echo "hook $!" >&2; wait`, "--",
		"sh", "-c", "echo 'curl: (6) Could not resolve host: example.com' >&2; exit 6")
	hook := pidAfter(t, stderr, "hook")
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Terminated, stderr.String())
	}
	waitGone(t, time.Now().Add(stopLimit), "after SIGTERM", hook)
}

// TestProcsPushHook: git push runs through execstep in a group of its own,
// so a pre-push hook's background job dies with retrywise push.
func TestProcsPushHook(t *testing.T) {
	t.Parallel()
	fx := newPushFixture(t)
	hook := filepath.Join(fx.work, ".git", "hooks", "pre-push")
	script := "#!/bin/sh\n(trap '' TERM INT; exec sleep 44) & echo \"hook $!\" >&2; wait\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, stderr := startProcs(t, fx.work, fx.env, "push", "--", "origin", "main")
	pid := pidAfter(t, stderr, "hook")
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Terminated, stderr.String())
	}
	waitGone(t, time.Now().Add(stopLimit), "after SIGTERM", pid)
}
