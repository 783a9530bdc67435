package failure

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGenericFigures logs, per family of the generic corpus
// (testdata/tools/generic-*.jsonl: tools with no recogniser of their own),
// how many cases get their decision and class, and how many retries are
// wasted (a retry where the label says stop), per file and over the held-out
// files (generic-*heldout*.jsonl) together. TestCorpus asserts them.
func TestGenericFigures(t *testing.T) {
	files, err := filepath.Glob("testdata/tools/generic-*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generic corpus: %v", err)
	}
	type tally struct{ cases, class, decision, wasted int }
	per := map[string]*tally{}
	var all tally
	perFile := map[string]*tally{}
	var heldout tally // every held-out file together: the figure that generalises
	for _, name := range files {
		fileTally := &tally{}
		perFile[filepath.Base(name)] = fileTally
		for _, c := range loadCorpusFile(t, name) {
			tl := per[c.Tool]
			if tl == nil {
				tl = &tally{}
				per[c.Tool] = tl
			}
			f := Classify(c.input())
			tallies := []*tally{tl, &all, fileTally}
			if strings.Contains(filepath.Base(name), "heldout") {
				tallies = append(tallies, &heldout)
			}
			for _, x := range tallies {
				x.cases++
				if f.Class.String() == c.Class {
					x.class++
				}
				if string(f.Class.Decision()) == c.Decision {
					x.decision++
				} else if f.Class.Decision() == Retry {
					x.wasted++
				}
			}
			if string(f.Class.Decision()) != c.Decision || f.Class.String() != c.Class {
				t.Logf("miss %s: want %s/%s, got %s/%s %s (%s)", c.ID, c.Class, c.Decision, f.Class, f.Class.Decision(), f.Code, f.Reason)
			}
		}
	}
	fams := make([]string, 0, len(per))
	for k := range per {
		fams = append(fams, k)
	}
	sort.Strings(fams)
	pct := func(n, d int) string { return fmt.Sprintf("%3.0f%%", 100*float64(n)/float64(d)) }
	for _, k := range fams {
		tl := per[k]
		t.Logf("%-10s %3d cases: decisions %s, classes %s, wasted retries %d", k, tl.cases, pct(tl.decision, tl.cases), pct(tl.class, tl.cases), tl.wasted)
	}
	names := make([]string, 0, len(perFile))
	for k := range perFile {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		tl := perFile[k]
		t.Logf("file %-28s %3d cases: decisions %s, classes %s, wasted retries %d", k, tl.cases, pct(tl.decision, tl.cases), pct(tl.class, tl.cases), tl.wasted)
	}
	t.Logf("%-10s %3d cases: decisions %s, classes %s, wasted retries %d", "HELDOUT", heldout.cases, pct(heldout.decision, heldout.cases), pct(heldout.class, heldout.cases), heldout.wasted)
	t.Logf("%-10s %3d cases: decisions %s, classes %s, wasted retries %d", "ALL", all.cases, pct(all.decision, all.cases), pct(all.class, all.cases), all.wasted)
}
