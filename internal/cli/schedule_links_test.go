package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/schedule"
)

// TestScheduleHistoryLinks: a symbolic link where the history's lock or a
// job's folder should be is refused with exit 78 and the link's path, and
// the file it points at is left as it was, by the scheduler and by --once.
func TestScheduleHistoryLinks(t *testing.T) {
	const text = "not the scheduler's\n"
	tests := []struct {
		name string
		link string // inside the history folder
		args []string
	}{
		{name: "lock, scheduler", link: ".lock"},
		{name: "lock, --once", link: ".lock", args: []string{"--once"}},
		{name: "lock, --once --job", link: ".lock", args: []string{"--once", "--job", "j"}},
		{name: "job folder, --once --job", link: "j", args: []string{"--once", "--job", "j"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, hist, out := t.TempDir(), t.TempDir(), t.TempDir()
			writeJob(t, dir, "version: 1\njobs:\n  j:\n    cron: \"* * * * *\"\n    steps: [{id: a, exec: {command: [sh, -c, \"echo ran\"]}}]\n")
			victim := filepath.Join(out, "victim")
			if tt.link == "j" {
				victim = filepath.Join(out, "20200101T000000.000Z.json") // rotation would remove it
			}
			if err := os.WriteFile(victim, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			target := victim
			if tt.link == "j" {
				target = out
			}
			link := filepath.Join(hist, tt.link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			r := jobRun(t, newProc(t), dir, append([]string{"schedule", "--history", hist, "--keep", "1"}, tt.args...)...)
			if b, err := os.ReadFile(victim); err != nil || string(b) != text {
				t.Errorf("%s was written through the link: %q %v", victim, b, err)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 1 {
				t.Errorf("written where the link points: %v", entries)
			}
			if strings.Contains(r.stdout, "ran") {
				t.Errorf("the job ran on a history that cannot record it:\n%s", r.stdout)
			}
			if r.code != exitcode.Config || !strings.Contains(r.stderr, link+" is a symbolic link") {
				t.Errorf("exit %d, want 78 naming %s\n%s", r.code, link, r.stderr)
			}
		})
	}
}

// TestScheduleOnceJobWaitsForTheLock: --once --job X asks for X now, so a
// history another scheduler holds is waited for, up to --lock-wait on the
// clock: released within it, X runs and its code is the exit; held past
// it, exit 75 naming the lock's holder, X not run. Plain --once still
// skips with 0.
func TestScheduleOnceJobWaitsForTheLock(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, "version: 1\njobs:\n  j:\n    cron: \"0 0 1 1 *\"\n    steps: [{id: a, exec: {command: [sh, -c, \"echo ran\"]}}]\n")
	h, err := schedule.OpenHistory(hist, 10)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := h.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { unlock() }()
	holder := fmt.Sprintf("%s is held by process %d", filepath.Join(hist, ".lock"), os.Getpid())

	// Held past the bound (the default, on a clock whose waits pass at once).
	p := newProc(t)
	r := jobRun(t, p, dir, "schedule", "--once", "--job", "j", "--history", hist)
	if r.code != exitcode.Transient || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, holder) || !strings.Contains(r.stderr, "after waiting 1m0s") {
		t.Errorf("held past the bound: exit %d, want 75 naming %q\nstdout %q\n%s", r.code, holder, r.stdout, r.stderr)
	}
	var waited time.Duration
	for _, w := range r.waits {
		waited += w
	}
	if waited != schedule.DefaultLockWait {
		t.Errorf("waited %v on the clock, want %v", waited, schedule.DefaultLockWait)
	}
	r = jobRun(t, newProc(t), dir, "schedule", "--once", "--job", "j", "--lock-wait", "0", "--history", hist)
	if r.code != exitcode.Transient || len(r.waits) != 0 || !strings.Contains(r.stderr, holder) {
		t.Errorf("--lock-wait 0: exit %d waits %v, want 75 at once\n%s", r.code, r.waits, r.stderr)
	}
	r = jobRun(t, newProc(t), dir, "schedule", "--once", "--history", hist)
	if r.code != exitcode.OK || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "skipped") {
		t.Errorf("plain --once: exit %d, want 0 and a skip\n%s", r.code, r.stderr)
	}
	if n := len(historyReports(t, hist, "j")); n != 0 {
		t.Errorf("%d reports of runs that should not have been", n)
	}

	// Released within the bound: the clock moves only when the test says.
	clk := clock.NewFake(testStart, false)
	p = &proc{t: t, clk: clk, c: &Command{Env: os.Environ(), Clock: clk, Version: "test", Rand: noJitter}}
	result := make(chan prun, 1)
	go func() {
		result <- jobRun(t, p, dir, "schedule", "--once", "--job", "j", "--lock-wait", "10m", "--history", hist)
	}()
	select {
	case <-clk.TimerCreated(): // --once --job waits on the clock
	case r := <-result:
		t.Fatalf("did not wait: exit %d\n%s", r.code, r.stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("never waited")
	}
	clk.Advance(5 * time.Minute)
	unlock()
	clk.Advance(schedule.LockPoll)
	select {
	case r = <-result:
	case <-time.After(30 * time.Second):
		t.Fatal("did not return once the lock was free")
	}
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "waiting up to 10m0s for the history's lock: "+holder) {
		t.Errorf("released within the bound: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(historyReports(t, hist, "j")); n != 1 {
		t.Errorf("%d reports, want the run's", n)
	}

	for _, args := range [][]string{{"--once", "--lock-wait", "1m"}, {"--lock-wait", "1m"}, {"--once", "--job", "j", "--lock-wait", "-1s"}, {"--once", "--job", "j", "--lock-wait", "2h"}} {
		if r := jobRun(t, newProc(t), dir, append([]string{"schedule", "--history", hist}, args...)...); r.code != exitcode.Usage {
			t.Errorf("%q: exit %d, want 64\n%s", args, r.code, r.stderr)
		}
	}
}

// TestScheduleOnceJobLockWaitSignal: the binary waiting for a held
// history's lock stops at once on SIGTERM (143) and SIGINT (130).
func TestScheduleOnceJobLockWaitSignal(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGTERM, exitcode.Terminated}, {syscall.SIGINT, exitcode.Interrupted}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			bin := buildBinary(t)
			dir, hist := t.TempDir(), t.TempDir()
			writeJob(t, dir, "version: 1\njobs:\n  j:\n    steps: [{id: a, exec: {command: [sh, -c, \"echo ran\"]}}]\n")
			h, err := schedule.OpenHistory(hist, 10)
			if err != nil {
				t.Fatal(err)
			}
			unlock, err := h.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			cmd := exec.Command(bin, "schedule", "--once", "--job", "j", "--lock-wait", "1h", "--history", hist)
			cmd.Dir = dir
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			waitFor(t, stderr, "waiting up to 1h0m0s for the history's lock")
			start := time.Now()
			code := stopWithin(t, cmd, stderr, tt.sig, stopLimit)
			t.Logf("stopped %v after the signal", time.Since(start))
			if code != tt.want || !strings.Contains(stderr.String(), "stopped while waiting for the history's lock") {
				t.Errorf("exit %d, want %d\n%s", code, tt.want, stderr.String())
			}
		})
	}
}
