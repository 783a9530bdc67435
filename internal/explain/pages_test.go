package explain

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// okJobs returns n jobs that succeeded, numbered from page*10000.
func okJobs(page, n int) []fJob {
	js := make([]fJob, n)
	for i := range js {
		js[i] = fJob{id: int64(page*10000 + i), name: fmt.Sprintf("ok-%d-%d", page, i), conclusion: "success"}
	}
	return js
}

// TestExplainEndlessJobsList: a jobs list whose next link always names a
// new page is read up to the page bound, in bounded memory, and the
// explanation says that it was cut, and at which bound; a list not read
// whole is not re-run (not every failed step was seen).
func TestExplainEndlessJobsList(t *testing.T) {
	g := newFake(t)
	g.jobs = []fJob{jobOf(1, "publish", transientOut...)} // for its log
	g.pageJobs = func(page int) []fJob {
		js := okJobs(page, 100)
		if page == 1 {
			js[0] = g.jobs[0]
		}
		return js
	}
	g.jobsNext = func(page int) int { return page + 1 }
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := g.explain(t, Options{Rerun: true, MaxReruns: 2})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("endless jobs list: %d pages read in %s, %.1f MiB allocated (test server included)", len(g.jobPages), elapsed.Round(time.Millisecond), float64(alloc)/(1<<20))
	if len(g.jobPages) != MaxJobPages {
		t.Errorf("pages read = %d, want the bound %d", len(g.jobPages), MaxJobPages)
	}
	if alloc > 64<<20 {
		t.Errorf("allocated %d MiB reading an endless list", alloc>>20)
	}
	if g.reruns != 0 || res.Rerun || !strings.Contains(res.RerunWhy, "not every job was read") {
		t.Errorf("re-runs = %d, why = %q", g.reruns, res.RerunWhy)
	}
	want := fmt.Sprintf("the run's jobs were cut at %d pages (the bound: %d pages of 100, %d items)", MaxJobPages, MaxJobPages, MaxJobs)
	if !strings.Contains(res.Headline, want) || !strings.Contains(res.Report.Run.Detail, want) {
		t.Errorf("headline = %q, want %q", res.Headline, want)
	}
	var b strings.Builder
	res.WriteText(&b, "run")
	if !strings.Contains(b.String(), "jobs:     "+want) {
		t.Errorf("text = %q, want the cut", b.String())
	}
	if len(res.Report.Steps) != 1 || res.ExitCode != exitcode.Transient {
		t.Errorf("rows = %d, exit = %d", len(res.Report.Steps), res.ExitCode)
	}
}

// TestExplainJobsListRepeatsAPage: a next link that names page 2 again
// ends the walk there.
func TestExplainJobsListRepeatsAPage(t *testing.T) {
	g := newFake(t)
	g.pageJobs = func(page int) []fJob { return okJobs(page, 100) }
	g.jobsNext = func(int) int { return 2 }
	res := g.explain(t, Options{})
	if fmt.Sprint(g.jobPages) != "[1 2]" {
		t.Fatalf("pages read = %d, want [1 2]", len(g.jobPages))
	}
	want := "the run's jobs were cut after page 2: its next link named page 2, read already; 200 were read"
	if !strings.Contains(res.Headline, want) {
		t.Errorf("headline = %q, want %q", res.Headline, want)
	}
	// None of the jobs read failed, but the list was not read whole: that is not "nothing to explain".
	if res.ExitCode != exitcode.Unknown || strings.Contains(res.Headline, "nothing to explain") {
		t.Errorf("exit = %d, headline = %q; want 1: the failed jobs were not found", res.ExitCode, res.Headline)
	}
}

// TestExplainJobsItemBound: a page of more jobs than asked for is cut at
// the item bound.
func TestExplainJobsItemBound(t *testing.T) {
	g := newFake(t)
	g.pageJobs = func(page int) []fJob { return okJobs(page, MaxJobs+500) }
	res := g.explain(t, Options{})
	want := fmt.Sprintf("the run's jobs were cut at %d items", MaxJobs)
	if len(g.jobPages) != 1 || !strings.Contains(res.Headline, want) {
		t.Errorf("pages = %v, headline = %q, want %q", g.jobPages, res.Headline, want)
	}
}
