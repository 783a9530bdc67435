package failure

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEListsEveryCode keeps the README's table of failure codes (part
// of the contract) and the codes the package declares (code.go and each
// tool family's file) the same set.
func TestREADMEListsEveryCode(t *testing.T) {
	declared := map[string]bool{"http-NNN": true, "curl-N": true}
	fs := token.NewFileSet()
	// The package's files as the go command builds them (build tags
	// included), rather than the deprecated parser.ParseDir.
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		file, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
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
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Failure codes\n")
	if !ok {
		t.Fatal("README has no \"## Failure codes\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
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
		t.Errorf("README's failure codes differ from code.go: not listed %v; listed but not declared %v", missing, extra)
	}
}
