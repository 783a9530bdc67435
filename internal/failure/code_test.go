package failure

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/docgen"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated regions of the docs (docs/failure-codes.md)")

// declaredCodes returns the codes the package declares (code.go and each tool
// family's file in internal/failure/tools), with the two patterns http-NNN and curl-N.
func declaredCodes(t *testing.T) map[string]bool {
	t.Helper()
	declared := map[string]bool{"http-NNN": true, "curl-N": true}
	fs := token.NewFileSet()
	// The files of the core and of its tool families (internal/failure/tools)
	// as the go command builds them (build tags included), rather than the
	// deprecated parser.ParseDir.
	var files []*ast.File
	for _, dir := range []string{".", "tools"} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range pkg.GoFiles {
			file, err := parser.ParseFile(fs, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
	}
	inspect := func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, _ := strconv.Unquote(lit.Value)
			declared[v] = true
		}
		return true
	}
	for _, file := range files {
		ast.Inspect(file, inspect)
	}
	if len(declared) < 50 {
		t.Fatalf("only %d codes read from code.go", len(declared))
	}
	return declared
}

// TestCodeDocsListEveryCode keeps the table of failure codes the docs show
// (codeDocs, part of the contract) and the codes the package declares the
// same set, each listed once.
func TestCodeDocsListEveryCode(t *testing.T) {
	declared := declaredCodes(t)
	listed := map[string]bool{}
	for _, d := range codeDocs {
		if listed[d.code] {
			t.Errorf("code %s is listed twice in codeDocs", d.code)
		}
		listed[d.code] = true
		if d.class == "" || d.kind == "" {
			t.Errorf("code %s has no class or kind in codeDocs", d.code)
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
		t.Errorf("codeDocs (codedoc_test.go) differs from the declared codes: not listed %v; listed but not declared %v", missing, extra)
	}
}

// codesTable renders codeDocs as the Markdown table of docs/failure-codes.md.
func codesTable() string {
	var b strings.Builder
	b.WriteString("| code | class | kind |\n|---|---|---|\n")
	for _, d := range codeDocs {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.code, d.class, d.kind)
	}
	return b.String()
}

// TestDocsTables keeps the generated table of docs/failure-codes.md what
// codeDocs renders; -update-docs rewrites it.
func TestDocsTables(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "failure-codes.md")
	stale, err := docgen.Sync(path, map[string]string{"failure-codes": codesTable()}, *updateDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 && !*updateDocs {
		t.Errorf("%s: the generated regions %v are stale: run %s", path, stale, docgen.UpdateCommand)
	}
}
