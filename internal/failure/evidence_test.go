package failure

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/redact"
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
		{long + "\nnext", long[:maxEvidenceLen-2*len(redact.Cut)] + redact.Cut},
		{strings.Repeat("word ", 100), strings.TrimSpace(strings.Repeat("word ", 100)[:maxEvidenceLen-2*len(redact.Cut)]) + redact.Cut},
		{"\x1b[31mfatal:\x1b[0m red\x1b]0;title\x07", `\x1b[31mfatal:\x1b[0m red\x1b]0;title\x07`},
		{"tab\tkept, del\x7f, nul\x00 and bs\b", `tab	kept, del\x7f, nul\x00 and bs\x08`},
		{"c1 \u009b2J and \u0085 next", `c1 \u009b2J and \u0085 next`},
		{"not utf-8 \xff\xc3 here, é and \ufffd kept", `not utf-8 \xff\xc3 here, é and ` + "\ufffd kept"},
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

// straddleToken is a secret placed across the evidence cut in the tests below.
const straddleToken = "ghp_Str4ddl3T0kenValue0123456789ab" // 34 bytes

// leaksPart returns a part (prefix or suffix, 6 bytes or more) of secret that
// s shows.
func leaksPart(s, secret string) string {
	for n := len(secret) - 1; n >= 6; n-- {
		if p := secret[:n]; strings.Contains(s, p) {
			return p
		}
		if p := secret[len(secret)-n:]; strings.Contains(s, p) {
			return p
		}
	}
	return ""
}

// TestEvidenceCutNeverShowsPartOfASecret puts a token across every byte
// around the evidence cut, at the end (the match starts the line) and at the
// start (the match ends it), and checks that the evidence, masked by the
// redactor, never shows a part of it: a cut is marked with redact.Cut, and
// the redactor masks a secret's fragment next to the mark.
func TestEvidenceCutNeverShowsPartOfASecret(t *testing.T) {
	red := redact.New(redact.Options{Env: []string{"GITHUB_TOKEN=" + straddleToken}})
	filler := strings.Repeat("lorem ipsum ", 60)
	for at := 200; at < 340; at++ {
		// A huge line is scanned in windows: the cut of a window counts too.
		text := strings.Repeat("y", at) + " " + straddleToken + strings.Repeat("z", 250) + " Could not resolve host: h"
		for _, e := range FromText(ToolAuto, text, 1).Evidence {
			if p := leaksPart(red.String(e), straddleToken); p != "" {
				t.Fatalf("window, token at %d: masked evidence shows %q of the token:\n%s", at, p, red.String(e))
			}
		}
		for name, text := range map[string]string{
			"cut after":       "fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403 " + filler[:at-95] + straddleToken + " " + filler,
			"cut before":      filler + straddleToken + " " + filler[:at%40] + " fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403",
			"last line":       filler[:at] + straddleToken + " " + filler,
			"last line start": filler + filler[:at] + straddleToken + " " + filler[:120],
		} {
			f := Classify(Input{Tool: ToolExec, Text: text + "\n", ExitCode: 1})
			for _, e := range f.Evidence {
				if len(e) > maxEvidenceLen {
					t.Errorf("%s at %d: evidence of %d bytes", name, at, len(e))
				}
				if p := leaksPart(red.String(e), straddleToken); p != "" {
					t.Fatalf("%s at %d: masked evidence shows %q of the token:\n%s", name, at, p, red.String(e))
				}
			}
		}
	}
}

// TestEvidenceCutKeepsEscapesWhole: a cut through a run of escaped control
// bytes never splits an escape, and stays within the evidence length.
func TestEvidenceCutKeepsEscapesWhole(t *testing.T) {
	for _, in := range []string{strings.Repeat("\x1b", 200), "x" + strings.Repeat("\x1b", 200), "ab" + strings.Repeat("\u009b", 100)} {
		got := EvidenceLine(in)
		body := uncut(got)
		if len(got) > maxEvidenceLen || !strings.HasSuffix(got, redact.Cut) {
			t.Errorf("%q: %d bytes, want at most %d ending in the cut mark", in[:4], len(got), maxEvidenceLen)
		}
		if strings.Trim(strings.NewReplacer(`\x1b`, "", `\u009b`, "").Replace(body), "xab") != "" {
			t.Errorf("%q: an escape was split: %q", in[:4], body[len(body)-8:])
		}
	}
}
