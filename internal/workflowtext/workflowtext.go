// Package workflowtext writes text for a GitHub Actions runner's log as
// data: the runner reads workflow commands ("::name::value" at a line's
// start, the legacy "##[name]" anywhere) in whatever a step prints, so text
// retrywise did not write itself (a job or step name, an API's message, a
// log line, a server's answer) must never form one. It imports only the
// standard library.
package workflowtext

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
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
	return Defuse(dataEscapes.Replace(s))
}

// Defuse writes line so that the runner reads no command in it: "##[" as
// "##%5B", and a "::" that starts it (after blanks and format characters)
// as "%3A:". Neutral's second half, and all Lines does to a line of
// text whose outside parts are Neutral already.
func Defuse(line string) string {
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

// Lines writes text retrywise renders itself (a report, a job
// file's errors) line by line through defuse, its line breaks kept: the
// last guard, after the outside parts went through Neutral, so that no
// line of it is ever read as a command, or looks like a child's
// ::add-mask:: line. A partial line is held until its end or Flush.
type Lines struct {
	w   io.Writer
	buf []byte
}

// NewLines returns a Lines writing to w.
func NewLines(w io.Writer) *Lines { return &Lines{w: w} }

// Write defuses and writes out the complete lines of p.
func (n *Lines) Write(p []byte) (int, error) {
	n.buf = append(n.buf, p...)
	for {
		i := bytes.IndexByte(n.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := Defuse(string(n.buf[:i])) + "\n"
		n.buf = n.buf[i+1:]
		if _, err := io.WriteString(n.w, line); err != nil {
			return 0, err
		}
	}
}

// Flush defuses and writes out the partial line, ended with a line break.
func (n *Lines) Flush() error {
	if len(n.buf) == 0 {
		return nil
	}
	line := Defuse(string(n.buf)) + "\n"
	n.buf = n.buf[:0]
	_, err := io.WriteString(n.w, line)
	return err
}
