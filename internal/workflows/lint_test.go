package workflows

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// repoRoot returns the repository's root: two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root %s: %v", root, err)
	}
	return root
}

// linter lints workflow text with a Project rooted at the repository, so that
// `uses: ./` and `uses: ./host` are read from action.yml and host/action.yml.
type linter struct {
	root    string
	project *actionlint.Project
	l       *actionlint.Linter
}

func newLinter(t *testing.T) *linter {
	t.Helper()
	root := repoRoot(t)
	for _, meta := range []string{"action.yml", filepath.Join("host", "action.yml")} {
		// actionlint says nothing of a local action it cannot find: make its absence an error
		if _, err := os.Stat(filepath.Join(root, meta)); err != nil {
			t.Fatalf("the local action's metadata %s: %v", meta, err)
		}
	}
	project, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{WorkingDir: root})
	if err != nil {
		t.Fatal(err)
	}
	return &linter{root: root, project: project, l: l}
}

// lint returns every error actionlint reports for content, as file:line:col: message [kind].
func (l *linter) lint(t *testing.T, path string, content []byte) []string {
	t.Helper()
	errs, err := l.l.Lint(path, content, l.project)
	if err != nil {
		t.Fatalf("actionlint %s: %v", path, err)
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind))
	}
	return out
}

// published matches the public uses: lines (retrywise/retrywise@REF and
// retrywise/retrywise/host@REF), which actionlint cannot check without the
// action's metadata.
var published = regexp.MustCompile(`(?m)^(\s*(?:-\s+)?uses:\s+)retrywise/retrywise(/host)?@\S+`)

// asLocal rewrites the public uses: lines to the local actions, line for line,
// so their inputs and outputs are checked against this checkout's metadata.
func asLocal(content []byte) []byte {
	return published.ReplaceAllFunc(content, func(m []byte) []byte {
		g := published.FindSubmatch(m)
		if len(g[2]) == 0 {
			return append(g[1], "./"...)
		}
		return append(g[1], "."+string(g[2])...)
	})
}

// workflowFiles returns the repository's workflows and example workflows.
func workflowFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{".github/workflows/*.yml", ".github/workflows/*.yaml", "examples/workflows/*.yml", "examples/workflows/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// TestWorkflows lints every workflow and example as written, and the examples
// that use the published action once more with `uses: ./` and `uses: ./host`
// in its place.
func TestWorkflows(t *testing.T) {
	l := newLinter(t)
	files := workflowFiles(t, l.root)
	seen := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(l.root, f)
		seen[filepath.ToSlash(rel)] = true
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.lint(t, rel, content) {
			t.Error(e)
		}
		if published.Match(content) {
			for _, e := range l.lint(t, rel, asLocal(content)) {
				t.Errorf("%s (with the published action read as ./ and ./host)", e)
			}
		}
	}
	for _, want := range []string{".github/workflows/release.yml", "examples/workflows/local-action.yml"} {
		if !seen[want] {
			t.Errorf("%s was not linted (found %v)", want, files)
		}
	}
}

// TestLintCatches proves the lint reads the local actions' metadata: a wrong
// input name in a workflow that uses ./ or ./host is reported, a right one is
// not.
func TestLintCatches(t *testing.T) {
	l := newLinter(t)
	workflow := func(uses, with string) string {
		return `name: lint case
on: workflow_dispatch
jobs:
  case:
    runs-on: ubuntu-latest
    steps:
      - id: rw
        uses: ` + uses + `
        with:
` + with + `
      - run: echo "$RESULT"
        env:
          RESULT: ${{ steps.rw.outputs.result }}
`
	}
	cases := []struct {
		name     string
		workflow string
		// want are regexps each of which some reported error must match; none means no error.
		want []string
	}{
		{"./ with its inputs", workflow("./", "          run: echo hi\n          schedule: 1s"), nil},
		{"./ with a wrong input name", workflow("./", "          run: echo hi\n          retry-shedule: 1s"),
			[]string{`^lint-case\.yml:11:11: input "retry-shedule" is not defined in action .* defined at "\./"`}},
		{"./host with its inputs", workflow("./host", "          run: echo hi\n          schedule: 1s"), nil},
		{"./host with a wrong input name", workflow("./host", "          run: echo hi\n          max_attempts: 3"),
			[]string{`^lint-case\.yml:11:11: input "max_attempts" is not defined in action .* defined at "\./host"`}},
		{"./host with the container form's inputs", workflow("./host", "          config: retrywise.yml\n          job: publish\n          git-user-name: bot"), nil},
		{"an output ./host does not declare", strings.Replace(workflow("./host", "          run: echo hi"), "outputs.result", "outputs.no-such-output", 1),
			[]string{`property "no-such-output" is not defined in object type`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lint-case.yml")
			if err := os.WriteFile(path, []byte(tc.workflow), 0o644); err != nil {
				t.Fatal(err)
			}
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := l.lint(t, filepath.Base(path), content)
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("errors for a valid workflow:\n%s", strings.Join(got, "\n"))
			}
			for _, w := range tc.want {
				re := regexp.MustCompile(w)
				found := false
				for _, e := range got {
					found = found || re.MatchString(e)
				}
				if !found {
					t.Errorf("no error matches %s; got:\n%s", w, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// TestAsLocal checks the rewrite keeps lines and touches only the published action.
func TestAsLocal(t *testing.T) {
	in := "      - uses: retrywise/retrywise@v1\n        uses: retrywise/retrywise/host@v1.2.3\n      - uses: actions/checkout@v6\n      - uses: retrywise/retrywise-other@v1\n"
	want := "      - uses: ./\n        uses: ./host\n      - uses: actions/checkout@v6\n      - uses: retrywise/retrywise-other@v1\n"
	if got := string(asLocal([]byte(in))); got != want {
		t.Errorf("asLocal:\n%s\nwant:\n%s", got, want)
	}
}
