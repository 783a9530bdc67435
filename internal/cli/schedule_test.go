package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
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

// servingSchedule is `retrywise schedule` serving in this process on a
// fake clock that moves only when the test says.
type servingSchedule struct {
	clk            *clock.Fake
	stdout, stderr *syncBuffer
	deliver        func(syscall.Signal) // the signal the scheduler receives
	result         chan int
	hist, dir      string
}

// startSchedule starts the scheduler in this process, on a fake clock, on
// the job file job (its text's $DIR is a folder of the test's, the only
// place its commands may write) with a catch-up job j whose last recorded
// run is a year old, so that it runs once at the start.
func startSchedule(t *testing.T, job string, args ...string) *servingSchedule {
	t.Helper()
	s := &servingSchedule{clk: clock.NewFake(testStart, false), stdout: &syncBuffer{}, stderr: &syncBuffer{}, result: make(chan int, 1), hist: t.TempDir(), dir: t.TempDir()}
	config := filepath.Join(s.dir, "retrywise.yml")
	if err := os.WriteFile(config, []byte(strings.ReplaceAll(job, "$DIR", s.dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := schedule.OpenHistory(s.hist, 10)
	if err != nil {
		t.Fatal(err)
	}
	old := testStart.AddDate(-1, 0, 0)
	prev := report.NewRun("j", old)
	prev.Finish(old, exitcode.OK, "")
	var b bytes.Buffer
	prev.WriteJSON(&b)
	if _, err := h.Save("j", old, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	c := &Command{Stdin: strings.NewReader(""), Stdout: s.stdout, Stderr: s.stderr, Env: os.Environ(), Clock: s.clk, Version: "test", Rand: noJitter}
	ctx, deliver := interrupt.WithSignal(t.Context())
	s.deliver = deliver
	go func() {
		s.result <- c.Main(ctx, append([]string{"retrywise", "schedule", "--config", config, "--history", s.hist}, args...))
	}()
	t.Cleanup(func() {
		// A test that failed early leaves it serving: stopped, with every
		// grace passed on the clock.
		deliver(syscall.SIGTERM)
		s.clk.Advance(time.Hour)
		guard := time.After(30 * time.Second)
		for {
			select {
			case <-s.result:
				return
			case <-s.clk.TimerCreated():
				s.clk.Advance(time.Hour)
			case <-guard:
				t.Error("the scheduler did not stop")
				return
			}
		}
	})
	return s
}

// advanceWait waits until the code under test starts a wait of d on the
// clock (beyond the first seen of the clock's waits), then moves the clock
// by d; it returns how many waits the clock has then seen.
func (s *servingSchedule) advanceWait(t *testing.T, seen int, d time.Duration) int {
	t.Helper()
	deadline := time.After(30 * time.Second) // a guard, not a wait
	for {
		waits := s.clk.Waits()
		if i := slices.Index(waits[seen:], d); i >= 0 {
			s.clk.Advance(d)
			return seen + i + 1
		}
		select {
		case <-s.clk.TimerCreated():
		case <-deadline:
			t.Fatalf("no wait of %s on the clock (waits %v)\n%s", d, waits, s.stderr.String())
		}
	}
}

// stop delivers sig and returns the scheduler's exit code; the wall bound
// is a guard: with nothing left to wait for, the return is the event.
func (s *servingSchedule) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	s.deliver(sig)
	select {
	case code := <-s.result:
		s.result <- code // for the cleanup
		return code
	case <-time.After(stopLimit):
		t.Fatalf("still serving %s after %s:\n%s", stopLimit, sig, s.stderr.String())
	}
	return -1
}

// TestScheduleServeMetrics: a running scheduler serves /healthz and
// /metrics; after a catch-up run with one recovered transient failure and
// one policy stop, the metrics (parsed with Prometheus' text parser) count
// them; SIGTERM stops it within a second with 143.
func TestScheduleServeMetrics(t *testing.T) {
	s := startSchedule(t, `version: 1
jobs:
  j:
    cron: "0 0 1 1 *"
    catch-up: true
    steps:
      - {id: flaky, retry: {schedule: [10ms]}, exec: {run: 'if [ ! -e $DIR/f ]; then touch $DIR/f; echo "curl: (28) Operation timed out" >&2; exit 28; fi'}}
      - id: refused
        continue-on-error: true
        exec: {command: [sh, -c, "echo 'curl: (22) The requested URL returned error: 403' >&2; exit 22"]}
`, "--listen", "127.0.0.1:0")
	stderr := s.stderr
	waitFor(t, stderr, "started: job j (catch-up")
	// The flaky step's one retry waits its 10ms on the clock: the test moves it.
	s.advanceWait(t, 0, 10*time.Millisecond)
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
	if got, want := value("retrywise_next_run_timestamp_seconds", map[string]string{"job": "j"}), time.Date(testStart.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC); got != float64(want.Unix()) {
		t.Errorf("next run = %v, want %v (%v): the next slot on the scheduler's clock", got, want.Unix(), want)
	}
	if got := historyReports(t, s.hist, "j"); len(got) != 2 || !strings.HasPrefix(filepath.Base(got[1]), testStart.Format("20060102T150405")) {
		t.Errorf("reports %v, want the old one and the catch-up's, started at %v on the command's clock", got, testStart)
	}
	// Nothing runs: returning at all is the signal's event.
	if code := s.stop(t, syscall.SIGTERM); code != exitcode.Terminated {
		t.Errorf("SIGTERM: exit %d\n%s", code, stderr.String())
	}
}

// TestScheduleGrace: SIGTERM while a job runs lets it go on for --grace,
// then cancels it; its report is still saved, and the scheduler exits 143.
func TestScheduleGrace(t *testing.T) {
	s := startSchedule(t, `version: 1
jobs:
  j:
    cron: "0 0 1 1 *"
    catch-up: true
    steps:
      - {id: long, exec: {command: [sh, -c, "echo started; sleep 30"]}}
      - {id: after, exec: {command: ["true"]}}
`, "--grace", "300ms")
	stderr := s.stderr
	waitFor(t, stderr, "started: job j")
	waitFor(t, stderr, "step long (exec")
	s.deliver(syscall.SIGTERM)
	waitFor(t, stderr, "shutting down: 1 running, 300ms grace")
	// The job goes on through the grace: it ends only once the clock has
	// passed the grace, which the test does.
	if strings.Contains(stderr.String(), "ended: job j") {
		t.Fatalf("the job ended before its grace was over:\n%s", stderr.String())
	}
	s.advanceWait(t, 0, 300*time.Millisecond)
	if code := s.stop(t, syscall.SIGTERM); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143\n%s", code, stderr.String())
	}
	// The events, in order: the grace began, it ran out, the job was
	// cancelled (its sleep 30 cut short: stopLimit is far below it).
	log := stderr.String()
	began, over, ended := strings.Index(log, "shutting down: 1 running, 300ms grace"), strings.Index(log, "the 300ms grace is over"), strings.Index(log, "ended: job j: exit 143")
	if began < 0 || over < began || ended < over {
		t.Errorf("the grace's events are missing or out of order:\n%s", log)
	}
	reports := historyReports(t, s.hist, "j")
	if len(reports) != 2 {
		t.Fatalf("%d reports, want the cut run's too\n%s", len(reports), stderr.String())
	}
	rep := readRun(t, reports[len(reports)-1])
	if got := stepResults(rep); len(got) != 2 || got[0] != "long=cancelled" || got[1] != "after=cancelled" || rep.Run.ExitCode != exitcode.Terminated {
		t.Errorf("steps %v, exit %d", got, rep.Run.ExitCode)
	}
}
