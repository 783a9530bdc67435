package action

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/report"
)

// dataEscapes are the workflow commands' data escapes: "%" as %25, CR as
// %0D, LF as %0A.
var dataEscapes = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// Neutral returns s as text the runner shows and never runs: the one
// function every outside text (a job or step name, an API's message, a log
// line, a server's answer) goes through before retrywise prints it in
// action mode. It escapes s as the runner's workflow commands escape their
// data ("%" as %25, CR as %0D, LF as %0A), so the result is one line, and
// then defuses what the runner reads as a command in a line: the legacy
// "##[" anywhere (written "##%5B"), and a "::" that starts the line after
// blanks and invisible format characters, which the runner skips (written
// "%3A:").
func Neutral(s string) string {
	return defuse(dataEscapes.Replace(s))
}

// defuse writes line so that the runner reads no command in it: "##[" as
// "##%5B", and a "::" that starts it (after blanks and format characters)
// as "%3A:". Neutral's second half, and all neutralLines does to a line of
// text whose outside parts are Neutral already.
func defuse(line string) string {
	line = strings.ReplaceAll(line, "##[", "##%5B")
	i := 0
	for i < len(line) {
		r, n := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) {
			break
		}
		i += n
	}
	if strings.HasPrefix(line[i:], "::") {
		line = line[:i] + "%3A" + line[i+1:]
	}
	return line
}

// neutralLines writes text retrywise renders itself (a report, a job
// file's errors) line by line through defuse, its line breaks kept: the
// last guard, after the outside parts went through Neutral, so that no
// line of it is ever read as a command, or looks like a child's
// ::add-mask:: line. A partial line is held until its end or Flush.
type neutralLines struct {
	w   io.Writer
	buf []byte
}

// Write defuses and writes out the complete lines of p.
func (n *neutralLines) Write(p []byte) (int, error) {
	n.buf = append(n.buf, p...)
	for {
		i := bytes.IndexByte(n.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := defuse(string(n.buf[:i])) + "\n"
		n.buf = n.buf[i+1:]
		if _, err := io.WriteString(n.w, line); err != nil {
			return 0, err
		}
	}
}

// Flush defuses and writes out the partial line, ended with a line break.
func (n *neutralLines) Flush() error {
	if len(n.buf) == 0 {
		return nil
	}
	line := defuse(string(n.buf)) + "\n"
	n.buf = n.buf[:0]
	_, err := io.WriteString(n.w, line)
	return err
}

// writeNeutralText writes run's terminal text to w as the log shows it:
// from a copy whose every text (ids, targets, reasons, evidence, notes,
// refs, attempts) is Neutral, each line then defused.
func writeNeutralText(w io.Writer, run *report.Run) error {
	c := *run
	c.Run.Job, c.Run.Detail = Neutral(run.Run.Job), Neutral(run.Run.Detail)
	c.Steps = make([]*report.Step, len(run.Steps))
	for i, s := range run.Steps {
		cs := *s
		cs.ID, cs.Kind = Neutral(s.ID), Neutral(s.Kind) // the class is one of failure's names
		cs.Evidence, cs.Notes, cs.Refs, cs.Attempts = slices.Clone(s.Evidence), slices.Clone(s.Notes), slices.Clone(s.Refs), slices.Clone(s.Attempts)
		cs.Outputs = nil // the text shows none
		cs.Mask(Neutral)
		for j := range cs.Attempts {
			cs.Attempts[j].Command, cs.Attempts[j].Why = Neutral(cs.Attempts[j].Command), Neutral(cs.Attempts[j].Why)
		}
		c.Steps[i] = &cs
	}
	text := &neutralLines{w: w}
	if err := c.WriteText(text); err != nil {
		return err
	}
	return text.Flush()
}
