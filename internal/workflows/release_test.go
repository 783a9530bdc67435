package workflows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rhysd/actionlint"
)

// copyFile copies the repository's rel into root.
func copyFile(t *testing.T, from, root, rel string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseActionRewrite runs scripts/release-action on a copy of the
// action's metadata, checks that exactly the image and the version changed,
// and lints a workflow that uses the rewritten actions with actionlint.
func TestReleaseActionRewrite(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	files := []string{"action.yml", "host/action.yml", "host/install.sh", "go.mod"}
	for _, f := range files {
		copyFile(t, root, tmp, f)
	}
	release := func(args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "scripts", "release-action")}, args...)...)
		cmd.Dir = tmp
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	for _, bad := range [][]string{{"v1.2.3", "ghcr.io/o/r"}, {"1.2", "ghcr.io/o/r"}, {"1.2.3", "ghcr.io/O/R"}, {"1.2.3", "docker.io/o/r"}, {"1.2.3", "ghcr.io/o/r:1.2.3"}} {
		if out, err := release(bad...); err == nil {
			t.Errorf("release-action %q was accepted:\n%s", bad, out)
		}
	}
	if out, err := release("1.2.3-rc.1", "ghcr.io/retrywise/retrywise"); err != nil {
		t.Fatalf("release-action: %v\n%s", err, out)
	}
	for _, f := range []string{"action.yml", "host/action.yml"} {
		before, _ := os.ReadFile(filepath.Join(root, f))
		after, _ := os.ReadFile(filepath.Join(tmp, f))
		a, b := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
		if len(a) != len(b) {
			t.Fatalf("%s: %d lines became %d", f, len(a), len(b))
		}
		var changed []string
		for i := range a {
			if a[i] != b[i] {
				changed = append(changed, strings.TrimSpace(b[i]))
			}
		}
		want := map[string]string{"action.yml": "image: docker://ghcr.io/retrywise/retrywise:1.2.3-rc.1", "host/action.yml": `RETRYWISE_VERSION: "1.2.3-rc.1"`}[f]
		if len(changed) != 1 || changed[0] != want {
			t.Errorf("%s: changed lines %q, want only %q", f, changed, want)
		}
	}
	var meta struct {
		Runs struct {
			Using, Image string
		}
	}
	b, _ := os.ReadFile(filepath.Join(tmp, "action.yml"))
	if err := yaml.Unmarshal(b, &meta); err != nil || meta.Runs.Using != "docker" || meta.Runs.Image != "docker://ghcr.io/retrywise/retrywise:1.2.3-rc.1" {
		t.Errorf("action.yml runs = %+v (%v)", meta.Runs, err)
	}
	// a second run refuses: the files are released already
	if out, err := release("1.2.4", "ghcr.io/retrywise/retrywise"); err == nil || !strings.Contains(out, "already released") {
		t.Errorf("a second rewrite: %v\n%s", err, out)
	}

	// actionlint reads the rewritten metadata of ./ and ./host
	l := newLinter(t)
	l.root = tmp
	wf := []byte(`name: release check
on: workflow_dispatch
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - id: c
        uses: ./
        with:
          run: "true"
      - id: h
        uses: ./host
        with:
          run: "true"
      - run: echo "$A $B"
        env:
          A: ${{ steps.c.outputs.result }}
          B: ${{ steps.h.outputs.exit-code }}
`)
	project, err := actionlint.NewProject(tmp)
	if err != nil {
		t.Fatal(err)
	}
	l.project = project
	for _, e := range l.lint(t, "release-check.yml", wf) {
		t.Error(e)
	}
	// and it does read them: a wrong input name is reported
	typo := strings.Replace(string(wf), "          run: \"true\"\n      - id: h", "          jobb: x\n      - id: h", 1)
	if errs := l.lint(t, "release-check.yml", []byte(typo)); len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), "jobb") {
		t.Errorf("a wrong input of the rewritten ./ was not reported: %q", errs)
	}
}
