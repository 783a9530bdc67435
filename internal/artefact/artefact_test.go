package artefact

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/explain/logsample"
	"github.com/retrywise/retrywise/internal/failure/codedoc"
)

const root = "../.."

// TestGeneratedFilesAreCurrent regenerates every generated file in memory
// and holds the repository's copy to it: action.yml, host/action.yml, the
// two schemas, builtin_codes.go and the generated regions of the docs.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"action.yml", "host/action.yml", "docs/job.schema.json", "docs/report.schema.json", builtinCodesPath,
		"docs/github-action.md", "docs/failure-codes.md", "docs/commands/exec.md", "docs/commands/run.md"}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		old, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil {
			t.Errorf("%s: %v: run %s", f.Path, err, Command)
			continue
		}
		if !bytes.Equal(old, f.Content) {
			t.Errorf("%s is stale: it is not what its sources generate; run %s", f.Path, Command)
		}
	}
	for _, p := range want {
		if !slices.Contains(paths, p) {
			t.Errorf("%s is not among the generated files %v", p, paths)
		}
	}
}

// TestWriteIsIdempotent: writing the generated files into a copy of the
// repository's sources makes them current, and writing again changes
// nothing.
func TestWriteIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	// The pages with regions and the failure package's source are read at
	// generation: copy them, stale, into a fresh root.
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Path, ".md") {
			old = []byte(strings.Replace(string(old), "<!-- end generated -->", "stale\n<!-- end generated -->", 1))
		} else {
			old = append(old, "\n// stale\n"...)
		}
		writeFile(t, filepath.Join(dir, f.Path), old)
	}
	for _, pkg := range []string{filepath.Join("internal", "failure"), filepath.Join("internal", "failure", "tools")} {
		srcs, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range srcs {
			if filepath.Base(src) == "builtin_codes.go" {
				continue
			}
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, pkg, filepath.Base(src)), b)
		}
	}
	// The sample log archive is built from its text files.
	err = filepath.WalkDir(filepath.Join(root, logsample.Dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		writeFile(t, filepath.Join(dir, rel), b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	wrote, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != len(files) {
		t.Errorf("the first write wrote %v, want all %d files", wrote, len(files))
	}
	if stale, err := Stale(dir); err != nil || len(stale) > 0 {
		t.Errorf("after a write, stale %v (%v)", stale, err)
	}
	if wrote, err := Write(dir); err != nil || len(wrote) > 0 {
		t.Errorf("a second write wrote %v (%v), want nothing", wrote, err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRoot finds the repository's root from a folder below it.
func TestRoot(t *testing.T) {
	got, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs(root)
	if got != want {
		t.Errorf("Root(.) = %s, want %s", got, want)
	}
	if _, err := Root(t.TempDir()); err == nil {
		t.Errorf("Root of a folder outside the repository: no error")
	}
}

// TestHostActionYAMLHasTheContainerFormsInputs: host/action.yml has the
// container form's inputs and outputs (generated from the same definitions).
func TestHostActionYAMLHasTheContainerFormsInputs(t *testing.T) {
	var host, container struct {
		Inputs  map[string]any `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
	}
	if err := yaml.Unmarshal([]byte(hostActionYAML()), &host); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(actionYAML()), &container); err != nil {
		t.Fatal(err)
	}
	if len(host.Inputs) < 10 ||
		!slices.Equal(slices.Sorted(maps.Keys(host.Inputs)), slices.Sorted(maps.Keys(container.Inputs))) ||
		!slices.Equal(slices.Sorted(maps.Keys(host.Outputs)), slices.Sorted(maps.Keys(container.Outputs))) {
		t.Errorf("the host form's inputs or outputs differ from the container form's")
	}
}

// TestCodeDocsListEveryCode keeps the table of failure codes the docs show
// (codedoc.Docs, part of the contract) and the codes internal/failure
// declares the same set, each listed once.
func TestCodeDocsListEveryCode(t *testing.T) {
	declared, err := DeclaredCodes(root)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, d := range codedoc.Docs {
		if listed[d.Code] {
			t.Errorf("code %s is listed twice in codedoc.Docs", d.Code)
		}
		listed[d.Code] = true
		if d.Class == "" || d.Kind == "" {
			t.Errorf("code %s has no class or kind in codedoc.Docs", d.Code)
		}
	}
	var missing, extra []string
	for c := range declared {
		if !listed[c] {
			missing = append(missing, c)
		}
	}
	for c := range listed {
		if !declared[c] {
			extra = append(extra, c)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("codedoc.Docs differs from the declared codes: not listed %v; listed but not declared %v", missing, extra)
	}
}
