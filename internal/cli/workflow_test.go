package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
)

// TestValidateWorkflow: validate --workflow checks the steps that use the
// action (either form, a docker:// image, or a local path whose action.yml
// is retrywise's): a misspelt input at its position with the input it
// likely meant, several modes, a config: that is missing or invalid; other
// actions' steps are left alone; a clean workflow passes.
func TestValidateWorkflow(t *testing.T) {
	dir := t.TempDir()
	env := gittest.Env(t)
	gittest.Git(t, env, dir, "init", "-q", ".")
	os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755)
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte("version: 1\njobs:\n  publish:\n    steps:\n      - id: hello\n        exec: {command: [\"true\"]}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.yml"), []byte("version: 1\njobs:\n  publish:\n    steps:\n      - id: hello\n        exec: {command: [\"true\"], timeout: soon}\n"), 0o644)
	bad := filepath.Join(dir, ".github", "workflows", "bad.yml")
	os.WriteFile(bad, []byte(`on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with: {anything: goes}
      - uses: retrywise/retrywise@v1
        with:
          config: job.yml
          jobb: publish
      - uses: retrywise/retrywise/host@v1.2.0
        with:
          run: echo hi
          url: https://example.test/
      - uses: docker://ghcr.io/retrywise/retrywise:1
        with:
          config: missing.yml
      - uses: retrywise/retrywise@main
        with:
          config: bad.yml
`), 0o644)
	r := newProc(t).run("validate", "--workflow", bad)
	if r.code != exitcode.Config {
		t.Fatalf("exit %d, want 78:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		`bad.yml:11:11: unknown input "jobb"; did you mean "job"?`,
		`bad.yml:12:15: several modes chosen (run, url)`,
		`bad.yml:18:19: config: cannot read the job file`,
		`bad.yml:21:19: config: bad.yml is invalid`,
		`timeout:`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "anything") {
		t.Errorf("another action's inputs were checked:\n%s", r.stderr)
	}
	good := filepath.Join(dir, ".github", "workflows", "good.yml")
	os.WriteFile(good, []byte("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: retrywise/retrywise@v1\n        with: {config: job.yml, job: publish, report-issue: true}\n"), 0o644)
	if r := newProc(t).run("validate", "--workflow", good); r.code != exitcode.OK {
		t.Errorf("a clean workflow: exit %d:\n%s", r.code, r.stderr)
	}
}

// TestExampleWorkflowsValidate: every example workflow passes validate
// --workflow; the scheduled job-file one as a user's repository holds it
// (the workflow under .github/workflows, its job file at the config: path).
func TestExampleWorkflowsValidate(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", "workflows")
	entries, err := os.ReadDir(examples)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yml") || e.Name() == "scheduled-job-file.yml" {
			continue
		}
		if r := newProc(t).run("validate", "--workflow", filepath.Join(examples, e.Name())); r.code != exitcode.OK {
			t.Errorf("%s: exit %d:\n%s", e.Name(), r.code, r.stderr)
		}
	}
	repo := t.TempDir()
	gittest.Git(t, gittest.Env(t), repo, "init", "-q", ".")
	for from, to := range map[string]string{"scheduled-job-file.yml": ".github/workflows/publish.yml", "retrywise/publish.yml": ".github/retrywise/publish.yml"} {
		b, err := os.ReadFile(filepath.Join(examples, from))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(repo, to)), 0o755)
		os.WriteFile(filepath.Join(repo, to), b, 0o644)
	}
	if r := newProc(t).run("validate", "--workflow", filepath.Join(repo, ".github", "workflows", "publish.yml")); r.code != exitcode.OK {
		t.Errorf("scheduled-job-file.yml in a repository: exit %d:\n%s", r.code, r.stderr)
	}
}
