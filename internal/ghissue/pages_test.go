package ghissue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/ghapi"
)

// TestListBounds: the list of open issues is read within its bounds; a
// list cut at one is an error naming it, and nothing is written (an issue
// behind the cut may be the job's: opening another would duplicate it).
func TestListBounds(t *testing.T) {
	mine := Marker(testRun) + "\nfailed"
	for _, c := range []struct {
		name   string
		next   func(int) int
		onPage func(int) []fakeIssue
		pages  int
		want   string
	}{
		{"endless", func(p int) int { return p + 1 }, func(p int) []fakeIssue { return otherIssues(p*100, 100) }, maxPages,
			fmt.Sprintf("were cut at %d pages (the bound: %d pages of %d, %d items)", maxPages, maxPages, perPage, maxFound)},
		{"repeats page 2", func(int) int { return 2 }, func(p int) []fakeIssue { return otherIssues(p*100, 100) }, 2,
			"were cut after page 2: its next link named page 2, read already"},
		{"too many of the job's", func(p int) int { return p + 1 }, func(p int) []fakeIssue {
			is := otherIssues(p*100, 100)
			for i := range 60 {
				is[i].Body = mine
			}
			return is
		}, 2, fmt.Sprintf("were cut at %d items", maxFound)},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.next, f.onPage = c.next, c.onPage
			_, err := New(f.client(), testRun).Failed(context.Background(), report)
			var cut *ghapi.Cut
			if !errors.As(err, &cut) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want a cut: %q", err, c.want)
			}
			if n := len(f.requests()); n != c.pages {
				t.Errorf("%d pages read, want %d", n, c.pages)
			}
			if w := f.writes(); len(w) != 0 {
				t.Errorf("writes %+v, want none", w)
			}
		})
	}
}
