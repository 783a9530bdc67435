package schedule

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestOnceIgnoresFutureReports: a report dated after now (the clock jumped
// back, or a folder was copied from a machine ahead) does not make the job
// "not due" forever.
func TestOnceIgnoresFutureReports(t *testing.T) {
	now := t0.Add(7*time.Minute + 30*time.Second)
	for _, ahead := range []time.Duration{time.Second, time.Hour, 24 * time.Hour, 10 * 365 * 24 * time.Hour} {
		every5 := Trigger{Job: "often", Cron: []string{"*/5 * * * *"}}
		clk := clock.NewFake(now, false)
		r := newFakeRun(clk)
		h := openHistory(t, 0, map[string][]time.Time{"often": {t0, now.Add(ahead)}})
		l := newLogs()
		s := &Scheduler{Triggers: []Trigger{every5}, Clock: clk, History: h, Run: r.run, Log: l.add}
		if code := s.Once(t.Context(), ""); code != exitcode.OK || len(r.Calls()) != 1 {
			t.Errorf("ahead %s: exit %d, runs %v\n%s", ahead, code, r.Calls(), l.all())
		}
	}
}

// TestRunRemovesFutureReports: the run that follows removes the job's
// reports dated after now, so that one never stays the newest forever; a
// report dated now or before stays.
func TestRunRemovesFutureReports(t *testing.T) {
	now := t0.Add(7*time.Minute + 30*time.Second)
	clk := clock.NewFake(now, false)
	r := newFakeRun(clk)
	h := openHistory(t, 3, map[string][]time.Time{"j": {t0, now.Add(time.Millisecond), now.Add(100 * 24 * time.Hour)}})
	l := newLogs()
	s := &Scheduler{Triggers: []Trigger{{Job: "j", Cron: []string{"0 0 1 1 *"}}}, Clock: clk, History: h, Run: r.run, Log: l.add}
	if code := s.Once(t.Context(), "j"); code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, l.all())
	}
	paths, err := h.Reports("j")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || !strings.HasSuffix(paths[0], t0.Format(startLayout)+".json") || !strings.HasSuffix(paths[1], now.Format(startLayout)+".json") {
		t.Errorf("reports %v: want the one of t0 and the new one", paths)
	}
	if !strings.Contains(l.all(), "removed 2 report(s) dated in the future") {
		t.Errorf("log:\n%s", l.all())
	}
}

// TestLongJobNames: a job name of any length that validate accepts can be
// saved: a name too long for a file name is shortened with a hash, two long
// names sharing their start stay apart.
func TestLongJobNames(t *testing.T) {
	h, err := OpenHistory(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 300)
	for _, job := range []string{long, long + "x", strings.Repeat("é", 200), strings.Repeat("a", 255), strings.Repeat("b", 1000)} {
		if _, err := h.Save(job, t0, []byte("{}")); err != nil {
			if errno, ok := err.(syscall.Errno); ok || strings.Contains(err.Error(), "too long") {
				t.Errorf("Save(%d bytes): %v %v", len(job), err, errno)
			} else {
				t.Errorf("Save(%d bytes): %v", len(job), err)
			}
			continue
		}
		if p, err := h.Reports(job); err != nil || len(p) != 1 {
			t.Errorf("Reports(%d bytes) = %v, %v", len(job), p, err)
		}
		if _, ok, err := h.LastAt(job, t0); !ok || err != nil {
			t.Errorf("LastAt(%d bytes) = %v, %v", len(job), ok, err)
		}
	}
	entries, _ := os.ReadDir(h.Dir())
	for _, e := range entries {
		if len(e.Name()) > 255 {
			t.Errorf("folder name of %d bytes", len(e.Name()))
		}
	}
	if _, err := os.Stat(filepath.Join(h.Dir(), "publish")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
