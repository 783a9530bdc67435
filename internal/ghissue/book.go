package ghissue

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
)

// The hindsight book (package hindsight) of a job run in GitHub Actions
// lives in its failure issue: a hidden marker, the base64 of the book's
// JSON, in the issue's body or in a comment of the issue's own author.
// Markers of anyone else are ignored (anyone may comment on a public
// repository's issue), they are read within bounds, and never printed.
const (
	bookOpen  = "<!-- retrywise-hindsight v1 "
	bookClose = " -->"
)

// MaxBookMarker bounds a marker's base64 text, read and written: a book
// that does not fit loses its oldest records first (hindsight.Book.Fit).
const MaxBookMarker = 24 << 10

// maxCommentPages bounds the pages of the issue's comments read for the
// newest marker (100 comments a page).
const maxCommentPages = 10

// BookMarker returns the hidden comment that carries book; "" for none.
func BookMarker(book []byte) string {
	if len(book) == 0 {
		return ""
	}
	return bookOpen + base64.StdEncoding.EncodeToString(book) + bookClose
}

// BookBytes is the most book bytes a marker carries within MaxBookMarker.
const BookBytes = MaxBookMarker / 4 * 3

// lastBook returns the book of the last well-formed marker in text; ok is
// false when it holds none.
func lastBook(text string) (book []byte, ok bool) {
	for rest := text; ; {
		i := strings.LastIndex(rest, bookOpen)
		if i < 0 {
			return nil, false
		}
		body := rest[i+len(bookOpen):]
		if j := strings.Index(body, bookClose); j >= 0 && j <= MaxBookMarker {
			if b, err := base64.StdEncoding.DecodeString(body[:j]); err == nil {
				return b, true
			}
		}
		rest = rest[:i]
	}
}

// ReadBook returns the job's hindsight book from its open failure issue:
// the newest marker among the issue's body and the comments of its own
// author; nil when no issue is open or none carries one. An error means
// the book could not be read: the caller runs without hindsight.
func (r *Reporter) ReadBook(ctx context.Context) ([]byte, error) {
	if err := ghapi.CheckRepo(r.run.Owner, r.run.Repo); err != nil {
		return nil, err
	}
	open, err := r.find(ctx)
	if err != nil || len(open) == 0 {
		return nil, err
	}
	is := open[0]
	author := is.GetUser().GetID()
	book, _ := lastBook(is.GetBody())
	op := fmt.Sprintf("list the comments of issue #%d", is.GetNumber())
	comments, cut, err := ghapi.Walk(ctx, ghapi.Pages{What: "the comments of the failure issue", PerPage: perPage, MaxPages: maxCommentPages, MaxItems: perPage * maxCommentPages},
		func(ctx context.Context, page int) ([]*github.IssueComment, *github.Response, error) {
			opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{Page: page, PerPage: perPage}}
			if page == 1 {
				opts.Page = 0
			}
			cs, resp, err := r.gh.Issues.ListComments(ctx, r.run.Owner, r.run.Repo, is.GetNumber(), opts)
			if err != nil {
				return nil, nil, r.fail(op, err)
			}
			return cs, resp, nil
		})
	switch {
	case err != nil:
		return nil, err
	case cut != nil:
		return nil, &Error{Op: op, Repository: r.run.Repository(), Err: cut}
	}
	for _, c := range comments {
		if author == 0 || c.GetUser().GetID() != author {
			continue // only the issue's author writes the book
		}
		if b, ok := lastBook(c.GetBody()); ok {
			book = b
		}
	}
	return book, nil
}

// Hindsight is what a failure report adds from hindsight: the book to
// carry, and whether the failure is persistent.
type Hindsight struct {
	// Book is the job's book after this run; nil writes none.
	Book []byte
	// Persistent, when set, says the job has failed every run since then.
	Persistent *failure.Persistence
}

// persistentWhat is what a persistent failure did, for the title and the
// headline: "failing every run since DATE (K runs)".
func persistentWhat(p *failure.Persistence) string {
	return fmt.Sprintf("failing every run since %s (%d runs)", p.Since.UTC().Format(time.DateOnly), p.Runs)
}
