package explain

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

const rerunPost = "POST /repos/o/r/actions/runs/42/rerun-failed-jobs"

// TestRerun502IsNotRepeated: a 502 to the re-run is ambiguous (GitHub may
// have re-run the run): it is never sent again; the run is read once, and
// the report says what that read shows.
func TestRerun502IsNotRepeated(t *testing.T) {
	for _, took := range []bool{true, false} {
		t.Run(fmt.Sprintf("took=%v", took), func(t *testing.T) {
			g := newFake(t)
			g.rerunCode, g.rerunMsg = 502, "Bad Gateway"
			g.rerunTakes = took
			g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
			res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
			after := g.since(rerunPost)
			if g.reruns != 1 || fmt.Sprint(after) != "[GET /repos/o/r/actions/runs/42]" {
				t.Fatalf("re-run requests = %d, then %q; want one POST, then one GET of the run", g.reruns, after)
			}
			if w := g.clk.Waits(); len(w) != 0 {
				t.Errorf("waits = %v: nothing is retried", w)
			}
			t.Log(res.RerunWhy)
			if took {
				if !res.Rerun || res.ExitCode != exitcode.OK || !strings.Contains(res.RerunWhy, "re-run confirmed") || !strings.Contains(res.RerunWhy, "attempt 2 queued") {
					t.Errorf("rerun = %v, exit = %d, why = %q; want confirmed, 0", res.Rerun, res.ExitCode, res.RerunWhy)
				}
			} else {
				if res.Rerun || res.ExitCode != exitcode.Transient || !strings.Contains(res.RerunWhy, "re-run not confirmed") || !strings.Contains(res.RerunWhy, "HTTP 502") {
					t.Errorf("rerun = %v, exit = %d, why = %q; want not confirmed, 75", res.Rerun, res.ExitCode, res.RerunWhy)
				}
			}
			if strings.Contains(res.RerunWhy, "not re-run") {
				t.Errorf("why = %q: an ambiguous answer is not a refusal", res.RerunWhy)
			}
			if !strings.Contains(res.Headline, res.RerunWhy) {
				t.Errorf("headline = %q, want the re-run's outcome", res.Headline)
			}
		})
	}
}

// TestRerunResetAfterSendingIsNotRepeated: a connection closed after the
// request was sent is as ambiguous as a 502: one POST, one read of the run.
func TestRerunResetAfterSendingIsNotRepeated(t *testing.T) {
	g := newFake(t)
	g.rerunReset, g.rerunTakes = true, true
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	after := g.since(rerunPost)
	if g.reruns != 1 || fmt.Sprint(after) != "[GET /repos/o/r/actions/runs/42]" {
		t.Fatalf("re-run requests = %d, then %q; want one POST, then one GET of the run", g.reruns, after)
	}
	t.Log(res.RerunWhy)
	if !res.Rerun || res.ExitCode != exitcode.OK || !strings.Contains(res.RerunWhy, "re-run confirmed") {
		t.Errorf("rerun = %v, exit = %d, why = %q", res.Rerun, res.ExitCode, res.RerunWhy)
	}
}

// TestRerunCountsTheLatestAttempt: --max-reruns is checked against the
// run's latest attempt, whichever attempt was explained.
func TestRerunCountsTheLatestAttempt(t *testing.T) {
	g := newFake(t)
	g.attempt = 5
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explainAttempt(t, 1, Options{Rerun: true, MaxReruns: 3})
	if g.reruns != 0 || res.Rerun {
		t.Fatalf("re-runs = %d; want none: the run is on attempt 5, over --max-reruns 3", g.reruns)
	}
	if res.ExitCode != exitcode.Transient || !strings.Contains(res.RerunWhy, "not re-run") || !strings.Contains(res.RerunWhy, "attempt 5, over --max-reruns 3") {
		t.Errorf("exit = %d, why = %q", res.ExitCode, res.RerunWhy)
	}
}

// TestRerunOfAnOlderAttempt: an explained attempt the run has moved on
// from is not re-run, even within --max-reruns: its classification says
// nothing of the latest attempt's failures.
func TestRerunOfAnOlderAttempt(t *testing.T) {
	g := newFake(t)
	g.attempt = 2
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explainAttempt(t, 1, Options{Rerun: true, MaxReruns: 3})
	if g.reruns != 0 || res.Rerun || !strings.Contains(res.RerunWhy, "latest attempt is 2") {
		t.Errorf("re-runs = %d, why = %q", g.reruns, res.RerunWhy)
	}
	// Explaining the latest attempt by number re-runs it (attempt 1
	// failed another way: a 503 of the registry).
	g.attemptJobs = map[int][]fJob{1: {jobOf(7, "publish", "npm error code E503", "npm error 503 Service Unavailable - PUT https://registry.npmjs.org/pkg")}}
	if res := g.explainAttempt(t, 2, Options{Rerun: true, MaxReruns: 3}); g.reruns != 1 || !res.Rerun {
		t.Errorf("attempt 2: re-runs = %d, why = %q", g.reruns, res.RerunWhy)
	}
}

// TestRerunAlreadyRunning: a run that is running again when the re-run
// would be sent (someone re-ran it meanwhile) is not sent another.
func TestRerunAlreadyRunning(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	calls := 0
	g.onRunGet = func() {
		if calls++; calls == 2 { // the read before the re-run
			g.attempt, g.status, g.conclusion = 2, "in_progress", ""
		}
	}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 3})
	if g.reruns != 0 || res.Rerun || !strings.Contains(res.RerunWhy, "in_progress") {
		t.Errorf("re-runs = %d, why = %q", g.reruns, res.RerunWhy)
	}
}

// TestRerunClean201: a clean 201 is one POST and a re-run reported.
func TestRerunClean201(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	if g.reruns != 1 || len(g.since(rerunPost)) != 0 {
		t.Errorf("re-runs = %d, then %q", g.reruns, g.since(rerunPost))
	}
	if !res.Rerun || res.ExitCode != exitcode.OK || !strings.HasPrefix(res.RerunWhy, "re-run requested") {
		t.Errorf("rerun = %v, exit = %d, why = %q", res.Rerun, res.ExitCode, res.RerunWhy)
	}
}

// TestRerunNotSent: a connection that could not be made sent nothing: the
// run is not re-run, and that is not ambiguous (no read after it).
func TestRerunNotSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there: connection refused
	g := newFake(t)
	g.postTo = closed
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	t.Log(res.RerunWhy)
	if g.reruns != 0 || res.Rerun || res.ExitCode != exitcode.Transient || !strings.HasPrefix(res.RerunWhy, "not re-run: the re-run request could not be sent") {
		t.Errorf("re-runs = %d, exit = %d, why = %q", g.reruns, res.ExitCode, res.RerunWhy)
	}
	g.mu.Lock()
	last := g.requests[len(g.requests)-1]
	g.mu.Unlock()
	if last != "GET /repos/o/r/actions/runs/42" {
		t.Errorf("last request %q, want the read before the re-run", last)
	}
	if w := g.clk.Waits(); len(w) != 0 {
		t.Errorf("waits = %v: the re-run is not retried", w)
	}
}

// TestRerunRefusedWhenTheAttemptBeforeFailedTheSameWay: attempt 2 whose
// failed steps each failed with the same fingerprint in attempt 1 is not
// re-run: a re-run did not help once. The exit stays the class's.
func TestRerunRefusedWhenTheAttemptBeforeFailedTheSameWay(t *testing.T) {
	g := newFake(t)
	g.attempt = 2
	g.jobs = []fJob{jobOf(2, "publish", transientOut...)}
	g.attemptJobs = map[int][]fJob{1: {jobOf(1, "publish", "npm error code ETIMEDOUT", "npm error network request timed out")}}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 3})
	t.Log(res.Headline)
	if g.reruns != 0 || res.Rerun {
		t.Fatalf("re-runs = %d; want none: attempt 1 failed the same way (%s)", g.reruns, res.RerunWhy)
	}
	const same = "attempt 2 failed the same way as attempt 1: not transient in practice"
	if res.ExitCode != exitcode.Transient || !strings.Contains(res.RerunWhy, same) || !strings.Contains(res.Headline, same) || !strings.Contains(res.Report.Run.Detail, same) {
		t.Errorf("exit = %d, why = %q, headline = %q", res.ExitCode, res.RerunWhy, res.Headline)
	}
	if v := res.Report.Steps[0].Outputs["rerun"]; v != false {
		t.Errorf("rerun output = %v, want false", v)
	}
	var text strings.Builder
	res.WriteText(&text, "run")
	if !strings.Contains(text.String(), same) {
		t.Errorf("text does not say so:\n%s", text.String())
	}
	want := []string{"GET /repos/o/r/actions/runs/42/attempts/1", "GET /repos/o/r/actions/runs/42/attempts/1/jobs", "GET /repos/o/r/actions/jobs/1/logs"}
	if got := g.since("GET /repos/o/r/actions/jobs/2/logs"); fmt.Sprint(got[1:]) != fmt.Sprint(want) {
		t.Errorf("requests after the latest attempt's log = %q, want the run's read, then %q", got, want)
	}
}

// TestRerunWhenTheAttemptBeforeFailedDifferently: a different fingerprint
// (another kind, another host) in attempt 1 leaves the re-run as before.
func TestRerunWhenTheAttemptBeforeFailedDifferently(t *testing.T) {
	g := newFake(t)
	g.attempt = 2
	g.jobs = []fJob{jobOf(2, "publish", transientOut...)}
	g.attemptJobs = map[int][]fJob{1: {jobOf(1, "publish", "npm error code E503", "npm error 503 Service Unavailable - PUT https://registry.npmjs.org/pkg")}}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 3})
	if g.reruns != 1 || !res.Rerun || res.ExitCode != exitcode.OK {
		t.Errorf("re-runs = %d, exit = %d, why = %q; want one re-run", g.reruns, res.ExitCode, res.RerunWhy)
	}
}

// TestRerunWhenTheAttemptBeforeCannotBeRead: an earlier attempt that
// cannot be read leaves the decision as it was without it (a re-run within
// --max-reruns), and says so.
func TestRerunWhenTheAttemptBeforeCannotBeRead(t *testing.T) {
	g := newFake(t)
	g.attempt = 2
	g.jobs = []fJob{jobOf(2, "publish", transientOut...)}
	g.attemptStatus = http.StatusForbidden
	res := g.explain(t, Options{Rerun: true, MaxReruns: 3})
	t.Log(res.RerunWhy)
	if g.reruns != 1 || !res.Rerun || !strings.Contains(res.RerunWhy, "attempt 1 could not be read") {
		t.Errorf("re-runs = %d, why = %q; want a re-run that says attempt 1 was not read", g.reruns, res.RerunWhy)
	}
}

// TestRerunRefusedForAStepMarkedPersistent: a step whose log says
// retrywise marked it persistent is not re-run, without another call.
func TestRerunRefusedForAStepMarkedPersistent(t *testing.T) {
	g := newFake(t)
	out := append(append([]string{}, transientOut...), "retrywise: connection reset; persistent: the same failure in 3 runs since 2026-11-28T10:00:00Z (2026-11-28T10:00:00Z, 2026-11-29T10:00:00Z and now)")
	g.jobs = []fJob{jobOf(1, "publish", out...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 3})
	if g.reruns != 0 || res.Rerun || res.ExitCode != exitcode.Transient || !strings.Contains(res.RerunWhy, "marked persistent") {
		t.Errorf("re-runs = %d, exit = %d, why = %q", g.reruns, res.ExitCode, res.RerunWhy)
	}
	if p := res.Report.Steps[0].Persistent; p == nil || p.Runs != 3 {
		t.Errorf("persistent = %+v, want 3 runs", p)
	}
}
