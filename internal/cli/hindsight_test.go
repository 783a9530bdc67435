package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
)

// timeoutJob is a scheduled job whose step's target times out on every run
// (curl's own words), with a sibling step that succeeds.
const timeoutJob = `version: 1
jobs:
  nightly:
    cron: "0 3 * * *"
    steps:
      - id: fetch
        exec:
          command: [sh, -c, "echo 'curl: (28) Connection timed out after 5001 milliseconds' >&2; exit 28"]
          hosts: [api.example.test]
        retry: {schedule: [2s, 4s], max-attempts: 3}
`

// lastReport decodes job's newest report in the history folder.
func lastReport(t *testing.T, hist, job string) *report.Run {
	t.Helper()
	paths := historyReports(t, hist, job)
	if len(paths) == 0 {
		t.Fatal("no report")
	}
	return readRun(t, paths[len(paths)-1])
}

// TestHindsightThreeScheduledRuns: three schedule --once runs on one
// history folder of a step whose target times out: runs 1 and 2 retry,
// run 3 makes one attempt, exits 75 with the class and code kept, and its
// report says persistent.
func TestHindsightThreeScheduledRuns(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, timeoutJob)
	p := newProc(t)
	for run := 1; run <= 3; run++ {
		r := jobRun(t, p, dir, "schedule", "--once", "--job", "nightly", "--history", hist)
		if r.code != exitcode.Transient {
			t.Fatalf("run %d: exit %d\n%s", run, r.code, r.stderr)
		}
		rep := lastReport(t, hist, "nightly")
		st := rep.Steps[0]
		if st.Class != failure.Transient || st.Code != "curl-28" && failure.CodeKind(st.Code) != failure.KindNetwork {
			t.Fatalf("run %d: class %s code %s", run, st.Class, st.Code)
		}
		switch run {
		case 1, 2:
			if st.AttemptCount() != 3 || len(r.waits) != 2 || st.Persistent != nil {
				t.Fatalf("run %d: %d attempts, waits %v, persistent %+v", run, st.AttemptCount(), r.waits, st.Persistent)
			}
		case 3:
			if st.AttemptCount() != 1 || len(r.waits) != 0 || st.Persistent == nil || st.Persistent.Runs != 3 || len(st.Persistent.Dates) != 2 {
				t.Fatalf("run 3: %d attempts, waits %v, persistent %+v\n%s", st.AttemptCount(), r.waits, st.Persistent, r.stderr)
			}
			if !strings.Contains(r.stderr, "persistent: the same failure in 3 runs since") || !strings.Contains(st.Remedy, "api.example.test") {
				t.Errorf("run 3 says:\n%s\nremedy %q", r.stderr, st.Remedy)
			}
		}
		p.clk.Advance(24 * time.Hour) // the next night
	}
}

// TestHindsightSuccessClears: a success between clears the step's record;
// a different failure does not count; persist-after: 0 in the job turns
// it off whatever the flag says.
func TestHindsightSuccessClears(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	flag := filepath.Join(dir, "ok")
	writeJob(t, dir, strings.Replace(timeoutJob, `"echo 'curl`, `"test -e ok && exit 0; echo 'curl`, 1))
	p := newProc(t)
	runs := func(n int) (last prun) {
		for range n {
			last = jobRun(t, p, dir, "schedule", "--once", "--job", "nightly", "--history", hist)
			p.clk.Advance(24 * time.Hour)
		}
		return last
	}
	runs(2)
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runs(1); r.code != exitcode.OK {
		t.Fatalf("the success: exit %d\n%s", r.code, r.stderr)
	}
	os.Remove(flag)
	if r := runs(2); len(r.waits) != 2 {
		t.Fatalf("two failures after a success: the second retried %v", r.waits)
	}
	book, err := os.ReadFile(filepath.Join(hist, "nightly", "hindsight.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Steps map[string][]json.RawMessage }
	if err := json.Unmarshal(book, &b); err != nil || len(b.Steps["fetch"]) != 2 {
		t.Fatalf("book %s: %v", book, err)
	}
	if r := runs(1); len(r.waits) != 0 {
		t.Fatalf("the third failure in a row retried: %v", r.waits)
	}

	writeJob(t, dir, strings.Replace(timeoutJob, "    cron:", "    persist-after: 0\n    cron:", 1))
	if r := runs(1); len(r.waits) != 2 {
		t.Fatalf("persist-after: 0 still stopped at once: %v\n%s", r.waits, r.stderr)
	}
}

// TestHindsightRunHistory: run --history keeps the memory too, and the
// flags are checked.
func TestHindsightRunHistory(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, timeoutJob)
	p := newProc(t)
	var r prun
	for range 2 {
		r = jobRun(t, p, dir, "run", "--history", hist, "--persist-after", "2")
		p.clk.Advance(time.Hour)
	}
	if r.code != exitcode.Transient || len(r.waits) != 0 || !strings.Contains(r.stderr, "persistent: the same failure in 2 runs") {
		t.Fatalf("second run with --persist-after 2: exit %d waits %v\n%s", r.code, r.waits, r.stderr)
	}
	for _, bad := range [][]string{{"--persist-after", "1"}, {"--persist-after", "51"}, {"--persist-span", "-1h"}} {
		r := jobRun(t, p, dir, append([]string{"run", "--history", hist}, bad...)...)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	// Without --history, run keeps no memory.
	for range 3 {
		if r := jobRun(t, p, dir, "run", "--persist-after", "2"); len(r.waits) != 2 {
			t.Fatalf("run without --history stopped early: %v", r.waits)
		}
	}
}
