package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/report"
)

// TestJobNothingToPublish is the "nothing to publish today" run: a step
// whose if: is false, or that follows a failed step, is skipped before its
// env: is expanded, so an env: naming a skipped step's output never stops
// the job with 78; the skip says why.
func TestJobNothingToPublish(t *testing.T) {
	for _, tt := range []struct {
		name, job string
		code      int
		want      []string
		why       string
	}{
		{"if false", `version: 1
jobs:
  publish:
    steps:
      - id: drafts
        exec:
          run: echo "count=0" >> "$RETRYWISE_OUTPUT"
      - id: pick
        if: steps.drafts.outputs.count > 0
        exec:
          run: echo "id=42" >> "$RETRYWISE_OUTPUT"
      - id: post
        if: steps.pick.outcome == 'success'
        env: {ARTICLE: "${steps.pick.outputs.id}"}
        exec: {run: 'echo "posting $ARTICLE"'}
`, exitcode.OK, []string{"drafts=success", "pick=skipped", "post=skipped"}, "if: steps.pick.outcome == 'success' is false"},
		{"earlier step failed", `version: 1
jobs:
  publish:
    steps:
      - id: fetch
        exec: {run: "echo 'HTTP 422 Unprocessable Entity' >&2; exit 22"}
      - id: post
        env: {ARTICLE: "${steps.fetch.outputs.id}"}
        exec: {run: 'echo "posting $ARTICLE"'}
`, -1, []string{"fetch=failure", "post=skipped"}, "an earlier step failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(tt.job), 0o644)
			r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
			if tt.code >= 0 && r.code != tt.code || r.code == exitcode.Config {
				t.Fatalf("exit %d, want %d (never 78):\n%s", r.code, tt.code, r.stderr)
			}
			rep := readRun(t, filepath.Join(dir, "r.json"))
			if got := stepResults(rep); !slices.Equal(got, tt.want) {
				t.Errorf("steps = %v, want %v", got, tt.want)
			}
			last := rep.Steps[len(rep.Steps)-1]
			if last.Result != report.Skipped || !strings.Contains(last.Detail+last.Reason, tt.why) {
				t.Errorf("the last step: %s %q %q, want skipped saying %q", last.Result, last.Reason, last.Detail, tt.why)
			}
		})
	}
}

// TestJobDryRunShowsWhatTheRunSends: --dry-run expands a step's own env:
// as the run would, shows every header (one line each, a credential one
// masked without hiding the next), and masks a value derived from a
// secret-named variable.
func TestJobDryRunShowsWhatTheRunSends(t *testing.T) {
	dir := t.TempDir()
	job := `version: 1
jobs:
  j:
    steps:
      - id: post
        env:
          API_TOKEN: "tok-${BASE_SECRET}"
          WHERE: "https://example.test/${REGION}"
        http:
          url: "${WHERE}/articles"
          header: ["Authorization: Bearer ${API_TOKEN}", "Accept: application/json", "X-Trace: on"]
`
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t, "BASE_SECRET=s3cr3t-base-value", "REGION=eu"), dir, "run", "--dry-run")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"env WHERE: https://example.test/eu", "step post: http GET https://example.test/eu/articles", "header: Accept: application/json", "header: X-Trace: on"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the plan lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "s3cr3t-base-value") || strings.Contains(r.stdout+r.stderr, "tok-s3cr3t") {
		t.Errorf("the plan shows a secret:\n%s", r.stdout)
	}
}
