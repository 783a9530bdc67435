package workflowtext

import (
	"strings"
	"testing"
	"unicode"
)

// isCommand reports whether the runner would read line as a workflow
// command: a "::" after leading blanks (ActionCommand.TryParseV2), or the
// legacy "##[" anywhere (ActionCommand.TryParse).
func isCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}

func TestNeutral(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"build", "build"},
		{"build\n::set-output name=evil::1", "build%0A::set-output name=evil::1"},
		{"\n::add-mask::transient", "%0A::add-mask::transient"},
		{"::error::x", "%3A:error::x"},
		{"  \t::error::x", "  \t%3A:error::x"},
		{"\u00a0\u2003::warning::x", "\u00a0\u2003%3A:warning::x"},
		{"\ufeff::warning::x", "\ufeff%3A:warning::x"},
		{"%0A::warning::x", "%250A::warning::x"},
		{"a\r::error::x", "a%0D::error::x"},
		{"step ##[error]x", "step ##%5Berror]x"},
		{"##[set-output name=evil;]1", "##%5Bset-output name=evil;]1"},
		{"100% done: a::b", "100%25 done: a::b"},
		{"", ""},
	} {
		got := Neutral(tt.in)
		if got != tt.want {
			t.Errorf("Neutral(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, "\r\n") || isCommand(got) {
			t.Errorf("Neutral(%q) = %q is not one line of data", tt.in, got)
		}
	}
}

func TestNeutralLines(t *testing.T) {
	var b strings.Builder
	w := NewLines(&b)
	w.Write([]byte("retrywise explain failed\n  target: build\n::add-mask::transient\n  evidence: x\n"))
	w.Write([]byte("               ::set-output name=evil::1\n##[error]y\npartial ::"))
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"retrywise explain failed", "  target: build", "%3A:add-mask::transient", "  evidence: x",
		"               %3A:set-output name=evil::1", "##%5Berror]y", "partial ::"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", lines, want)
	}
	for _, l := range lines {
		if isCommand(l) {
			t.Errorf("a command: %q", l)
		}
	}
}
