package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/report/reporttest"
	"github.com/retrywise/retrywise/internal/schedule"
)

// writeJob writes a job file into dir.
func writeJob(t *testing.T, dir, job string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
}

// historyReports lists job's reports in the history, validating each.
func historyReports(t *testing.T, hist, job string) []string {
	t.Helper()
	h, err := schedule.OpenHistory(hist, schedule.DefaultKeep)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := h.Reports(job)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		reporttest.ValidateFile(t, p)
	}
	return paths
}

// TestScheduleOnce: --once runs the jobs due since their last run (with no
// history: within the last minute) and records them; a job not due does not
// run; --once --job runs a job now and exits with its code.
func TestScheduleOnce(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, `version: 1
jobs:
  often:
    cron: "* * * * *"
    steps: [{id: a, exec: {command: [sh, -c, "echo often-ran"]}}]
  yearly:
    cron: ["0 0 1 1 *"]
    timezone: Europe/Berlin
    steps: [{id: b, exec: {command: [sh, -c, "echo yearly-ran"]}}]
  manual:
    steps: [{id: c, exec: {command: [sh, -c, "echo ' ! [rejected]        main -> main (non-fast-forward)' >&2; exit 1"]}}]
`)
	r := jobRun(t, newProc(t), dir, "schedule", "--once", "--history", hist)
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "often-ran") || strings.Contains(r.stdout, "yearly-ran") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if got := historyReports(t, hist, "often"); len(got) != 1 {
		t.Errorf("often: %d reports", len(got))
	}
	if got := historyReports(t, hist, "yearly"); len(got) != 0 {
		t.Errorf("yearly ran: %v", got)
	}
	r = jobRun(t, newProc(t), dir, "schedule", "--once", "--job", "yearly", "--history", hist)
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "yearly-ran") || len(historyReports(t, hist, "yearly")) != 1 {
		t.Errorf("--once --job yearly: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = jobRun(t, newProc(t), dir, "schedule", "--once", "--job", "manual", "--history", hist)
	if r.code != exitcode.Structural || len(historyReports(t, hist, "manual")) != 1 {
		t.Errorf("--once --job manual: exit %d, want 65\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"--job", "often"}, {"--once", "--job", "nope"}, {"--keep", "0"}, {"--once", "--listen", ":0"}} {
		if r := jobRun(t, newProc(t), dir, append([]string{"schedule", "--history", hist}, args...)...); r.code != exitcode.Usage {
			t.Errorf("%q: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	writeJob(t, dir, "version: 1\njobs:\n  j:\n    steps: [{id: a, exec: {command: [\"true\"]}}]\n")
	if r := jobRun(t, newProc(t), dir, "schedule", "--history", hist); r.code != exitcode.Config || !strings.Contains(r.stderr, "has a cron: trigger") {
		t.Errorf("no cron: exit %d\n%s", r.code, r.stderr)
	}
	writeJob(t, dir, "version: 1\njobs:\n  j:\n    cron: \"61 * * * *\"\n    steps: [{id: a, exec: {command: [\"true\"]}}]\n")
	if r := jobRun(t, newProc(t), dir, "schedule", "--history", hist); r.code != exitcode.Config || !strings.Contains(r.stderr, "retrywise.yml:4:") {
		t.Errorf("bad cron: exit %d\n%s", r.code, r.stderr)
	}
}

// TestScheduleLock: one process per history folder. A scheduler refuses a
// held folder with 78, naming the holder's pid; --once skips and exits 0.
func TestScheduleLock(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, "version: 1\njobs:\n  j:\n    cron: \"* * * * *\"\n    steps: [{id: a, exec: {command: [sh, -c, \"echo ran\"]}}]\n")
	h, err := schedule.OpenHistory(hist, 10)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := h.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	r := jobRun(t, newProc(t), dir, "schedule", "--history", hist)
	if r.code != exitcode.Config || !strings.Contains(r.stderr, fmt.Sprint(os.Getpid())) {
		t.Errorf("held folder: exit %d\n%s", r.code, r.stderr)
	}
	r = jobRun(t, newProc(t), dir, "schedule", "--once", "--history", hist)
	if r.code != exitcode.OK || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "skipped") {
		t.Errorf("--once on a held folder: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// startSchedule starts the binary's scheduler on a job file with a catch-up
// job whose last recorded run is a year old, so it runs once at the start.
func startSchedule(t *testing.T, job string, args ...string) (cmd *exec.Cmd, stderr *syncBuffer, hist string) {
	t.Helper()
	bin := buildBinary(t)
	dir := t.TempDir()
	hist = t.TempDir()
	writeJob(t, dir, job)
	h, err := schedule.OpenHistory(hist, 10)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().AddDate(-1, 0, 0)
	prev := report.NewRun("j", old)
	prev.Finish(old, exitcode.OK, "")
	var b bytes.Buffer
	prev.WriteJSON(&b)
	if _, err := h.Save("j", old, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, append([]string{"schedule", "--history", hist}, args...)...)
	cmd.Dir = dir
	stderr = &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stderr, hist
}

// TestScheduleServeMetrics: a running scheduler serves /healthz and
// /metrics; after a catch-up run with one recovered transient failure and
// one policy stop, the metrics (parsed with Prometheus' text parser) count
// them; SIGTERM stops it within a second with 143.
func TestScheduleServeMetrics(t *testing.T) {
	cmd, stderr, hist := startSchedule(t, `version: 1
jobs:
  j:
    cron: "0 0 1 1 *"
    catch-up: true
    steps:
      - {id: flaky, retry: {schedule: [10ms]}, exec: {run: 'if [ ! -e f ]; then touch f; echo "curl: (28) Operation timed out" >&2; exit 28; fi'}}
      - id: refused
        continue-on-error: true
        exec: {command: [sh, -c, "echo 'curl: (22) The requested URL returned error: 403' >&2; exit 22"]}
`, "--listen", "127.0.0.1:0")
	waitFor(t, stderr, "ended: job j: exit 0")
	m := regexp.MustCompile(`serving /healthz and /metrics on (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no listen line:\n%s", stderr.String())
	}
	resp, err := http.Get("http://" + m[1] + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	resp.Body.Close()
	resp, err = http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string, labels map[string]string) float64 {
		f := families[name]
		if f == nil {
			t.Fatalf("no %s in the metrics", name)
		}
	next:
		for _, mt := range f.Metric {
			for _, lp := range mt.Label {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue next
				}
			}
			if mt.Counter != nil {
				return mt.Counter.GetValue()
			}
			return mt.Gauge.GetValue()
		}
		t.Fatalf("no %s%v", name, labels)
		return 0
	}
	if got := value("retrywise_runs_total", map[string]string{"job": "j", "result": "success"}); got != 1 {
		t.Errorf("runs_total = %v", got)
	}
	if got := value("retrywise_attempts_total", map[string]string{"kind": "exec"}); got != 3 {
		t.Errorf("attempts_total{exec} = %v, want 3: two of the recovered step, one of the policy stop", got)
	}
	if got := value("retrywise_failures_total", map[string]string{"job": "j", "class": "policy"}); got != 1 {
		t.Errorf("failures_total{policy} = %v, want 1", got)
	}
	if got := value("retrywise_next_run_timestamp_seconds", map[string]string{"job": "j"}); got < float64(time.Now().Unix()) {
		t.Errorf("next run = %v, not in the future", got)
	}
	if got := len(historyReports(t, hist, "j")); got != 2 {
		t.Errorf("%d reports in the history, want the old one and the catch-up's", got)
	}
	// Nothing runs: exiting at all (within stopLimit) is the signal's event.
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Errorf("SIGTERM: exit %d\n%s", code, stderr.String())
	}
}

// TestScheduleGrace: SIGTERM while a job runs lets it go on for --grace,
// then cancels it; its report is still saved, and the scheduler exits 143.
func TestScheduleGrace(t *testing.T) {
	cmd, stderr, hist := startSchedule(t, `version: 1
jobs:
  j:
    cron: "0 0 1 1 *"
    catch-up: true
    steps:
      - {id: long, exec: {command: [sh, -c, "echo started; sleep 30"]}}
      - {id: after, exec: {command: ["true"]}}
`, "--grace", "300ms")
	waitFor(t, stderr, "started: job j")
	waitFor(t, stderr, "step long (exec")
	if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143\n%s", code, stderr.String())
	}
	// The events, in order: the grace began, it ran out, the job was
	// cancelled (its sleep 30 cut short: stopLimit is far below it).
	log := stderr.String()
	began, over := strings.Index(log, "shutting down: 1 running, 300ms grace"), strings.Index(log, "the 300ms grace is over")
	if began < 0 || over < began {
		t.Errorf("the grace's events are missing or out of order:\n%s", log)
	}
	reports := historyReports(t, hist, "j")
	if len(reports) != 2 {
		t.Fatalf("%d reports, want the cut run's too\n%s", len(reports), stderr.String())
	}
	rep := readRun(t, reports[len(reports)-1])
	if got := stepResults(rep); len(got) != 2 || got[0] != "long=cancelled" || got[1] != "after=cancelled" || rep.Run.ExitCode != exitcode.Terminated {
		t.Errorf("steps %v, exit %d", got, rep.Run.ExitCode)
	}
}
