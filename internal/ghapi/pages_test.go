package ghapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// pagesOf serves pages of n items whose next link is next(page) (0: none),
// and records the pages asked for.
func pagesOf(n int, next func(page int) int, asked *[]int) func(ctx context.Context, page int) ([]int, *github.Response, error) {
	return func(ctx context.Context, page int) ([]int, *github.Response, error) {
		*asked = append(*asked, page)
		items := make([]int, n)
		for i := range items {
			items[i] = page*1000 + i
		}
		return items, &github.Response{NextPage: next(page)}, nil
	}
}

func TestWalkBounds(t *testing.T) {
	b := Pages{What: "the things", PerPage: 10, MaxPages: 5, MaxItems: 45}
	for _, c := range []struct {
		name      string
		perPage   int
		next      func(int) int
		asked     string
		kept      int
		why, text string
	}{
		{"whole", 10, func(p int) int { return map[bool]int{true: p + 1}[p < 3] }, "[1 2 3]", 30, "", ""},
		{"endless", 3, func(p int) int { return p + 1 }, "[1 2 3 4 5]", 15, CutPages, "the things were cut at 5 pages (the bound: 5 pages of 10, 45 items); 15 were read"},
		{"repeats 2", 10, func(p int) int { return 2 }, "[1 2]", 20, CutRepeated, "the things were cut after page 2: its next link named page 2, read already; 20 were read"},
		{"back to 1", 10, func(p int) int { return map[int]int{1: 2, 2: 3, 3: 1}[p] }, "[1 2 3]", 30, CutRepeated, "named page 1"},
		{"items", 10, func(p int) int { return p + 1 }, "[1 2 3 4 5]", 45, CutItems, "the things were cut at 45 items (the bound: 5 pages of 10, 45 items)"},
		{"one huge page", 1000, func(int) int { return 0 }, "[1]", 45, CutItems, "cut at 45 items"},
		{"the last page at the bound", 9, func(p int) int { return map[bool]int{true: p + 1}[p < 5] }, "[1 2 3 4 5]", 45, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked []int
			items, cut, err := Walk(context.Background(), b, pagesOf(c.perPage, c.next, &asked))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(asked) != c.asked || len(items) != c.kept {
				t.Errorf("asked %v, kept %d; want %s, %d", asked, len(items), c.asked, c.kept)
			}
			switch {
			case c.why == "" && cut != nil:
				t.Errorf("cut: %v", cut)
			case c.why != "" && (cut == nil || cut.Why != c.why || !strings.Contains(cut.Error(), c.text)):
				t.Errorf("cut = %v, want %s: %q", cut, c.why, c.text)
			}
		})
	}
}

func TestWalkStopsOnErrorAndContext(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	items, cut, err := Walk(context.Background(), Pages{MaxPages: 10, MaxItems: 100}, func(ctx context.Context, page int) ([]int, *github.Response, error) {
		if n++; n == 2 {
			return nil, nil, boom
		}
		return []int{1}, &github.Response{NextPage: page + 1}, nil
	})
	if !errors.Is(err, boom) || cut != nil || len(items) != 1 {
		t.Errorf("items %v, cut %v, err %v", items, cut, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, _, err = Walk(ctx, Pages{MaxPages: 10, MaxItems: 100}, func(ctx context.Context, page int) ([]int, *github.Response, error) {
		cancel()
		return []int{1}, &github.Response{NextPage: page + 1}, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the context's", err)
	}
}
