package failure

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEvidenceLine(t *testing.T) {
	long := strings.Repeat("é", maxEvidenceLen) // 2 bytes a character
	tests := []struct{ in, want string }{
		{"", ""},
		{"fatal: bad config line 1 in file .git/config\n", "fatal: bad config line 1 in file .git/config"},
		{"  error: first\nsecond\n", "error: first"},
		{"progress 10%\rprogress 20%\n", "progress 10%"},
		{"\ncontent after a blank line", ""},
		{"\x00\tpadded \t", "padded"},
		{long + "\nnext", long[:maxEvidenceLen]},
		{"\x1b[31mfatal:\x1b[0m red\x1b]0;title\x07", `\x1b[31mfatal:\x1b[0m red\x1b]0;title\x07`},
		{"tab\tkept, del\x7f, nul\x00 and bs\b", `tab	kept, del\x7f, nul\x00 and bs\x08`},
		{"c1 \u009b2J and \u0085 next", `c1 \u009b2J and \u0085 next`},
		{"not utf-8 \xff\xc3 here, é and \ufffd kept", `not utf-8 \xff\xc3 here, é and ` + "\ufffd kept"},
		{strings.Repeat("\x1b", 200), strings.Repeat(`\x1b`, maxEvidenceLen/4)},
		{"x" + strings.Repeat("\x1b", 200), "x" + strings.Repeat(`\x1b`, (maxEvidenceLen-1)/4)},
	}
	for _, tt := range tests {
		got := EvidenceLine(tt.in)
		if got != tt.want {
			t.Errorf("EvidenceLine(%.40q) = %.40q, want %.40q", tt.in, got, tt.want)
		}
		if len(got) > maxEvidenceLen || !utf8.ValidString(got) {
			t.Errorf("EvidenceLine(%.40q) = %d bytes, valid UTF-8 %v", tt.in, len(got), utf8.ValidString(got))
		}
	}
}

// TestPrintable: what a terminal would act on is escaped, the rest kept.
func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text, é, 日本", "plain text, é, 日本"},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"a\tb\r\nc", `a	b\x0d\x0ac`},
		{"\x7f\u0080\u009f\u00a0", `\x7f\u0080\u009f` + "\u00a0"},
		{"\xe2\x82", `\xe2\x82`},
		{`a literal \x1b stays`, `a literal \x1b stays`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
