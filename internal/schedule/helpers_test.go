package schedule

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// t0 is the fake clock's start in the tests: a Monday, 10:00 UTC.
var t0 = time.Date(2025, time.March, 3, 10, 0, 0, 0, time.UTC)

// guard bounds every wait of a test on a channel or on the fake clock's
// waiters, so that a missing event fails the test instead of hanging it.
// It is not a wait for behaviour: the tests never sleep.
const guard = 10 * time.Second

// waitCtx returns a context that ends after the guard.
func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	t.Cleanup(cancel)
	return ctx
}

// blockUntil waits until clk has n waiters (timers, after-funcs).
func blockUntil(t *testing.T, clk *clock.Fake, n int) {
	t.Helper()
	if err := clk.BlockUntil(waitCtx(t), n); err != nil {
		t.Fatalf("the clock never had %d waiters: %v", n, err)
	}
}

// call is one call of a fakeRun's Run.
type call struct {
	job string
	at  time.Time
}

// fakeRun is a Run that records its calls on the clock, returns codes[job]
// and a small report, and, for the jobs in block, waits until the test
// releases them or their context ends.
type fakeRun struct {
	clock   clock.Clock
	codes   map[string]int
	block   map[string]chan struct{}
	started chan call
	ended   chan error // each blocked run's context cause, or nil when released

	mu    sync.Mutex
	calls []call
}

// newFakeRun returns a fakeRun on clk.
func newFakeRun(clk clock.Clock) *fakeRun {
	return &fakeRun{clock: clk, codes: map[string]int{}, block: map[string]chan struct{}{}, started: make(chan call, 100), ended: make(chan error, 100)}
}

// blockJob makes job's runs wait; close the channel to release them.
func (f *fakeRun) blockJob(job string) chan struct{} {
	c := make(chan struct{})
	f.block[job] = c
	return c
}

// run is the Scheduler's Run.
func (f *fakeRun) run(ctx context.Context, job string) (int, []byte) {
	c := call{job: job, at: f.clock.Now()}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	f.started <- c
	if rel, ok := f.block[job]; ok {
		select {
		case <-rel:
			f.ended <- nil
		case <-ctx.Done():
			f.ended <- context.Cause(ctx)
			return ShutdownCode, []byte(`{"cancelled":true}`)
		}
	}
	return f.codes[job], fmt.Appendf(nil, `{"job":%q,"start":%q}`, job, c.at.Format(time.RFC3339))
}

// Calls returns the calls so far.
func (f *fakeRun) Calls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// waitStarted waits for the next run to start and returns it.
func (f *fakeRun) waitStarted(t *testing.T) call {
	t.Helper()
	select {
	case c := <-f.started:
		return c
	case <-waitCtx(t).Done():
		t.Fatalf("no run started; runs so far: %v", f.Calls())
	}
	return call{}
}

// logs collects a Scheduler's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
	c     chan string
}

// newLogs returns an empty log.
func newLogs() *logs { return &logs{c: make(chan string, 1000)} }

// add is the Scheduler's Log.
func (l *logs) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.c <- line
}

// all returns the lines so far.
func (l *logs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// count returns how many lines so far contain s.
func (l *logs) count(s string) int {
	return strings.Count(l.all(), s)
}

// wait waits for the next line containing s and returns it.
func (l *logs) wait(t *testing.T, s string) string {
	t.Helper()
	ctx := waitCtx(t)
	for {
		select {
		case line := <-l.c:
			if strings.Contains(line, s) {
				return line
			}
		case <-ctx.Done():
			t.Fatalf("no log line with %q; the log:\n%s", s, l.all())
		}
	}
}

// serve starts s.Serve and returns its cancel and its result.
func serve(t *testing.T, s *Scheduler) (stop context.CancelCauseFunc, result <-chan int) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(t.Context())
	out := make(chan int, 1)
	go func() { out <- s.Serve(ctx) }()
	t.Cleanup(func() { cancel(nil) })
	return cancel, out
}

// wait returns Serve's result.
func waitResult(t *testing.T, result <-chan int) int {
	t.Helper()
	select {
	case code := <-result:
		return code
	case <-waitCtx(t).Done():
		t.Fatal("Serve did not return")
	}
	return -1
}

// openHistory opens a history in a temporary folder with reports of
// job at each of starts.
func openHistory(t *testing.T, keep int, starts map[string][]time.Time) *History {
	t.Helper()
	h, err := OpenHistory(t.TempDir(), keep)
	if err != nil {
		t.Fatal(err)
	}
	for job, ss := range starts {
		for _, s := range ss {
			if _, err := h.Save(job, s, []byte("{}")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h
}

// mustZone loads the zone name.
func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// Last returns the start of job's newest report, read from its file name;
// ok is false when the job has none.
func (h *History) Last(job string) (start time.Time, ok bool, err error) {
	names, r, _, err := h.jobReports(job)
	if r != nil {
		r.Close()
	}
	if err != nil || len(names) == 0 {
		return time.Time{}, false, err
	}
	start, _ = reportStart(names[len(names)-1])
	return start, true, nil
}
