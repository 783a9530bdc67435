package report_test

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/report"
)

// BenchmarkRender100Steps renders a 100-step report as JSON and as Markdown.
func BenchmarkRender100Steps(b *testing.B) {
	r := report.NewRun("big", t0)
	for i := range 100 {
		at := t0.Add(time.Duration(i) * time.Second)
		var s *report.Step
		switch i % 4 {
		case 0:
			s = successStep(fmt.Sprintf("ok-%d", i), at, 120*time.Millisecond)
			s.Outputs = map[string]any{"status": 200, "found": true}
		case 1:
			s = &report.Step{ID: fmt.Sprintf("skip-%d", i), Kind: "http", Result: report.Skipped, Detail: "if: failure()"}
		case 2:
			s = structuralStep(fmt.Sprintf("push-%d", i), at, " ! [rejected]        main -> main (non-fast-forward)", "hint: ``` | ```")
			s.ContinueOnError = true
		default:
			s = transientStep(fmt.Sprintf("exec-%d", i), at)
		}
		r.Steps = append(r.Steps, s)
	}
	r.Finish(t0.Add(time.Hour), exitcode.Transient, "")
	b.ReportAllocs()
	for b.Loop() {
		if err := r.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
		if err := r.WriteMarkdown(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
