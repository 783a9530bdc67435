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
