// Package hindsight is retrywise's memory across runs: for each step of a
// job, the fingerprints of its last final failures (failure.Fingerprint),
// and the rule that turns repetition into a decision. A failure that reads
// as transient but has failed the same way in each of the runs before is
// not a blip: the run makes one attempt and no retries.
package hindsight

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
)

// DefaultAfter is K, the runs that must fail the same way (this one
// included) before a transient-looking failure is persistent.
const DefaultAfter = 3

// MaxAfter bounds K: a larger one is a usage error.
const MaxAfter = 50

// MaxSpan bounds the minimum span of the K failures.
const MaxSpan = 90 * 24 * time.Hour

// KeepRecords is how many records a step keeps, whatever --keep says: at
// least MaxAfter-1, so any K can be judged.
const KeepRecords = 64

// MaxSteps bounds the steps a book holds; the least recently failed go first.
const MaxSteps = 1000

// MaxBookSize bounds a book's encoded size, checked while it is read.
const MaxBookSize = 1 << 20

// Rule decides when repetition makes a failure persistent.
type Rule struct {
	// After is K: this run's failure and the K-1 runs before it failed the
	// same way. 0 turns hindsight off; 1 is not a rule (a usage error).
	After int
	// Span is the least time the K failures must span, from the first of
	// the runs before to this one.
	Span time.Duration
}

// Check says what is wrong with r, in one line, naming flag (the setting's
// name as the caller spells it); nil when r is valid.
func (r Rule) Check(after, span string) error {
	switch {
	case r.After < 0 || r.After == 1 || r.After > MaxAfter:
		return fmt.Errorf("%s must be 0 (off) or between 2 and %d; got %d", after, MaxAfter, r.After)
	case r.Span < 0 || r.Span > MaxSpan:
		return fmt.Errorf("%s must be between 0 and %s; got %s", span, MaxSpan, r.Span)
	}
	return nil
}

// Record is one run's final failure of a step.
type Record struct {
	failure.Fingerprint
	// Code is the failure's code, for the reader.
	Code failure.Code `json:"code,omitempty"`
	// At is the run's time.
	At time.Time `json:"at"`
}

// Book is one job's records, by step id.
type Book struct {
	Version int                 `json:"version"`
	Steps   map[string][]Record `json:"steps"`
}

// bookVersion is the format of a book.
const bookVersion = 1

// Decode reads a book; an empty data is an empty book. A book larger than
// MaxBookSize, of another version, or holding more than the bounds allow is
// an error: the caller starts afresh.
func Decode(data []byte) (*Book, error) {
	b := &Book{Version: bookVersion, Steps: map[string][]Record{}}
	if len(strings.TrimSpace(string(data))) == 0 {
		return b, nil
	}
	if len(data) > MaxBookSize {
		return nil, fmt.Errorf("the hindsight book is larger than %d bytes", MaxBookSize)
	}
	if err := json.Unmarshal(data, b); err != nil {
		// The book's own text is never quoted: it may come from an issue.
		return nil, errors.New("the hindsight book is not valid JSON")
	}
	if b.Version != bookVersion {
		return nil, fmt.Errorf("the hindsight book has version %d, not %d", b.Version, bookVersion)
	}
	if len(b.Steps) > MaxSteps {
		return nil, fmt.Errorf("the hindsight book holds %d steps, over %d", len(b.Steps), MaxSteps)
	}
	if b.Steps == nil {
		b.Steps = map[string][]Record{}
	}
	for id, rs := range b.Steps {
		if len(rs) > KeepRecords {
			b.Steps[id] = rs[len(rs)-KeepRecords:]
		}
	}
	return b, nil
}

// Encode writes the book as JSON.
func (b *Book) Encode() []byte {
	data, _ := json.Marshal(b) // maps of strings and times always encode
	return data
}

// Judge says whether fp, this run's failure of step at now, is persistent
// under r: the K-1 newest records of step all have fp, and span at least
// r.Span up to now. Only a transient failure can be: the others stop anyway.
func (b *Book) Judge(step string, fp failure.Fingerprint, r Rule, now time.Time) *failure.Persistence {
	if r.After < 2 || fp.Class != failure.Transient {
		return nil
	}
	rs := b.Steps[step]
	need := r.After - 1
	if len(rs) < need {
		return nil
	}
	last := rs[len(rs)-need:]
	for _, x := range last {
		if x.Fingerprint != fp {
			return nil
		}
	}
	if now.Sub(last[0].At) < r.Span {
		return nil
	}
	p := &failure.Persistence{Runs: r.After, Since: last[0].At}
	for _, x := range last {
		p.Dates = append(p.Dates, x.At)
	}
	return p
}

// Failed records the final failure fp (code) of step in the run at at.
func (b *Book) Failed(step string, fp failure.Fingerprint, code failure.Code, at time.Time) {
	rs := append(b.Steps[step], Record{Fingerprint: fp, Code: code, At: at})
	if len(rs) > KeepRecords {
		rs = rs[len(rs)-KeepRecords:]
	}
	b.Steps[step] = rs
	b.trim()
}

// Within returns the book encoded in at most n bytes, dropping its oldest
// records first; the book itself is not changed.
func (b *Book) Within(n int) []byte {
	data := b.Encode()
	if len(data) <= n {
		return data
	}
	type ref struct {
		step string
		at   time.Time
	}
	var all []ref
	cp := &Book{Version: b.Version, Steps: map[string][]Record{}}
	for id, rs := range b.Steps {
		cp.Steps[id] = rs
		for _, r := range rs {
			all = append(all, ref{id, r.At})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	for len(data) > n && len(all) > 0 {
		per := max(len(data)/len(all), 1)
		drop := min(len(all), (len(data)-n)/per+1)
		for _, r := range all[:drop] {
			rs := cp.Steps[r.step][1:] // a step's records are oldest first
			if len(rs) == 0 {
				delete(cp.Steps, r.step)
				continue
			}
			cp.Steps[r.step] = rs
		}
		all = all[drop:]
		data = cp.Encode()
	}
	return data
}

// Succeeded clears step's records: a success ends a streak.
func (b *Book) Succeeded(step string) { delete(b.Steps, step) }

// trim drops the steps failed least recently beyond MaxSteps.
func (b *Book) trim() {
	if len(b.Steps) <= MaxSteps {
		return
	}
	type last struct {
		id string
		at time.Time
	}
	var ls []last
	for id, rs := range b.Steps {
		ls = append(ls, last{id, rs[len(rs)-1].At})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].at.Before(ls[j].at) })
	for _, l := range ls[:len(ls)-MaxSteps] {
		delete(b.Steps, l.id)
	}
}

// Store keeps each job's book: the history folder (schedule.History).
type Store interface {
	// ReadBook returns job's book as written; none (nil, nil) when absent.
	ReadBook(job string) ([]byte, error)
	// WriteBook replaces job's book.
	WriteBook(job string, data []byte) error
}

// Memory is one job's book for one run: what the run's steps read and add
// to, saved once at the end.
type Memory struct {
	// Rule is the run's rule (the job's persist-after and persist-span).
	Rule Rule
	// Warning, when not empty, says why the book was started afresh.
	Warning string
	// Mask, when set, is the run's masker: a target it would change (a
	// secret that reads like a host name) is never kept, since the book
	// may be published (the failure issue). Nil keeps targets as read.
	Mask func(string) string
	// Prefix is prepended to every step id: in a workflow, the step of the
	// workflow and the matrix leg (StepPrefix), so that legs and steps
	// sharing a failure issue do not share a record.
	Prefix string

	store Store
	job   string
	book  *Book
	dirty bool
}

// Open reads job's book from store. An unreadable book is started afresh
// (Warning says why): hindsight never fails a run.
func Open(store Store, job string, r Rule) *Memory {
	m := &Memory{Rule: r, store: store, job: job}
	data, err := store.ReadBook(job)
	if err == nil {
		m.book, err = Decode(data)
	}
	if err != nil {
		m.Warning = "hindsight: " + err.Error() + "; starting afresh"
		m.book, _ = Decode(nil)
	}
	return m
}

// Judge is Book.Judge under the memory's rule; nil when m is nil.
func (m *Memory) Judge(step string, fp failure.Fingerprint, now time.Time) *failure.Persistence {
	if m == nil {
		return nil
	}
	return m.book.Judge(m.Prefix+step, fp, m.Rule, now)
}

// Failed records step's final failure; Succeeded clears its records.
func (m *Memory) Failed(step string, fp failure.Fingerprint, code failure.Code, at time.Time) {
	if m != nil {
		m.book.Failed(m.Prefix+step, fp, code, at)
		m.dirty = true
	}
}

// Succeeded clears step's records.
func (m *Memory) Succeeded(step string) {
	if m != nil && len(m.book.Steps[m.Prefix+step]) > 0 {
		m.book.Succeeded(m.Prefix + step)
		m.dirty = true
	}
}

// Records returns step's records, oldest first.
func (m *Memory) Records(step string) []Record {
	if m == nil {
		return nil
	}
	return m.book.Steps[m.Prefix+step]
}

// Hook returns the retry loop's question for step (step.IO.Hindsight):
// a transient failure whose fingerprint (with the step's targets) repeats
// the runs before is returned marked persistent, as of now.
func (m *Memory) Hook(step string, targets []string, now time.Time) func(f *failure.Failure) *failure.Failure {
	if m == nil {
		return nil
	}
	return func(f *failure.Failure) *failure.Failure {
		fp := m.clean(failure.FingerprintOf(f, targets))
		if p := m.Judge(step, fp, now); p != nil {
			return Persistent(f, p, fp.Target)
		}
		return nil
	}
}

// Remember records step's end in the book: a final failure's
// fingerprint, or a success that clears its records. A step that did not
// run (skipped, cancelled, not started) neither counts nor clears.
func (m *Memory) Remember(step string, rep *report.Step, targets []string, at time.Time) {
	if m == nil {
		return
	}
	switch {
	case rep.Result == report.Success:
		m.Succeeded(step)
	case rep.Result == report.Failure && rep.Class != failure.None && rep.AttemptCount() > 0:
		f := &failure.Failure{Class: rep.Class, Code: rep.Code, Reason: rep.Reason, Evidence: rep.Evidence}
		m.Failed(step, m.clean(failure.FingerprintOf(f, targets)), rep.Code, at)
	}
}

// clean drops fp's target when the run's masker would change it: a
// secret never reaches the book.
func (m *Memory) clean(fp failure.Fingerprint) failure.Fingerprint {
	if m.Mask != nil && fp.Target != "" && m.Mask(fp.Target) != fp.Target {
		fp.Target = ""
	}
	return fp
}

// Within returns the book encoded in at most n bytes: when it is larger,
// its oldest records go first (a step left with none goes with them).
func (m *Memory) Within(n int) []byte {
	if m == nil {
		return nil
	}
	return m.book.Within(n)
}

// Save writes the book back to its store, when the run changed it.
func (m *Memory) Save() error {
	if m == nil || !m.dirty {
		return nil
	}
	if err := m.store.WriteBook(m.job, m.book.Encode()); err != nil {
		return errors.New("hindsight: cannot save the book: " + err.Error())
	}
	return nil
}

// Persistent decorates f, a transient failure that repeats the runs before
// (p): its class and code stay, its reason says since when, and its remedy
// what waiting has not fixed. target is what failed, "" when unnamed.
func Persistent(f *failure.Failure, p *failure.Persistence, target string) *failure.Failure {
	g := *f
	g.Persistent = p
	dates := make([]string, len(p.Dates))
	for i, d := range p.Dates {
		dates[i] = d.UTC().Format(time.RFC3339)
	}
	g.Reason = fmt.Sprintf("%s; persistent: the same failure in %d runs since %s (%s and now)", f.Reason, p.Runs, p.Since.UTC().Format(time.RFC3339), strings.Join(dates, ", "))
	what := "the host the step reaches"
	if target != "" {
		what = "the host " + target
	}
	g.Remedy = fmt.Sprintf("waiting has not helped in %d runs, so this run made no retries: check %s (is it up, is it still the right one?), the proxy or firewall between (does it let the host through?), and the credentials; the step retries again once it has succeeded", p.Runs, what)
	return &g
}

// rePersistent is the mark retrywise prints on a failure that repeated the
// runs before (Persistent's reason): the runs, the first one's
// date, the dates of the runs before.
var rePersistent = failure.LazyRE(`persistent: the same failure in (\d{1,3}) runs since (\d{4}-\d\d-\d\dT[0-9:]{8}Z) \(([0-9TZ:, -]{0,1000}?) and now\)`)

// Marked returns the persistence a step's output says retrywise found (its
// last mark, as Persistent writes it), nil when it says none: explain reads
// it from a run's log.
func Marked(text string) *failure.Persistence {
	ms := rePersistent.FindAllStringSubmatch(text, 64)
	if len(ms) == 0 {
		return nil
	}
	m := ms[len(ms)-1]
	n, err := strconv.Atoi(m[1])
	since, serr := time.Parse(time.RFC3339, m[2])
	if err != nil || serr != nil {
		return nil
	}
	p := &failure.Persistence{Runs: n, Since: since, Dates: []time.Time{}}
	for _, d := range strings.Split(m[3], ", ") {
		if at, err := time.Parse(time.RFC3339, strings.TrimSpace(d)); err == nil {
			p.Dates = append(p.Dates, at)
		}
	}
	return p
}
