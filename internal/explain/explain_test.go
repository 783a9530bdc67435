package explain

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

func TestExplainTransientReruns(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	if len(res.Report.Steps) != 1 {
		t.Fatalf("rows = %d, want 1: %+v", len(res.Report.Steps), res.Headline)
	}
	row := res.Report.Steps[0]
	if row.ID != "publish / Publish" || row.Class != failure.Transient || row.Code != "connection-reset" {
		t.Errorf("row = %q %s %s (%s)", row.ID, row.Class, row.Code, row.Reason)
	}
	if strings.Contains(row.Remedy, "retrying") || !strings.Contains(row.Remedy, "re-run the failed jobs") {
		t.Errorf("remedy = %q: nothing retries an explained failure", row.Remedy)
	}
	if g.reruns != 1 || !res.Rerun || res.ExitCode != exitcode.OK {
		t.Errorf("reruns = %d, Rerun = %v, exit = %d (%s); want one re-run, exit 0", g.reruns, res.Rerun, res.ExitCode, res.RerunWhy)
	}
	if row.Outputs["rerun"] != true {
		t.Errorf("rerun output = %v", row.Outputs["rerun"])
	}
	for _, a := range g.logAuth {
		if a != "" {
			t.Errorf("the log server got Authorization %q", a)
		}
	}
	if len(g.logAuth) != 1 {
		t.Errorf("log downloads = %d, want 1", len(g.logAuth))
	}
	if g.apiAuth[0] != "Bearer "+testToken {
		t.Errorf("the API got Authorization %q", g.apiAuth[0])
	}
}

func TestExplainTransientWithoutRerunExits75(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{})
	if res.ExitCode != exitcode.Transient || g.reruns != 0 {
		t.Errorf("exit = %d, reruns = %d; want 75, 0", res.ExitCode, g.reruns)
	}
}

func TestExplainPolicyBlocksRerun(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "build", transientOut...), jobOf(2, "publish", policyOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	if g.reruns != 0 || res.Rerun {
		t.Fatalf("reruns = %d; want none", g.reruns)
	}
	if res.ExitCode != exitcode.Policy {
		t.Errorf("exit = %d, want 77", res.ExitCode)
	}
	if !strings.Contains(res.RerunWhy, "publish / Publish is policy") {
		t.Errorf("why = %q, want the blocking step named", res.RerunWhy)
	}
	if res.Worst.Code != "npm-forbidden" {
		t.Errorf("worst = %s %s", res.Worst.ID, res.Worst.Code)
	}
}

func TestExplainAttemptAtLimit(t *testing.T) {
	g := newFake(t)
	g.attempt = 3
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	if g.reruns != 0 || res.Rerun || res.ExitCode != exitcode.Transient {
		t.Fatalf("reruns = %d, exit = %d; want none, 75", g.reruns, res.ExitCode)
	}
	if !strings.Contains(res.RerunWhy, "attempt 3, over --max-reruns 2") {
		t.Errorf("why = %q", res.RerunWhy)
	}
	// attempt 2 is still within the bound (attempt 1 failed another way)
	g.attempt = 2
	g.attemptJobs = map[int][]fJob{1: {jobOf(7, "publish", "npm error code E503", "npm error 503 Service Unavailable - PUT https://registry.npmjs.org/pkg")}}
	if res := g.explain(t, Options{Rerun: true, MaxReruns: 2}); !res.Rerun || g.reruns != 1 {
		t.Errorf("attempt 2: rerun = %v (%s)", res.Rerun, res.RerunWhy)
	}
}

func TestExplainRerunRefusals(t *testing.T) {
	for _, c := range []struct {
		code      int
		msg, want string
	}{
		{403, "Unable to re-run this workflow run because it was created over a month ago", "older than 30 days"},
		{403, "Resource not accessible by integration", "actions: write"},
		{409, "This workflow is already running", "already re-running"},
		{429, "You have exceeded a secondary rate limit.", "a rate limit"},
		{403, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "a rate limit"},
	} {
		g := newFake(t)
		g.rerunCode, g.rerunMsg = c.code, c.msg
		g.jobs = []fJob{jobOf(1, "publish", transientOut...)}
		res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
		if res.Rerun || g.reruns != 1 || !strings.Contains(res.RerunWhy, c.want) || res.ExitCode != exitcode.Transient {
			t.Errorf("%d %s: rerun = %v, calls = %d, exit = %d, why = %q", c.code, c.msg, res.Rerun, g.reruns, res.ExitCode, res.RerunWhy)
		}
	}
}

func TestExplainExpiredLogs(t *testing.T) {
	for _, st := range []int{410, 404} {
		g := newFake(t)
		j := jobOf(1, "publish", transientOut...)
		j.logStatus = st
		g.jobs = []fJob{j}
		res := g.explain(t, Options{})
		row := res.Report.Steps[0]
		if row.Class != failure.Absent || !strings.Contains(row.Reason, "log is gone") || res.ExitCode != exitcode.Absent {
			t.Errorf("%d: %s %s (%s), exit %d", st, row.Class, row.Code, row.Reason, res.ExitCode)
		}
	}
}

func TestExplainMissingPermission(t *testing.T) {
	g := newFake(t)
	g.runStatus, g.runMessage = 403, "Resource not accessible by integration"
	res := g.explain(t, Options{})
	if res.ExitCode != exitcode.Policy || !strings.Contains(res.Headline, "actions: read") {
		t.Errorf("exit = %d, headline = %q", res.ExitCode, res.Headline)
	}
	if strings.Contains(res.Headline, testToken) {
		t.Error("the token is in the headline")
	}
}

func TestExplainInProgress(t *testing.T) {
	g := newFake(t)
	g.status, g.conclusion = "in_progress", ""
	res := g.explain(t, Options{})
	if res.ExitCode != exitcode.Transient || !strings.Contains(res.Headline, "still running") || g.logHits != 0 {
		t.Errorf("exit = %d, headline = %q", res.ExitCode, res.Headline)
	}
}

func TestExplainSuccess(t *testing.T) {
	g := newFake(t)
	g.conclusion = "success"
	res := g.explain(t, Options{})
	if res.ExitCode != exitcode.OK || !strings.Contains(res.Headline, "nothing to explain") {
		t.Errorf("exit = %d, headline = %q", res.ExitCode, res.Headline)
	}
}

func TestExplainRateLimitThroughTheLoop(t *testing.T) {
	g := newFake(t)
	g.rateLimit = 1
	g.jobs = []fJob{jobOf(1, "publish", policyOut...)}
	var progress []string
	res := g.explain(t, Options{Progress: func(a retry.Attempt, max int) { progress = append(progress, a.Reason) }})
	if res.ExitCode != exitcode.Policy {
		t.Fatalf("exit = %d (%s)", res.ExitCode, res.Headline)
	}
	if w := g.clk.Waits(); len(w) != 1 || w[0] != 30*time.Second {
		t.Errorf("waits = %v, want the server's Retry-After 30s", w)
	}
	if len(progress) != 1 {
		t.Errorf("progress = %q", progress)
	}
}

func TestExplainPagination(t *testing.T) {
	g := newFake(t)
	g.perPage = 2
	for i := range 5 {
		out := transientOut
		if i == 4 {
			out = policyOut
		}
		g.jobs = append(g.jobs, jobOf(int64(i+1), fmt.Sprintf("job%d", i+1), out...))
	}
	res := g.explain(t, Options{})
	if len(res.Report.Steps) != 5 || fmt.Sprint(g.jobPages) != "[1 2 3]" {
		t.Fatalf("rows = %d, pages %v", len(res.Report.Steps), g.jobPages)
	}
	if res.Report.Steps[4].ID != "job5 / Publish" || res.ExitCode != exitcode.Policy {
		t.Errorf("last = %s, exit %d", res.Report.Steps[4].ID, res.ExitCode)
	}
}

func TestParseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/o/r/actions/runs/42":             "https://github.com/o/r/actions/runs/42",
		"https://github.com/o/r/actions/runs/42/attempts/3":  "https://github.com/o/r/actions/runs/42/attempts/3",
		"https://ghe.example/o/r/actions/runs/42/job/7?pr=1": "https://ghe.example/o/r/actions/runs/42",
		"https://github.com/o/r/pull/42":                     "",
		"github.com/o/r/actions/runs/42":                     "",
		"https://github.com/o/r/actions/runs/x":              "",
		"https://github.com/o/../actions/runs/42":            "",
		"https://github.com/%2e%2e/x/actions/runs/42":        "",
		"https://github.com/o/r%2F..%2Fx/actions/runs/42":    "",
		"https://github.com/o.x/r/actions/runs/42":           "",
	} {
		tg, err := ParseURL(in)
		got := ""
		if err == nil {
			got = tg.String()
		}
		if got != want {
			t.Errorf("ParseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if APIBase("github.com", "") != "https://api.github.com/" || APIBase("ghe.example", "") != "https://ghe.example/api/v3/" || APIBase("github.com", "http://x/") != "http://x/" {
		t.Error("APIBase")
	}
}

// TestExplainChecksTheRepository: Explain itself refuses a target whose
// owner or repository is no GitHub name (exit 64), before any request.
func TestExplainChecksTheRepository(t *testing.T) {
	g := newFake(t)
	clk := clock.NewFake(t0, true)
	for _, tg := range []Target{{Owner: "..", Repo: "x", RunID: 42}, {Owner: "o", Repo: "..", RunID: 42}, {Owner: "o", Repo: "r/../../x", RunID: 42}} {
		res := Explain(context.Background(), tg, Options{API: g.client(t, clk), Clock: clk, LogClient: g.logs.Client(), Rerun: true})
		if res.ExitCode != 64 || !strings.Contains(res.Headline, "invalid repository") {
			t.Errorf("%+v: exit %d, %q", tg, res.ExitCode, res.Headline)
		}
	}
	if len(g.apiAuth) != 0 {
		t.Errorf("%d requests reached the API", len(g.apiAuth))
	}
}

// TestSplitLogComposite: a composite action's nested Run groups stay in
// its step; without the API's times, the Run groups split the log.
func TestSplitLogGroups(t *testing.T) {
	steps := []fStep{
		{name: "Set up job", start: 0, end: time.Second, lines: []string{"Prepare workflow directory"}},
		{name: "Build", start: time.Second, end: 5 * time.Second, lines: []string{"##[group]Run ./.github/actions/build", "##[endgroup]", "##[group]Run make deps", "##[endgroup]", "deps ok", "##[group]Run make", "##[endgroup]", "boom"}},
		{name: "Run echo done", start: 5 * time.Second, end: 6 * time.Second, lines: []string{"##[group]Run echo done", "##[endgroup]", "done"}},
	}
	var b strings.Builder
	writeLog(&b, steps)
	spans := []StepSpan{{Name: "Set up job", Start: t0, End: t0.Add(time.Second)}, {Name: "Build", Start: t0.Add(time.Second), End: t0.Add(5 * time.Second), Keep: true}, {Name: "Run echo done", Start: t0.Add(5 * time.Second), End: t0.Add(6 * time.Second), Keep: true}}
	sp, err := SplitLog(strings.NewReader(b.String()), spans, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Tails[1].String(); !strings.Contains(got, "deps ok") || !strings.Contains(got, "boom") || strings.Contains(got, "done\n") {
		t.Errorf("Build = %q", got)
	}
	if got := sp.Tails[2].String(); !strings.HasSuffix(got, "done\n") || strings.Contains(got, "boom") {
		t.Errorf("echo = %q", got)
	}
	// Without times: the Run groups decide; the unnamed step is found by its name.
	for i := range spans {
		spans[i].Start, spans[i].End = time.Time{}, time.Time{}
	}
	sp, _ = SplitLog(strings.NewReader(b.String()), spans, 1<<10)
	if got := sp.Tails[2].String(); !strings.HasSuffix(got, "done\n") || strings.Contains(got, "boom") {
		t.Errorf("untimed echo = %q", got)
	}
}

// bigLog writes a log of size bytes, most of it in the failed step.
func bigLog(size int) func(w io.Writer) {
	return func(w io.Writer) {
		var b strings.Builder
		writeLog(&b, jobOf(1, "publish").steps[:2])
		io.WriteString(w, b.String())
		stamp := t0.Add(4*time.Second + 5e8).Format("2006-01-02T15:04:05.0000000Z")
		io.WriteString(w, stamp+" ##[group]Run npm publish\n"+stamp+" ##[endgroup]\n")
		line := stamp + " npm http fetch GET 200 https://registry.npmjs.org/some-dependency 12ms (cache hit) " + strings.Repeat("x", 60) + "\n"
		chunk := strings.Repeat(line, 1000)
		for n := 0; n < size; n += len(chunk) {
			io.WriteString(w, chunk)
		}
		for _, l := range transientOut {
			io.WriteString(w, stamp+" "+l+"\n")
		}
		io.WriteString(w, stamp+" ##[error]Process completed with exit code 1.\n")
	}
}

// TestExplainBigLog: a 50 MB log is classified from its tail, in bounded memory.
func TestExplainBigLog(t *testing.T) {
	g := newFake(t)
	j := jobOf(1, "publish")
	j.log = bigLog(50 << 20)
	g.jobs = []fJob{j}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() { // sample the heap while the log streams
		var m runtime.MemStats
		var p uint64
		for {
			runtime.ReadMemStats(&m)
			p = max(p, m.HeapAlloc)
			select {
			case <-stop:
				peak <- p
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	start := time.Now()
	res := g.explain(t, Options{})
	elapsed := time.Since(start)
	close(stop)
	p := <-peak
	row := res.Report.Steps[0]
	if row.Class != failure.Transient || row.Code != "connection-reset" {
		t.Errorf("row = %s %s (%s)", row.Class, row.Code, row.Reason)
	}
	grew := int64(p) - int64(before.HeapAlloc)
	t.Logf("50 MB log: %s, peak heap %.1f MiB (%.1f MiB over the start)", elapsed.Round(time.Millisecond), float64(p)/(1<<20), float64(grew)/(1<<20))
	if grew > 16<<20 {
		t.Errorf("heap grew by %d MiB on a 50 MB log", grew>>20)
	}
}

// TestExplain20Jobs measures a run of 20 failed jobs against the local server.
func TestExplain20Jobs(t *testing.T) {
	g := newFake(t)
	for i := range 20 {
		g.jobs = append(g.jobs, jobOf(int64(i+1), fmt.Sprintf("job%02d", i+1), transientOut...))
	}
	start := time.Now()
	res := g.explain(t, Options{})
	t.Logf("20 jobs: %s", time.Since(start).Round(time.Millisecond))
	if len(res.Report.Steps) != 20 {
		t.Errorf("rows = %d", len(res.Report.Steps))
	}
}

// TestExplainJudgesAResetAgainstNow: a limit the log says resets 30 minutes
// after the job ended has reset by now (an hour later): a re-run may pass;
// one that resets in a day has not.
func TestExplainJudgesAResetAgainstNow(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "deploy", "Error! Rate limit exceeded error. Try again in 30 minutes, or upgrade your plan")}
	res := g.explain(t, Options{})
	if len(res.Report.Steps) == 0 {
		t.Fatal("no steps")
	}
	st := res.Report.Steps[0]
	if st.Class != failure.Transient || !strings.Contains(st.Reason, "has passed since") || res.ExitCode != exitcode.Transient {
		t.Errorf("reset passed: %s %s (%s), exit %d", st.Class, st.Code, st.Reason, res.ExitCode)
	}
	g = newFake(t)
	g.jobs = []fJob{jobOf(1, "deploy", "Error! Builds rate limit exceeded (0 of 100 remaining). Try again in 24h")}
	res = g.explain(t, Options{})
	if st := res.Report.Steps[0]; st.Class != failure.Policy || res.ExitCode != exitcode.Policy {
		t.Errorf("reset ahead: %s %s (%s), exit %d", st.Class, st.Code, st.Reason, res.ExitCode)
	}
}
