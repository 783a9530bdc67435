package jobs

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Error is one problem in a job file, at a position, with a way to fix it.
type Error struct {
	// Path is the file's path as given to Load.
	Path string
	// Pos is where the offending key or value is written.
	Pos Pos
	// Msg says what is wrong, in one line.
	Msg string
	// Fix says in one line how to fix it; may be empty.
	Fix string
	// Warning is true for what may be wrong but cannot be known before
	// the run (a reference to a script's outputs without its outputs:
	// list): the file is still valid.
	Warning bool
}

// Error returns "FILE:LINE:COL: message", or "FILE:LINE:COL: warning:
// message" for a warning.
func (e *Error) Error() string {
	if e.Warning {
		return fmt.Sprintf("%s:%d:%d: warning: %s", e.Path, e.Pos.Line, e.Pos.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Errors are a job file's problems, sorted by position.
type Errors []*Error

// Error returns the errors' lines, one per error.
func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Sort orders the errors by position, keeping the order of errors at the
// same position.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].Pos, es[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// WriteText writes one line "FILE:LINE:COL: message" per error, each
// followed by "  fix: ..." on the next line when it has a fix.
func (es Errors) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Error())
		b.WriteByte('\n')
		if e.Fix != "" {
			b.WriteString("  fix: ")
			b.WriteString(e.Fix)
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errorJSON is an Error's JSON form.
type errorJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	Warning bool   `json:"warning,omitempty"`
}

// WriteJSON writes the errors as one JSON array of objects with file,
// line, col, message and fix, and "warning": true for a warning ("[]"
// when there are none), then a newline.
func (es Errors) WriteJSON(w io.Writer) error {
	out := make([]errorJSON, len(es))
	for i, e := range es {
		out[i] = errorJSON{File: e.Path, Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg, Fix: e.Fix, Warning: e.Warning}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// editDistance is the optimal string alignment distance between a and b
// in bytes: insertions, deletions, substitutions and swaps of two adjacent
// bytes cost one each.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// closest returns the candidate nearest to s when it is close enough to be
// a likely typo (about a third of its length away at most), or "".
func closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == s {
			continue
		}
		if d := editDistance(s, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(1, (len(s)+2)/3) {
		return ""
	}
	return best
}

// didYouMean returns "did you mean X?" for the closest candidate, or "".
// Closest is the candidate closest to s in spelling, or "" when none is close.
func Closest(s string, candidates []string) string { return closest(s, candidates) }

func didYouMean(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return "did you mean " + c + "?"
	}
	return ""
}
