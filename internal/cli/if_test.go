package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestJobIfOnStringOutputs: an exec step's outputs are strings, and an
// if: compares them with numbers as a workflow does (the issue's
// steps.quota.outputs.left > 0 stopped the job with 78), strings
// case-blind, and && / || give an operand.
func TestJobIfOnStringOutputs(t *testing.T) {
	dir := t.TempDir()
	job := `version: 1
jobs:
  publish:
    steps:
      - id: quota
        exec:
          run: |
            echo "left=3" >> "$RETRYWISE_OUTPUT"
            echo "zero=0" >> "$RETRYWISE_OUTPUT"
            echo "state=OPEN" >> "$RETRYWISE_OUTPUT"
      - id: some-left
        if: steps.quota.outputs.left > 0
        exec: {run: "true"}
      - id: none-left
        if: steps.quota.outputs.zero > 0
        exec: {run: "true"}
      - id: open
        if: ${{ steps.quota.outputs.state == 'open' && contains('open,closed', steps.quota.outputs.state) }}
        exec: {run: "true"}
      - id: choose
        if: (steps.quota.outputs.left > 5 && 'many' || 'few') == 'few'
        exec: {run: "true"}
      - id: double-quoted
        if: steps.quota.outcome == "success" && !startsWith(steps.quota.outputs.state, "clo")
        exec: {run: "true"}
`
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	want := []string{"quota=success", "some-left=success", "none-left=skipped", "open=success", "choose=success", "double-quoted=success"}
	if got := stepResults(rep); !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
}
