package outputfile

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Entry
		errLine int    // a *SyntaxError's line; 0 when none is expected
		errHas  string // part of that error's reason
	}{
		{name: "empty file", in: "", want: nil},
		{name: "only empty lines", in: "\n\n\r\n", want: nil},
		{name: "name=value", in: "a=1\nb=two words\n", want: []Entry{{"a", "1", 1}, {"b", "two words", 2}}},
		{name: "value may contain =", in: "url=https://h/?x=1&y=2\n", want: []Entry{{"url", "https://h/?x=1&y=2", 1}}},
		{name: "empty value", in: "a=\n", want: []Entry{{"a", "", 1}}},
		{name: "last line without newline", in: "a=1", want: []Entry{{"a", "1", 1}}},
		{name: "no trimming", in: " a = 1 \n", want: []Entry{{" a ", " 1 ", 1}}},
		{name: "empty lines skipped, numbers kept", in: "\na=1\n\n\nb=2\n", want: []Entry{{"a", "1", 2}, {"b", "2", 5}}},
		{name: "= before << is name=value", in: "a=x<<y\n", want: []Entry{{"a", "x<<y", 1}}},
		{name: "<< before = opens a heredoc", in: "a<<E=F\nv\nE=F\n", want: []Entry{{"a", "v", 1}}},
		{name: "heredoc", in: "notes<<EOF\nline one\nline two\nEOF\nafter=1\n",
			want: []Entry{{"notes", "line one\nline two", 1}, {"after", "1", 5}}},
		{name: "heredoc keeps empty and = lines", in: "a<<X\n\nk=v\n\nX\n", want: []Entry{{"a", "\nk=v\n", 1}}},
		{name: "empty heredoc", in: "a<<EOF\nEOF\n", want: []Entry{{"a", "", 1}}},
		{name: "heredoc of one empty line", in: "a<<EOF\n\nEOF\n", want: []Entry{{"a", "", 1}}},
		{name: "closing line without newline", in: "a<<EOF\nv\nEOF", want: []Entry{{"a", "v", 1}}},
		{name: "delimiter must match exactly", in: "a<<EOF\n EOF\nEOF \nEOF\n", want: []Entry{{"a", " EOF\nEOF ", 1}}},
		{name: "CRLF lines", in: "a=1\r\nb<<EOF\r\nx\r\ny\r\nEOF\r\nc=3\r\n",
			want: []Entry{{"a", "1", 1}, {"b", "x\r\ny", 2}, {"c", "3", 6}}},
		{name: "a lone CR stays in the value", in: "a=1\r2\n", want: []Entry{{"a", "1\r2", 1}}},
		{name: "byte order mark", in: "\uFEFFa=1\n", want: []Entry{{"a", "1", 1}}},
		{name: "later entries kept in order", in: "a=1\na=2\n", want: []Entry{{"a", "1", 1}, {"a", "2", 2}}},

		{name: "neither = nor <<", in: "a=1\njust text\n", errLine: 2, errHas: "neither name=value nor name<<DELIMITER"},
		{name: "blank but not empty", in: "  \n", errLine: 1, errHas: "neither"},
		{name: "empty name", in: "=v\n", errLine: 1, errHas: "empty name"},
		{name: "heredoc with empty name", in: "<<EOF\nv\nEOF\n", errLine: 1, errHas: "empty name"},
		{name: "heredoc with empty delimiter", in: "a<<\nv\n", errLine: 1, errHas: "empty delimiter"},
		{name: "missing closing delimiter names the opening line", in: "x=1\nnotes<<EOF\nv\n", errLine: 2, errHas: `heredoc "notes" has no closing "EOF" line`},
		{name: "value without a newline glued to the delimiter", in: "a<<EOF\nvalueEOF\n", errLine: 1, errHas: "write a newline before it"},
		{name: "heredoc at the end of the file", in: "a<<EOF", errLine: 1, errHas: "no closing"},
		{name: "error after a heredoc counts its lines", in: "a<<E\n1\n2\nE\nbad\n", errLine: 5, errHas: "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in))
			if tt.errLine != 0 {
				var se *SyntaxError
				if !errors.As(err, &se) || se.Line != tt.errLine || !strings.Contains(se.Reason, tt.errHas) {
					t.Fatalf("Parse = %v, %v; want a *SyntaxError on line %d containing %q", got, err, tt.errLine, tt.errHas)
				}
				if !strings.HasPrefix(err.Error(), "line ") {
					t.Errorf("error %q does not start with its line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %+v\nwant    %+v", got, tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	line := "k=" + strings.Repeat("v", 98) + "\n" // 101 bytes
	tests := []struct {
		name    string
		size    int
		tooLong bool
	}{
		{"exactly MaxSize", MaxSize, false},
		{"one byte more", MaxSize + 1, true},
		{"far more", 4 * MaxSize, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Repeat(line, tt.size/len(line)+1)[:tt.size-1] + "\n"
			_, err := Parse(strings.NewReader(in))
			var tl *TooLargeError
			if got := errors.As(err, &tl); got != tt.tooLong {
				t.Fatalf("Parse(%d bytes) = %v; want TooLargeError %v", tt.size, err, tt.tooLong)
			}
			if tt.tooLong && tl.Limit != MaxSize {
				t.Errorf("Limit = %d", tl.Limit)
			}
		})
	}
}

func TestParseReadError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := Parse(&failingReader{err: boom}); !errors.Is(err, boom) {
		t.Errorf("Parse = %v, want the read error", err)
	}
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestMapLaterWins(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		want    map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"distinct", []Entry{{"a", "1", 1}, {"b", "2", 2}}, map[string]string{"a": "1", "b": "2"}},
		{"later wins", []Entry{{"a", "1", 1}, {"b", "2", 2}, {"a", "3", 3}}, map[string]string{"a": "3", "b": "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Map(tt.entries); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Map = %v, want %v", got, tt.want)
			}
		})
	}
}
