package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// Pages bounds a walk over one of GitHub's paginated lists: every list
// retrywise reads is walked by Walk, within these bounds.
type Pages struct {
	// What names the list in a Cut's text, such as "the run's jobs".
	What string
	// PerPage is the page size asked for (GitHub's largest is 100).
	PerPage int
	// MaxPages bounds the pages read; it must be at least 1.
	MaxPages int
	// MaxItems bounds the items kept; it must be at least 1. A page that
	// holds more than is left of it (a server that ignores per_page) is cut.
	MaxItems int
}

// Why a walk was cut.
const (
	CutPages    = "pages"    // MaxPages were read and the list went on
	CutItems    = "items"    // MaxItems were kept and the list went on
	CutRepeated = "repeated" // a next link named a page already read
)

// Cut says that a walk stopped before its list's end, and at which bound.
type Cut struct {
	// Pages is the bounds of the walk.
	Pages
	// Why is CutPages, CutItems or CutRepeated.
	Why string
	// Read is how many pages were read; Kept how many items were kept.
	Read, Kept int
	// Last is the number of the last page read; Repeated the page its next
	// link named again (CutRepeated).
	Last, Repeated int
}

// Error says where the list was cut, with the bound, such as "the run's
// jobs were cut at 10 pages (the bound: 10 pages of 100, 1000 items); 1000
// were read". (A Cut is an error for the callers that cannot go on with a
// part of a list.)
func (c *Cut) Error() string {
	bound := fmt.Sprintf("the bound: %d pages of %d, %d items", c.MaxPages, c.PerPage, c.MaxItems)
	switch c.Why {
	case CutRepeated:
		return fmt.Sprintf("%s were cut after page %d: its next link named page %d, read already; %d were read", c.What, c.Last, c.Repeated, c.Kept)
	case CutItems:
		return fmt.Sprintf("%s were cut at %d items (%s); more were listed", c.What, c.Kept, bound)
	}
	return fmt.Sprintf("%s were cut at %d pages (%s); %d were read and more were listed", c.What, c.Read, bound, c.Kept)
}

// Walk reads a paginated list from page 1 with fetch, following each
// answer's next link (go-github's NextPage), and returns the items of
// every page read. It stops at the last page; at b.MaxPages pages; at
// b.MaxItems items (the rest of a page that crosses it dropped); or at a
// next link that names a page already read. cut is nil when the whole list
// was read, else it says which bound ended the walk. An error of fetch, or
// the context's, ends the walk with the items read so far.
func Walk[T any](ctx context.Context, b Pages, fetch func(ctx context.Context, page int) ([]T, *github.Response, error)) (items []T, cut *Cut, err error) {
	b.MaxPages, b.MaxItems = max(b.MaxPages, 1), max(b.MaxItems, 1)
	seen := map[int]bool{}
	page := 1
	for {
		if err := ctx.Err(); err != nil {
			return items, nil, context.Cause(ctx)
		}
		seen[page] = true
		got, resp, err := fetch(ctx, page)
		if err != nil {
			return items, nil, err
		}
		read := len(seen)
		if left := b.MaxItems - len(items); len(got) > left {
			return append(items, got[:left]...), &Cut{Pages: b, Why: CutItems, Read: read, Kept: b.MaxItems, Last: page}, nil
		}
		items = append(items, got...)
		next := 0
		if resp != nil {
			next = resp.NextPage
		}
		switch {
		case next <= 0:
			return items, nil, nil
		case seen[next]:
			return items, &Cut{Pages: b, Why: CutRepeated, Read: read, Kept: len(items), Last: page, Repeated: next}, nil
		case read >= b.MaxPages:
			return items, &Cut{Pages: b, Why: CutPages, Read: read, Kept: len(items), Last: page}, nil
		case len(items) >= b.MaxItems:
			return items, &Cut{Pages: b, Why: CutItems, Read: read, Kept: len(items), Last: page}, nil
		}
		page = next
	}
}
