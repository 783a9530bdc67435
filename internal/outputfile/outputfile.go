// Package outputfile parses the files a step writes name/value pairs to:
// $RETRYWISE_OUTPUT (a job-file exec step's outputs), and GitHub's
// $GITHUB_OUTPUT and $GITHUB_ENV, which share the format.
//
// The format is the one the GitHub Actions runner accepts:
//
//	name=value          the value runs to the end of the line and may contain "="
//	name<<DELIMITER     a multi-line value: the lines up to one that is exactly
//	line one            DELIMITER, joined with their own newlines; the newline
//	line two            before the delimiter line is not part of the value
//	DELIMITER
//
// Whichever of "=" and "<<" comes first on a line decides its form, so
// "a=x<<y" sets a to "x<<y" and "a<<E=F" opens a heredoc closed by "E=F".
// Empty lines are skipped. A line with neither "=" nor "<<", an empty name,
// an empty delimiter and a heredoc with no closing delimiter line are
// *SyntaxError values naming the line. Names and values are taken as they
// are: no trimming, no quoting, no escapes.
//
// Lines end with "\n" or "\r\n", as the runner reads them on Windows, so a
// file written with CRLF endings parses the same on every platform (the
// runner on Linux would keep the "\r"). A heredoc value keeps its inner
// line endings as written; the one value it cannot carry is one ending in
// "\r", whose last line would end in "\r\n". A leading UTF-8 byte order mark is ignored, as
// .NET's File.ReadAllText does.
//
// One file holds at most MaxSize bytes; a larger one is a *TooLargeError.
package outputfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// MaxSize is the largest file Parse accepts (1 MiB), per attempt.
const MaxSize = 1 << 20

// Entry is one name/value pair read from the file.
type Entry struct {
	// Name is the name before "=" or "<<"; never empty.
	Name string
	// Value is the text after "=", or a heredoc's lines without the last newline.
	Value string
	// Line is the 1-based line the entry starts on (a heredoc's name<<DELIMITER line).
	Line int
}

// SyntaxError is a file that is not in the format; Line says where.
type SyntaxError struct {
	// Line is the 1-based line at fault (a heredoc's opening line when its delimiter is missing).
	Line int
	// Reason says what is wrong; it may quote a name or delimiter, never a value (it may be a secret).
	Reason string
}

// Error returns "line N: reason".
func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// TooLargeError is a file longer than MaxSize bytes.
type TooLargeError struct {
	// Limit is the size it exceeds, MaxSize.
	Limit int
}

// Error says the file is larger than the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %d bytes (%d MiB)", e.Limit, e.Limit>>20)
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\uFEFF")

// Parse reads the whole of r (at most MaxSize bytes) and returns its entries
// in file order. Errors are *TooLargeError, *SyntaxError or r's read error.
func Parse(r io.Reader) ([]Entry, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, &TooLargeError{Limit: MaxSize}
	}
	return parse(string(bytes.TrimPrefix(data, bom)))
}

// Map returns the entries by name; a later entry for a name wins, as the runner's does.
func Map(entries []Entry) map[string]string {
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[e.Name] = e.Value
	}
	return m
}

// lines walks text one line at a time.
type lines struct {
	text string
	pos  int // start of the next line
	num  int // number of the line last returned
}

// next returns the next line without its ending, the offset just past its
// content (before the ending), and whether there was a line at all.
func (l *lines) next() (line string, end int, ok bool) {
	if l.pos >= len(l.text) {
		return "", 0, false
	}
	start := l.pos
	l.num++
	i := strings.IndexByte(l.text[start:], '\n')
	if i < 0 {
		l.pos = len(l.text)
		return l.text[start:], len(l.text), true
	}
	end = start + i
	l.pos = end + 1
	if end > start && l.text[end-1] == '\r' {
		end--
	}
	return l.text[start:end], end, true
}

func parse(text string) ([]Entry, error) {
	var out []Entry
	l := &lines{text: text}
	for {
		line, _, ok := l.next()
		if !ok {
			return out, nil
		}
		if line == "" {
			continue
		}
		eq := strings.Index(line, "=")
		hd := strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			if eq == 0 {
				return nil, &SyntaxError{Line: l.num, Reason: "name=value with an empty name"}
			}
			out = append(out, Entry{Name: line[:eq], Value: line[eq+1:], Line: l.num})
		case hd >= 0:
			name, delim := line[:hd], line[hd+2:]
			if name == "" {
				return nil, &SyntaxError{Line: l.num, Reason: "name<<DELIMITER with an empty name"}
			}
			if delim == "" {
				return nil, &SyntaxError{Line: l.num, Reason: "name<<DELIMITER with an empty delimiter"}
			}
			open := l.num
			v, err := heredoc(l, name, delim)
			if err != nil {
				return nil, err
			}
			out = append(out, Entry{Name: name, Value: v, Line: open})
		default:
			return nil, &SyntaxError{Line: l.num, Reason: `neither name=value nor name<<DELIMITER`}
		}
	}
}

// heredoc reads the value lines after an opening line up to the one that is
// exactly delim, and returns them as written, without the last line ending.
func heredoc(l *lines, name, delim string) (string, error) {
	open := l.num
	start, end := l.pos, l.pos
	last := ""
	for {
		line, lineEnd, ok := l.next()
		if !ok {
			reason := fmt.Sprintf("heredoc %q has no closing %q line", name, delim)
			if strings.HasSuffix(last, delim) {
				reason += "; the value's last line ends with the delimiter: write a newline before it"
			}
			return "", &SyntaxError{Line: open, Reason: reason}
		}
		if line == delim {
			return l.text[start:end], nil
		}
		end, last = lineEnd, line
	}
}

// OpenRegular opens a file a command wrote (an outputs file, a file
// command) for reading. It must be a regular file: a FIFO or a device the
// command put in its place (mkfifo, ln -s /dev/zero) is refused at once,
// never waited on nor read without end.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
