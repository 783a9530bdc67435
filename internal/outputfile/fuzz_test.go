package outputfile

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: never panics; either entries or one typed error; entries have
// non-empty names and increasing lines within the file; a name=value entry
// on a single line reads back what is written after its "=".
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a=1\n", "a<<EOF\nx\nEOF\n", "a<<EOF\r\nx\r\nEOF\r\n", "=x", "<<E", "a<<", "junk",
		"a=b<<c\n", "a<<E=F\nE=F\n", "\uFEFFa=1", "a<<EOF\nvalueEOF", "\n\n\r\n", "a=1\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := Parse(strings.NewReader(in))
		if err != nil {
			var se *SyntaxError
			var tl *TooLargeError
			switch {
			case errors.As(err, &se):
				if n := strings.Count(in, "\n") + 1; se.Line < 1 || se.Line > n {
					t.Fatalf("error line %d outside 1..%d", se.Line, n)
				}
			case errors.As(err, &tl):
			default:
				t.Fatalf("untyped error %v", err)
			}
			if entries != nil {
				t.Fatalf("entries %+v with error %v", entries, err)
			}
			return
		}
		last := 0
		for _, e := range entries {
			if e.Name == "" || e.Line <= last {
				t.Fatalf("entry %+v after line %d", e, last)
			}
			last = e.Line
			if !strings.Contains(in, e.Value) {
				t.Fatalf("value %q is not in the input", e.Value)
			}
		}
	})
}

// FuzzRoundTrip: whatever name and value a writer emits in the documented
// way (name=value for one line, a heredoc with a delimiter the value does
// not contain otherwise) reads back the same. A value ending in "\r" is
// the one a heredoc cannot carry: its last line would end in "\r\n".
func FuzzRoundTrip(f *testing.F) {
	f.Add("a", "1", "EOF")
	f.Add("notes", "line one\nline two", "EOF")
	f.Add("x", "", "ghadelimiter_1")
	f.Add("k", "a=b<<c\r\nEOF\n", "EOF")
	f.Fuzz(func(t *testing.T, name, value, delim string) {
		if name == "" || strings.ContainsAny(name, "=<\r\n") || strings.HasPrefix(name, "\uFEFF") {
			t.Skip()
		}
		var text string
		if !strings.ContainsAny(value, "\r\n") {
			text = name + "=" + value + "\n"
		} else {
			if delim == "" || strings.ContainsAny(delim, "\r\n") || strings.Contains(value, delim) || strings.HasSuffix(value, "\r") {
				t.Skip()
			}
			text = name + "<<" + delim + "\n" + value + "\n" + delim + "\n"
		}
		if len(text) > MaxSize {
			t.Skip()
		}
		got, err := Parse(strings.NewReader("first=1\n" + text + "last=2\n"))
		if err != nil {
			t.Fatalf("Parse(%q) = %v", text, err)
		}
		if len(got) != 3 || got[1].Name != name || got[1].Value != value || got[1].Line != 2 || got[2].Name != "last" {
			t.Fatalf("Parse(%q) = %+v", text, got)
		}
	})
}
