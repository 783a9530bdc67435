package expr

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// actCase is one case of testdata/act-expressions.jsonl: an expression of
// nektos/act's own tests that uses only literals and functions, with the
// value act expects (see testdata/act-extract).
type actCase struct {
	ID         string `json:"id"`
	Test       string `json:"test"`
	Name       string `json:"name"`
	Expr       string `json:"expr"`
	Want       any    `json:"want"`
	WantNumber string `json:"want_number"`
	WantError  string `json:"want_error"`
}

// actDifferences are the cases where retrywise gives what GitHub's runner
// gives and act does not, each with the reason (docs/job-files.md, "Where
// act differs"). The test fails when one of them starts to agree with act,
// so the list cannot go stale.
var actDifferences = map[string]string{
	// act reads .first of an array of objects as the object filter
	// .*.first does; GitHub's own evaluator (actions/languageservices,
	// expressions/src/evaluator.ts, arrayAccess) gives null for a name on an
	// array, and docs.github.com reaches items' properties only through *
	// ("Object filters"): contains(null, 'success') is false.
	"functions_test.go:34": "a property of an array is null, not the filter's",
}

// actMinPassing is the least number of act's cases that must give act's
// value: every case but the deliberate differences.
const actMinPassing = 381

// TestActConformance evaluates every case of act's expression tests that
// uses only literals and functions, and compares the value with act's:
// numbers by value (NaN equal to NaN), strings exactly, arrays and objects
// item by item; a case where act expects an error must fail to parse or to
// evaluate.
func TestActConformance(t *testing.T) {
	f, err := os.Open("testdata/act-expressions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var cases []actCase
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			var h struct{ Source, Commit string }
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Source == "" || len(h.Commit) != 40 {
				t.Fatalf("testdata/act-expressions.jsonl:1: not a header with the source and its commit: %v", err)
			}
			continue
		}
		var c actCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("testdata/act-expressions.jsonl:%d: %v", line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 383 {
		t.Errorf("%d cases, want act's 383 that use only literals and functions", len(cases))
	}
	passed := 0
	for _, c := range cases {
		got, err := evalAct(c.Expr)
		ok, why := actAgrees(c, got, err)
		reason, differs := actDifferences[c.ID]
		switch {
		case ok && differs:
			t.Errorf("%s %s: %s agrees with act now; remove it from actDifferences (%s)", c.ID, c.Name, c.Expr, reason)
		case ok:
			passed++
		case !differs:
			t.Errorf("%s %s: %s: %s", c.ID, c.Name, c.Expr, why)
		}
	}
	t.Logf("%d of act's %d cases pass; deliberate differences: %d", passed, len(cases), len(actDifferences))
	if passed < actMinPassing {
		t.Errorf("%d of act's %d cases pass, want at least %d", passed, len(cases), actMinPassing)
	}
	// docs/job-files.md gives the figures.
	doc, err := os.ReadFile("../../docs/job-files.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, want := range []string{fmt.Sprintf("The %d cases of nektos/act's", len(cases)), fmt.Sprintf("%d give act's value", passed)} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/job-files.md does not say %q", want)
		}
	}
}

// evalAct parses and evaluates src with no contexts, as act's tests do.
func evalAct(src string) (any, error) {
	n, err := Parse(src, testOptions)
	if err != nil {
		return nil, err
	}
	v, err := Eval(n, Env{Root: map[string]any{}, Status: func(string) bool { return true }}, testOptions)
	if f, ok := v.(filtered); ok {
		v = []any(f)
	}
	return v, err
}

// actAgrees reports whether got (or err) is what c expects, and if not what
// differs.
func actAgrees(c actCase, got any, err error) (bool, string) {
	switch {
	case c.WantError != "" && err == nil:
		return false, "gives " + actShow(got) + ", act fails: " + c.WantError
	case c.WantError != "":
		return true, ""
	case err != nil:
		return false, "fails (" + err.Error() + "), act gives " + actShow(actWant(c))
	}
	if want := actWant(c); !actEqual(got, want) {
		return false, "gives " + actShow(got) + ", act gives " + actShow(want)
	}
	return true, ""
}

// actWant is the value c expects.
func actWant(c actCase) any {
	switch c.WantNumber {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	return c.Want
}

// actEqual compares two values of the language: numbers by value, NaN
// equal to NaN.
func actEqual(a, b any) bool {
	if x, ok := a.(float64); ok {
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !actEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !actEqual(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// actShow prints a value with its Go type, so that 'false' and false differ.
func actShow(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + x + "'"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
