// Command act-extract writes act-expressions.jsonl: the cases of nektos/act's
// expression tests (pkg/exprparser/interpreter_test.go and functions_test.go)
// that use only literals and functions, one JSON object a line. It reads the
// two files from the folder given as its argument:
//
//	go run ./internal/expr/testdata/act-extract DIR REPO-URL COMMIT > internal/expr/testdata/act-expressions.jsonl
//
// A case is left out when its input names a context (github, env, steps, ...)
// or calls hashFiles (out of scope). The trailing "}}" of some inputs is act's
// end of an expression (act's lexer reads up to "}}"), not part of it, and is
// cut off.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// header is the file's first line: where the cases come from.
type header struct {
	Source  string   `json:"source"`
	Commit  string   `json:"commit"`
	Files   []string `json:"files"`
	Note    string   `json:"note"`
	Omitted int      `json:"omitted"`
}

// actCase is one case.
type actCase struct {
	ID   string `json:"id"`   // FILE:LINE of the case in act's source
	Test string `json:"test"` // act's test function
	Name string `json:"name"` // act's name of the case
	Expr string `json:"expr"`
	// Want is the expected value as JSON; WantNumber holds a number JSON
	// cannot (NaN, Infinity, -Infinity); WantError is act's error, when
	// act expects the expression to fail.
	Want       any    `json:"want"`
	WantNumber string `json:"want_number,omitempty"`
	WantError  string `json:"want_error,omitempty"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: act-extract DIR REPO-URL COMMIT")
		os.Exit(64)
	}
	dir, repo, commit := os.Args[1], os.Args[2], os.Args[3]
	files := []string{"interpreter_test.go", "functions_test.go"}
	var cases []actCase
	omitted := 0
	for _, f := range files {
		cs, om, err := extract(filepath.Join(dir, f), f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cases = append(cases, cs...)
		omitted += om
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	var urls []string
	for _, f := range files {
		urls = append(urls, repo+"/blob/"+commit+"/pkg/exprparser/"+f)
	}
	must(enc.Encode(header{Source: repo, Commit: commit, Files: urls, Omitted: omitted,
		Note: "nektos/act's expression tests that use only literals and functions (no context, no hashFiles), written by internal/expr/testdata/act-extract; a trailing }} (act's end of an expression) is cut off; the two files are byte for byte those of the module github.com/nektos/act@v0.2.89, the version the project pins"}))
	for _, c := range cases {
		must(enc.Encode(c))
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// extract returns the cases of one file and how many it left out.
func extract(path, base string) ([]actCase, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, 0, err
	}
	var out []actCase
	omitted := 0
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "table" {
				return true
			}
			lit, ok := as.Rhs[0].(*ast.CompositeLit)
			if !ok {
				return true
			}
			arr, ok := lit.Type.(*ast.ArrayType)
			if !ok {
				return true
			}
			st, ok := arr.Elt.(*ast.StructType)
			if !ok {
				return true
			}
			var fields []string
			for _, f := range st.Fields.List {
				for _, nm := range f.Names {
					fields = append(fields, nm.Name)
				}
			}
			for _, e := range lit.Elts {
				row, ok := e.(*ast.CompositeLit)
				if !ok || len(row.Elts) != len(fields) {
					panic(fmt.Sprintf("%s: a row of %d values", fset.Position(e.Pos()), len(row.Elts)))
				}
				c := actCase{ID: fmt.Sprintf("%s:%d", base, fset.Position(row.Pos()).Line), Test: fn.Name.Name}
				for i, f := range fields {
					v := row.Elts[i]
					switch f {
					case "input":
						c.Expr = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(str(v)), "}}"))
					case "name":
						c.Name = str(v)
					case "expected":
						c.Want, c.WantNumber = value(v)
					case "error":
						if s, ok := v.(*ast.BasicLit); ok {
							c.WantError = str(s)
						}
					}
				}
				if usesContext(c.Expr) {
					omitted++
					continue
				}
				out = append(out, c)
			}
			return false
		})
	}
	return out, omitted, nil
}

// str is a string literal's value.
func str(e ast.Expr) string {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		panic(fmt.Sprintf("not a string literal: %#v", e))
	}
	s, err := strconv.Unquote(b.Value)
	if err != nil {
		panic(err)
	}
	return s
}

// value is an expected Go value as JSON, or a number JSON cannot hold.
func value(e ast.Expr) (any, string) {
	switch v := e.(type) {
	case *ast.Ident:
		switch v.Name {
		case "true":
			return true, ""
		case "false":
			return false, ""
		case "nil":
			return nil, ""
		}
	case *ast.BasicLit:
		switch v.Kind {
		case token.STRING:
			return str(v), ""
		case token.INT, token.FLOAT:
			f, err := strconv.ParseFloat(v.Value, 64)
			if err != nil {
				panic(err)
			}
			return f, ""
		}
	case *ast.UnaryExpr:
		if v.Op == token.SUB {
			x, n := value(v.X)
			if f, ok := x.(float64); ok && n == "" {
				return -f, ""
			}
		}
	case *ast.CallExpr:
		switch fmt.Sprint(v.Fun) {
		case "&{math NaN}":
			return nil, "NaN"
		case "&{math Inf}":
			x, _ := value(v.Args[0])
			if x.(float64) < 0 {
				return nil, "-Infinity"
			}
			return nil, "Infinity"
		case "make":
			return map[string]any{}, ""
		}
	case *ast.CompositeLit:
		if _, ok := v.Type.(*ast.MapType); ok {
			m := map[string]any{}
			for _, kv := range v.Elts {
				kv := kv.(*ast.KeyValueExpr)
				x, n := value(kv.Value)
				if n != "" {
					panic("a special number in a map")
				}
				m[str(kv.Key)] = x
			}
			return m, ""
		}
	}
	panic(fmt.Sprintf("an expected value of unknown form: %#v", e))
}

// literals are the names that are values, not contexts.
var literals = map[string]bool{"true": true, "false": true, "null": true, "NaN": true, "Infinity": true}

// usesContext reports whether expr names a context or calls hashFiles:
// a name outside a string that is neither a literal, a function called,
// nor a member after "." .
func usesContext(expr string) bool {
	var names []string
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(expr) {
				if expr[j] == '\'' {
					if j+1 < len(expr) && expr[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case c >= '0' && c <= '9':
			// a number (0xff, -2.99e-2): its letters name nothing
			j := i + 1
			for j < len(expr) && (isNameByte(expr[j]) || expr[j] == '.' || (expr[j] == '-' || expr[j] == '+') && (expr[j-1] == 'e' || expr[j-1] == 'E')) {
				j++
			}
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(expr) && isNameByte(expr[j]) {
				j++
			}
			name := expr[i:j]
			k := strings.TrimLeft(expr[j:], " ")
			prev := strings.TrimRight(expr[:i], " ")
			switch {
			case strings.HasSuffix(prev, "."):
				// a member
			case strings.HasPrefix(k, "("):
				if strings.EqualFold(name, "hashFiles") {
					return true
				}
			case literals[name]:
			default:
				names = append(names, name)
			}
			i = j
		default:
			i++
		}
	}
	sort.Strings(names)
	return len(names) > 0
}

// isNameByte reports whether c may be in a name.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
