package redact

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// isEllipsis reports whether e is the string literal "…" or "...".
func isEllipsis(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return false
	}
	return s == "…" || s == "..."
}

// isCutText reports whether e is a piece cut out of a text: a slice
// expression or a call (cutUTF8(s, n)).
func isCutText(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SliceExpr:
		return true
	case *ast.CallExpr:
		return true
	case *ast.ParenExpr:
		return isCutText(e.X)
	}
	return false
}

// TestOneCut: no package but this one cuts a text for a message by hand
// (a slice or a call, then "…" or "..."), nor names an ellipsis of its
// own: every cut goes through Clip (or marks with Cut), the form the
// redactor knows.
func TestOneCut(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "redact" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.ADD && (isEllipsis(n.Y) && isCutText(n.X) || isEllipsis(n.X) && isCutText(n.Y)) {
					found = append(found, fset.Position(n.Pos()).String()+": a cut by hand")
				}
			case *ast.ValueSpec:
				for _, v := range n.Values {
					if lit, ok := v.(*ast.BasicLit); ok && (lit.Value == `"…"` || lit.Value == `"..."`) {
						found = append(found, fset.Position(n.Pos()).String()+": an ellipsis of its own")
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s; use redact.Clip", f)
	}
}
