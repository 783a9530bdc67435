package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// hundredStepJob is a 100-step job file of every common kind: http with a
// header and a field, exec with an if:, push with its own retry, exec that
// may fail.
func hundredStepJob() string {
	var src strings.Builder
	src.WriteString("version: 1\ndefaults:\n  retry: {schedule: [1s, 2s], max-elapsed: 5m}\njobs:\n  j:\n    steps:\n")
	for i := range 100 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&src, "      - {id: s%d, http: {url: \"https://example.com/%d\", header: [\"A: ${TOKEN}\"], field: [\"n=.items | length\"]}}\n", i, i)
		case 1:
			fmt.Fprintf(&src, "      - {id: s%d, if: 'steps.s%d.outputs.n < 10', exec: {run: \"echo hi\"}}\n", i, i-1)
		case 2:
			fmt.Fprintf(&src, "      - {id: s%d, push: {args: [origin, main]}, retry: {schedule: [2s, 4s, 8s, 16s]}}\n", i)
		default:
			fmt.Fprintf(&src, "      - {id: s%d, exec: {command: [\"true\"]}, continue-on-error: true}\n", i)
		}
	}
	return src.String()
}

// BenchmarkValidate100Steps loads and validates a 100-step job file with
// the real kinds (every step's flags parsed and resolved, if: compiled).
func BenchmarkValidate100Steps(b *testing.B) {
	f, _, _, _ := testFactory(nil)
	data := []byte(hundredStepJob())
	b.ReportAllocs()
	for b.Loop() {
		if _, errs, err := f.loadJobSource(context.Background(), "job.yml", data); err != nil || len(errs) > 0 {
			b.Fatal(err, errs)
		}
	}
}
