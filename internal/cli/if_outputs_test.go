package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestJobIfOutputsAreStrings: as in a workflow, steps.ID.outputs.NAME is a
// string, so an extracted boolean false is 'false' (the publish
// step was skipped on a green run), fromJSON gives the typed value, and a
// number the body wrote is its exact text. (found == false, never true,
// is refused by validate: TestValidateReferences.)
func TestJobIfOutputsAreStrings(t *testing.T) {
	api := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		io.WriteString(w, `{"found": false, "big": 12345678901234567890}`)
	})
	dir := t.TempDir()
	job := fmt.Sprintf(`version: 1
defaults:
  retry: {schedule: [1s], max-elapsed: 1m}
jobs:
  publish:
    steps:
      - id: already
        http: {url: "%s/articles", field: ["found=.found", "big=.big"]}
      - id: publish
        if: steps.already.outputs.found == 'false'
        exec: {run: "true"}
      - id: typed
        if: ${{ !fromJSON(steps.already.outputs.found) && steps.already.outputs.big == '12345678901234567890' }}
        exec: {run: "true"}
      - id: not-a-boolean
        if: steps.already.outputs.found != 'false'
        exec: {run: "true"}
      - id: truthy
        if: steps.already.outputs.found
        exec: {run: "true"}
`, api.URL)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	want := []string{"already=success", "publish=success", "typed=success", "not-a-boolean=skipped", "truthy=success"}
	if got := stepResults(rep); !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
}
