package action

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
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
	w := &neutralLines{w: &b}
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

// TestWriteNeutralText: the log's text of a report shows every outside
// text on its own line, escaped, and the report itself is left as it was.
func TestWriteNeutralText(t *testing.T) {
	s := &report.Step{ID: "build\n::set-output name=evil::1", Kind: "explain", Result: report.Failure, Class: failure.Transient,
		Target: "::error::x (job 1)", Reason: "r\n::add-mask::transient", Evidence: []string{"ok", "::warning::w"},
		Notes: []string{"100%"}, Outputs: map[string]any{"job": "build\n"}}
	run := report.NewRun("explain", time.Time{})
	run.Steps = append(run.Steps, s, &report.Step{ID: "second", Kind: "explain", Result: report.Failure})
	run.Finish(time.Time{}, 75, "worst build\n::error::y")
	var b strings.Builder
	if err := writeNeutralText(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if isCommand(l) {
			t.Errorf("a command: %q\n%s", l, b.String())
		}
	}
	for _, want := range []string{"step build%0A::set-output name=evil::1:", "target:   %3A:error::x (job 1)", "reason:   r%0A::add-mask::transient", "%3A:warning::w", "note:     100%25", "worst build%0A::error::y"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
	if s.ID != "build\n::set-output name=evil::1" || s.Reason != "r\n::add-mask::transient" || s.Evidence[1] != "::warning::w" || s.Outputs["job"] != "build\n" || run.Run.Detail != "worst build\n::error::y" {
		t.Errorf("the report itself changed: %+v", s)
	}
}
