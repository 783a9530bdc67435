package explain

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/redact"
)

// StepSpan is one step of a job as the API lists it: what SplitLog needs
// to find the step's lines in the job's log.
type StepSpan struct {
	// Name is the step's name: "Run <first line of the command>" for an
	// unnamed run: step, the name: otherwise.
	Name string
	// Start and End are the step's started_at and completed_at (whole
	// seconds, as the API gives them); zero when the API gave none.
	Start, End time.Time
	// Keep asks for a tail of the step's output (the failed step's).
	Keep bool
}

// Split is what SplitLog kept of a job's log.
type Split struct {
	// Tails are the kept steps' output tails by index in the steps, the
	// runner's timestamps removed; a step with no line has none.
	Tails map[int]*Tail
	// Last is the tail of the whole log, for a failed step none of whose
	// lines were found.
	Last *Tail
	// Groups are the titles of the "##[group]Run …" markers, by the index of
	// the step they were assigned to (the kept steps only): a composite
	// action's step has several.
	Groups map[int][]string
	// Size is how many bytes the log held.
	Size int64
}

// Tail keeps the last Limit bytes written to it, in at most 2*Limit bytes.
type Tail struct {
	Limit int
	buf   []byte
	total int64
}

// NewTail returns a tail of limit bytes.
func NewTail(limit int) *Tail { return &Tail{Limit: limit} }

// Write keeps p's end.
func (t *Tail) Write(p []byte) {
	if t.buf == nil {
		t.buf = make([]byte, 0, min(2*t.Limit, 4<<10))
	}
	t.total += int64(len(p))
	for len(p) > 0 {
		if len(t.buf) == cap(t.buf) {
			if cap(t.buf) < 2*t.Limit {
				nb := make([]byte, len(t.buf), min(2*cap(t.buf), 2*t.Limit))
				copy(nb, t.buf)
				t.buf = nb
			} else {
				t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Limit:]...)
			}
		}
		k := min(cap(t.buf)-len(t.buf), len(p))
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
	}
}

// Reset empties the tail, keeping its buffer.
func (t *Tail) Reset() { t.buf, t.total = t.buf[:0], 0 }

// Append writes what o kept to t, as if all that was written to o had
// been: the last Limit bytes of both are kept as one.
func (t *Tail) Append(o *Tail) {
	lost := o.total - int64(len(o.buf))
	t.Write(o.buf)
	t.total += lost
}

// String returns the last Limit bytes, from the first whole line in them
// when more was written; when they hold no whole line, they start with
// redact.Cut, so that the redactor masks what the cut left of a secret.
func (t *Tail) String() string {
	if t.total <= int64(t.Limit) {
		return string(t.buf)
	}
	kept := t.buf[len(t.buf)-t.Limit:]
	if i := bytes.IndexByte(kept, '\n'); i >= 0 && i < len(kept)-1 {
		return string(kept[i+1:])
	}
	if len(t.buf) > t.Limit && t.buf[len(t.buf)-t.Limit-1] == '\n' {
		return string(kept) // a whole line after all
	}
	return redact.Cut + string(kept)
}

// maxLine is the longest line SplitLog reads whole; a longer one is read
// in pieces, its first piece only checked for a timestamp and a marker.
const maxLine = 64 << 10

// SplitLog reads a job's log (the runner's format: every line prefixed with
// an RFC 3339 timestamp, "##[group]Run …" opening each step's own output)
// as a stream and keeps a tail of limit bytes of each kept step's lines and
// of the whole log; it never holds more than those tails and one line.
//
// A line belongs to the step that was running at its timestamp (the API's
// started_at/completed_at, whole seconds); where two steps share a second,
// or the API gave no times, a "##[group]Run X" marker moves to the next
// step: the one named "Run X" when there is one (an unnamed run: step),
// else the next one. A marker inside a step still running at its time (a
// composite action's groups) stays in that step.
func SplitLog(r io.Reader, steps []StepSpan, limit int) (*Split, error) {
	sp := &Split{Tails: map[int]*Tail{}, Last: NewTail(limit), Groups: map[int][]string{}}
	s := &splitter{steps: steps, cur: -1, timed: len(steps) > 0}
	for _, st := range steps {
		if st.Start.IsZero() || st.End.IsZero() {
			s.timed = false
		}
	}
	br := bufio.NewReaderSize(r, maxLine)
	lineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		sp.Size += int64(len(chunk))
		if len(chunk) > 0 {
			body := chunk
			if lineStart {
				ts, rest, ok := stamp(chunk)
				if ok {
					body = rest
				}
				if title, isGroup := groupTitle(body); isGroup {
					s.group(title, ts, ok)
					if s.cur >= 0 && steps[s.cur].Keep {
						sp.Groups[s.cur] = append(sp.Groups[s.cur], title)
					}
				} else if ok {
					s.line(ts)
				} else if s.cur < 0 && len(steps) > 0 {
					s.cur = 0
				}
			}
			if s.cur >= 0 && s.cur < len(steps) && steps[s.cur].Keep {
				t := sp.Tails[s.cur]
				if t == nil {
					t = NewTail(limit)
					sp.Tails[s.cur] = t
				}
				t.Write(body)
			}
			sp.Last.Write(body)
		}
		lineStart = err == nil
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return sp, nil
		default:
			return sp, err
		}
	}
}

// splitter follows which step the log is in.
type splitter struct {
	steps []StepSpan
	cur   int
	timed bool
}

func sec(t time.Time) time.Time { return t.Truncate(time.Second) }

// running reports whether step k was running during t's second.
func (s *splitter) running(k int, t time.Time) bool {
	st := s.steps[k]
	return !sec(t).Before(sec(st.Start)) && !sec(t).After(sec(st.End))
}

// line moves on, for a timed line, when the current step had ended before it.
func (s *splitter) line(t time.Time) {
	if !s.timed {
		if s.cur < 0 {
			s.cur = 0
		}
		return
	}
	if s.cur >= 0 && !sec(t).After(sec(s.steps[s.cur].End)) {
		return
	}
	last := -1
	for k := s.cur + 1; k < len(s.steps); k++ {
		if s.running(k, t) {
			s.cur = k
			return
		}
		if !sec(s.steps[k].Start).After(sec(t)) {
			last = k
		}
	}
	if last >= 0 {
		s.cur = last
	} else if s.cur < 0 {
		s.cur = 0
	}
}

// group moves to the step a "##[group]Run title" marker opens.
func (s *splitter) group(title string, t time.Time, hasTime bool) {
	if !strings.HasPrefix(title, "Run ") {
		if hasTime {
			s.line(t)
		}
		return
	}
	for k := s.cur + 1; k < len(s.steps); k++ {
		if strings.TrimSpace(s.steps[k].Name) != title {
			continue
		}
		if !s.timed || !hasTime || s.running(k, t) {
			s.cur = k
			return
		}
		break
	}
	if !s.timed || !hasTime {
		// An unnamed next step would have matched by its name: a group
		// that does not is a composite action's, in the current step.
		if next := s.cur + 1; next < len(s.steps) && !strings.HasPrefix(strings.TrimSpace(s.steps[next].Name), "Run ") {
			s.cur = next
		}
		return
	}
	next := s.cur + 1
	if s.cur >= 0 && next < len(s.steps) && s.running(next, t) && !sec(s.steps[s.cur].End).After(sec(t)) {
		s.cur = next
		return
	}
	s.line(t)
}

// stamp splits the runner's timestamp off a line.
func stamp(line []byte) (time.Time, []byte, bool) {
	if len(line) < 21 || line[0] < '0' || line[0] > '9' || line[4] != '-' {
		return time.Time{}, line, false
	}
	i := bytes.IndexByte(line[:min(len(line), 40)], ' ')
	if i < 0 {
		return time.Time{}, line, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(line[:i]))
	if err != nil {
		return time.Time{}, line, false
	}
	return t, line[i+1:], true
}

// groupTitle returns the title of a "##[group]" line.
func groupTitle(body []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(body, []byte("##[group]"))
	if !ok {
		return "", false
	}
	return strings.TrimSpace(string(rest)), true
}

var exitRe = regexp.MustCompile(`##\[error\]Process completed with exit code (\d+)`)

// ExitCodeOf returns the exit code the runner reported in a step's output
// ("##[error]Process completed with exit code 2."), the last one; -1 when none.
func ExitCodeOf(text string) int {
	m := exitRe.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return -1
	}
	n, err := strconv.Atoi(m[len(m)-1][1])
	if err != nil {
		return -1
	}
	return n
}
