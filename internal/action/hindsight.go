package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/ghissue"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/report"
)

// carried is the hindsight store of a run in a workflow: the book read
// from the failure issue, and the book saved, which the failure report
// carries back (ghissue.Hindsight).
type carried struct {
	read, written []byte
}

// ReadBook returns the book read from the issue.
func (c *carried) ReadBook(string) ([]byte, error) { return c.read, nil }

// WriteBook keeps the book for the failure report.
func (c *carried) WriteBook(_ string, data []byte) error {
	c.written = data
	return nil
}

// hindsightRule reads persist-after and persist-span; a bad value is a
// usage error naming the input.
func (a *actionRun) hindsightRule() (hindsight.Rule, error) {
	r := hindsight.Rule{After: hindsight.DefaultAfter}
	if v := a.input("persist-after"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return r, fmt.Errorf("invalid input persist-after %q: want a whole number (0 turns hindsight off)", v)
		}
		r.After = n
	}
	if v := a.input("persist-span"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return r, fmt.Errorf("invalid input persist-span %q: want a duration such as 6h", v)
		}
		r.Span = d
	}
	return r, r.Check("input persist-after", "input persist-span")
}

// stepPrefix names the workflow's step and matrix leg in the book: the
// step (GITHUB_ACTION) and a digest of the matrix values, so that legs and
// steps sharing the job's failure issue do not share a record.
func stepPrefix(action, matrix string) string {
	sum := sha256.Sum256([]byte(matrix))
	return action + "/" + hex.EncodeToString(sum[:6]) + "/"
}

// hindsightTimeout bounds the reading of the book from the issue.
const hindsightTimeout = 20 * time.Second

// openHindsight reads the job's book from its failure issue, when
// report-issue acts and persist-after is not 0: the memory the run's steps
// judge and record with, and its store. A book that cannot be read turns
// hindsight off for this run, in one line, and never fails the step.
func (a *actionRun) openHindsight(ctx context.Context, rule hindsight.Rule) (*hindsight.Memory, *carried) {
	store := a.readBook(ctx, rule)
	if store == nil {
		return nil, nil
	}
	m := hindsight.Open(store, "", rule)
	if m.Warning != "" {
		a.line("%s", m.Warning) // never the book itself
	}
	m.Prefix = stepPrefix(a.getenv("GITHUB_ACTION"), a.input("matrix"))
	return m, store
}

// readBook reads the job's book from its failure issue (openHindsight);
// nil when hindsight is off for this run.
func (a *actionRun) readBook(ctx context.Context, rule hindsight.Rule) *carried {
	if rule.After == 0 {
		return nil
	}
	if ok, _ := a.issues.Enabled(ghissue.UnderAct(a.getenv)); !ok || a.issueSkip != "" {
		return nil
	}
	off := func(why string) *carried {
		a.line("hindsight: off for this run: %s", a.red.String(why))
		return nil
	}
	gh, err := a.github()
	if err != nil {
		return off(err.Error())
	}
	if gh == nil {
		return off("no token")
	}
	run, err := ghissue.RunFromEnv(a.getenv)
	if err != nil {
		return off(err.Error())
	}
	rctx, cancel := context.WithTimeout(ctx, hindsightTimeout)
	defer cancel()
	book, err := ghissue.New(gh, run).ReadBook(rctx)
	if err != nil {
		return off("cannot read the failure issue: " + err.Error())
	}
	return &carried{read: book}
}

// issueHindsight is what the failure report carries from hindsight: the
// book saved by this run (fitted to the marker's bound), and the first
// persistent failure.
func issueHindsight(m *hindsight.Memory, store *carried, run *report.Run) ghissue.Hindsight {
	var hs ghissue.Hindsight
	if m == nil {
		return hs
	}
	if err := m.Save(); err == nil && store.written != nil {
		hs.Book = m.Within(ghissue.BookBytes)
	}
	for _, s := range run.Steps {
		if s.Persistent != nil {
			hs.Persistent = s.Persistent
			break
		}
	}
	return hs
}

// persistentOutput is the output persistent: true when a step's failure
// was persistent.
func persistentOutput(run *report.Run) string {
	for _, s := range run.Steps {
		if s.Persistent != nil {
			return "true"
		}
	}
	return "false"
}

// targetHosts are the hosts a single step's target names (its URL or
// remote), for hindsight's fingerprints.
func targetHosts(target string) []string {
	if t, err := egress.ParseTarget(target); err == nil {
		return []string{t.Host}
	}
	return nil
}
