package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
)

// TestValidateReferences: retrywise validate names, at FILE:LINE:COL with
// a fix, an output a step does not declare (a case-only difference in
// ${...} included), a step that runs later, and comparisons that can
// never be true; exit 78. A reference to a script without outputs: is a
// warning: exit 0, the warning at its position, the ok line.
func TestValidateReferences(t *testing.T) {
	dir := t.TempDir()
	bad := `version: 1
jobs:
  publish:
    steps:
      - id: already
        http: {url: "https://example.com/a", absent-ok: true}
      - id: post
        if: steps.already.outputs.found == false
        http: {url: "https://example.com/p", method: POST, field: ["url=.url"]}
      - id: record
        if: steps.post.outcome == 'succeeded'
        env: {URL: "${steps.post.outputs.URL}", LATER: "${steps.push.outputs.pushed}"}
        exec: {run: 'echo "line=$URL" >> log.txt', outputs: [line]}
      - id: push
        push: {args: [origin, "HEAD:main"]}
`
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte(bad), 0o644)
	r := jobRun(t, newProc(t), dir, "validate", "--config", "job.yml")
	if r.code != exitcode.Config {
		t.Fatalf("exit %d, want 78\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"job.yml:8:13: if: steps.already.outputs.found == false compares an output, always a string, with the boolean false",
		"  fix: write 'false' (outputs are strings)",
		"job.yml:11:13: if: steps.post.outcome == 'succeeded' can never be true: an outcome is success, failure, cancelled or skipped",
		"job.yml:12:20: env URL: ${steps.post.outputs.URL}: step \"post\" (http) has no output \"URL\"; its outputs are: status, found, value, body-file, url\n  fix: did you mean url?",
		"job.yml:12:56: env LATER: ${steps.push.outputs.pushed} names step \"push\", which runs after this step",
		"retrywise: job.yml: 4 errors",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	warn := `version: 1
jobs:
  publish:
    steps:
      - id: script
        exec: {run: 'echo "url=https://example.com/1" >> "$RETRYWISE_OUTPUT"'}
      - id: use
        env: {URL: "${steps.script.outputs.url}"}
        exec: {run: 'echo "$URL"'}
`
	os.WriteFile(filepath.Join(dir, "warn.yml"), []byte(warn), 0o644)
	r = jobRun(t, newProc(t), dir, "validate", "--config", "warn.yml")
	if r.code != exitcode.OK || r.stdout != "warn.yml: ok (1 job, 2 steps)\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the ok line\n%s", r.code, r.stdout, r.stderr)
	}
	if want := "warn.yml:8:20: warning: env URL: ${steps.script.outputs.url}: step \"script\" (exec) has no outputs: list, so its outputs cannot be checked before it runs\n  fix: add outputs: [url] to step script's exec"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	r = jobRun(t, newProc(t), dir, "validate", "--config", "warn.yml", "--format", "json")
	var findings []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &findings); err != nil || r.code != exitcode.OK || len(findings) != 1 || findings[0]["warning"] != true || findings[0]["line"] != 8.0 {
		t.Errorf("json: exit %d, %v: %s", r.code, err, r.stdout)
	}
	os.WriteFile(filepath.Join(dir, "warn.yml"), []byte(strings.Replace(warn, `"$RETRYWISE_OUTPUT"'}`, `"$RETRYWISE_OUTPUT"', outputs: [url]}`, 1)), 0o644)
	if r = jobRun(t, newProc(t), dir, "validate", "--config", "warn.yml"); r.code != exitcode.OK || r.stderr != "" {
		t.Errorf("with outputs: declared: exit %d\n%s", r.code, r.stderr)
	}
}

// TestValidateWorkflowModeInputs: validate --workflow names an input that
// does not apply to the step's mode (the action would exit 64), at the
// input's position; the mode's own inputs pass.
func TestValidateWorkflowModeInputs(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, gittest.Env(t), dir, "init", "-q", ".")
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte("version: 1\njobs:\n  publish:\n    steps:\n      - id: hello\n        exec: {command: [\"true\"]}\n"), 0o644)
	wf := filepath.Join(dir, "wf.yml")
	os.WriteFile(wf, []byte(`on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: retrywise/retrywise@v1
        with:
          config: job.yml
          max-attempts: 5
          report-issue: true
      - uses: retrywise/retrywise@v1
        with:
          url: https://example.test/
          max-attempts: 5
          push-args: origin HEAD:main
          push: false
`), 0o644)
	r := newProc(t).run("validate", "--workflow", wf)
	if r.code != exitcode.Config {
		t.Fatalf("exit %d, want 78:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"wf.yml:9:11: input max-attempts does not apply to config mode (the action would exit 64)",
		"  fix: remove max-attempts; in config mode the job file holds the steps' settings",
		"wf.yml:15:11: input push-args does not apply to url mode",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, ":14:") || strings.Contains(r.stderr, ":16:") || strings.Contains(r.stderr, ":10:") {
		t.Errorf("an input of the mode was refused:\n%s", r.stderr)
	}
}
