package expr

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/redact"
)

// testOptions are the options the program gives: redact's cut.
var testOptions = Options{Clip: func(s string) string { return redact.Clip(s, 40) }}

// evalExpr parses and evaluates src in root, neither failed nor cancelled,
// giving the expression's value.
func evalExpr(t *testing.T, src string, root map[string]any) (any, error) {
	t.Helper()
	n, err := Parse(src, testOptions)
	if err != nil {
		return nil, err
	}
	ev := &exprEval{root: root, o: testOptions, status: func(name string) bool {
		return name != "failure" && name != "cancelled"
	}}
	v, err := ev.eval(n)
	if f, ok := v.(filtered); ok {
		v = []any(f)
	}
	return v, err
}

// envRoot is the root of an evaluation whose env holds vars and whose
// steps are none.
func envRoot(vars map[string]string) map[string]any {
	env := map[string]any{}
	for k, v := range vars {
		env[k] = v
	}
	return map[string]any{"steps": map[string]any{}, "env": env}
}

// TestExprGitHub is GitHub's expression semantics, from the examples of
// "Evaluate expressions in workflows and actions" (literals, operators,
// the loose comparison table, functions, object filters) and the issue's
// cases.
func TestExprGitHub(t *testing.T) {
	st := map[string]any{
		"env": map[string]any{"REF": "refs/heads/main", "TIME": "3", "EMPTY": ""},
		"steps": map[string]any{
			"quota": Value(map[string]any{"outcome": "success", "class": "", "found": true, "outputs": map[string]any{"left": "3", "zero": "0", "n": "ten", "count": 3}}),
			"build": Value(map[string]any{"outcome": "failure", "class": "transient", "found": false, "outputs": map[string]any{}}),
		},
	}
	fruits := `fromJSON('[{"name":"apple","quantity":1},{"name":"orange","quantity":2},{"name":"pear","quantity":1}]')`
	tests := []struct {
		src  string
		want any
	}{
		// literals
		{"null", nil},
		{"false", false},
		{"711", 711.0},
		{"-9.2", -9.2},
		{"0xff", 255.0},
		{"-2.99e-2", -0.0299},
		{"'It''s open source!'", "It's open source!"},
		{`"double quotes, as today's files write them"`, "double quotes, as today's files write them"},
		{`"a \"quoted\" word"`, `a "quoted" word`},
		{"${{ 1 == 1 }}", true},
		// operators
		{"(1 < 2) && (2 <= 2) && (3 > 2) && (3 >= 3)", true},
		{"!true", false},
		{"!(1 == 2)", true},
		{"1 == 1 && 2 != 1", true},
		{"false || 1 == 1", true},
		{"fromJSON('[10, 20]')[1]", 20.0},
		{"fromJSON('{\"a\": {\"b\": 1}}')['a'].b", 1.0},
		{"fromJSON('{\"Key\": 1}').key", 1.0},
		// strings compare case-blind
		{"'ABC' == 'abc'", true},
		{"'abc' < 'abd'", true},
		{"'B' > 'a'", true},
		{"'success' == \"SUCCESS\"", true},
		// loose comparison: different types compare as numbers
		{"'0' > 0", false},
		{"'1' == 1", true},
		{"' 1 ' == 1", true},
		{"'0x10' == 16", true},
		{"'1e2' == 100", true},
		{"null == 0", true},
		{"false == 0", true},
		{"true == 1", true},
		{"true == 2", false},
		{"'' == 0", true},
		{"'' == null", true},
		{"'abc' == 0", false},
		{"'abc' != 0", true},
		{"'abc' < 1", false},
		{"'abc' >= 1", false},
		{"fromJSON('[]') == 0", false},
		{"fromJSON('[]') == fromJSON('[]')", false},
		{"steps.quota.outputs == steps.quota.outputs", true},
		{"null == null", true},
		{"null < 1", true},
		// step outputs are strings: the case
		{"steps.quota.outputs.left > 0", true},
		{"steps.quota.outputs.zero > 0", false},
		{"steps.quota.outputs.n > 0", false},
		{"steps.quota.outputs.count == '3'", true},
		{"steps.quota.outputs.missing == null", true},
		{"steps.nope.outcome == null", true},
		{"steps.build.class == 'TRANSIENT'", true},
		{"steps.quota.found", true},
		// && and || give an operand
		{"env.REF == 'refs/heads/main' && 'value_for_main_branch' || 'value_for_other_branches'", "value_for_main_branch"},
		{"env.REF == 'refs/heads/dev' && 'value_for_main_branch' || 'value_for_other_branches'", "value_for_other_branches"},
		{"null && 'x'", nil},
		{"'' || 'b'", "b"},
		{"0 || null", nil},
		{"'a' && 0", 0.0},
		{"1 && 2 && 3", 3.0},
		{"env.EMPTY || 'default'", "default"},
		// truthiness
		{"!''", true},
		{"!'0'", false},
		{"!0", true},
		{"!-0", true},
		{"!null", true},
		{"!fromJSON('[]')", false},
		{"!fromJSON('{}')", false},
		{"!steps.quota.outputs.n", false},
		// functions
		{"contains('Hello world', 'llo')", true},
		{"contains('Hello world', 'LLO')", true},
		{"contains(fromJSON('[\"push\", \"pull_request\"]'), 'push')", true},
		{"contains(fromJSON('[\"Chris\",\"Michael\"]'), 'chris')", true},
		{"contains(fromJSON('[1, 2]'), '2')", true},
		{"contains(fromJSON('[1, 2]'), 3)", false},
		{"startsWith('Hello world', 'He')", true},
		{"startsWith('Hello world', 'he')", true},
		{"startsWith('Hello world', 'wo')", false},
		{"endsWith('Hello world', 'ld')", true},
		{"endsWith('Hello world', 'LD')", true},
		{"format('Hello {0} {1} {2}', 'Mona', 'the', 'Octocat')", "Hello Mona the Octocat"},
		{"format('{{Hello {0} {1} {2}!}}', 'Mona', 'the', 'Octocat')", "{Hello Mona the Octocat!}"},
		{"format('{0} {1} {2} {3}', null, true, 1.5, fromJSON('[]'))", " true 1.5 Array"},
		{"join(fromJSON('[\"bug\",\"help wanted\"]'), ', ')", "bug, help wanted"},
		{"join(fromJSON('[1, 2]'))", "1,2"},
		{"join('abc')", "abc"},
		{"toJSON(fromJSON('{\"a\": [1, true, null]}'))", "{\n  \"a\": [\n    1,\n    true,\n    null\n  ]\n}"},
		{"toJSON('x')", `"x"`},
		{"fromJSON('true')", true},
		{"fromJSON(env.TIME) == 3", true},
		{"fromJSON('{\"include\":[{\"project\":\"foo\",\"config\":\"Debug\"}]}').include[0].project", "foo"},
		{"fromJson('1') == 1 && TOJSON(1) == '1' && Contains('a', 'A')", true},
		// object filters
		{fruits + ".*.name", []any{"apple", "orange", "pear"}},
		{"contains(" + fruits + ".*.name, 'orange')", true},
		{"join(" + fruits + ".*.name, ', ')", "apple, orange, pear"},
		{"join(" + fruits + "[*].quantity, '+')", "1+2+1"},
		{"join(steps.*.outcome, ',')", "failure,success"},
		// status functions
		{"success()", true},
		{"always()", true},
		{"failure()", false},
		{"!cancelled()", true},
	}
	for _, tt := range tests {
		got, err := evalExpr(t, tt.src, st)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if g, ok := got.(float64); ok && math.IsNaN(g) {
			t.Errorf("%s = NaN, want %#v", tt.src, tt.want)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.src, got, tt.want)
		}
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"1 ==", "unexpected end of the expression"},
		{"(1", "want )"},
		{"'open", "not closed"},
		{"a = b", `unexpected "="`},
		{"1 = 1", `unexpected "="`},
		{"1 + 1", `unexpected "+"`},
		{"x ? 1 : 2", `unexpected "?"`},
		{"success() and always()", `"and" is not an operator`},
		{"hashFiles('x')", "unknown function hashFiles()"},
		{"format()", "format() takes at least 1 argument(s), not 0"},
		{"join(1, 2, 3)", "join() takes 1 or 2 argument(s), not 3"},
		{"steps.", "after ."},
		{"env.X == nil", `unknown name "nil"`},
		{"12abc", "a number followed by"},
		{strings.Repeat("(", MaxDepth+1) + "1" + strings.Repeat(")", MaxDepth+1), "deeper than the limit of 50"},
		{strings.Repeat("!", MaxDepth+1) + "1", "deeper than the limit of 50"},
		{strings.Repeat("1 == ", MaxDepth+1) + "1", "deeper than the limit of 50"},
		{"env" + strings.Repeat(".a", MaxDepth+1), "deeper than the limit of 50"},
		{"env" + strings.Repeat("[0]", MaxDepth+1), "deeper than the limit of 50"},
		{strings.Repeat("x", MaxBytes+1), "longer than the limit of 21000 bytes"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src, testOptions)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%.60s: error %v, want %q", tt.src, err, tt.msg)
		}
	}
	// the limits themselves parse
	for _, src := range []string{
		strings.Repeat("(", MaxDepth) + "1" + strings.Repeat(")", MaxDepth),
		strings.Repeat("!", MaxDepth) + "1",
		"env" + strings.Repeat(".a", MaxDepth),
		strings.Repeat("1 || ", (MaxBytes-1)/5) + "1",
	} {
		if _, err := Parse(src, testOptions); err != nil {
			t.Errorf("%.60s: %v", src, err)
		}
	}
}

func TestExprEvalErrors(t *testing.T) {
	big := "format('{0}{0}{0}{0}{0}{0}{0}{0}', " + strings.Repeat("format('{0}{0}{0}{0}{0}{0}{0}{0}', ", 8) + "'xxxxxxxx'" + strings.Repeat(")", 9)
	tests := []struct{ src, msg string }{
		{"fromJSON('{')", "is not JSON"},
		{"fromJSON('1 2')", "is not one JSON value"},
		{"format('{0')", "is not closed"},
		{"format('{1}', 'a')", "names no argument"},
		{"format('{x}')", "is not an argument's index"},
		{"format('}')", "closes nothing"},
		{big, "longer than the limit of 1048576 bytes"},
	}
	for _, tt := range tests {
		_, err := evalExpr(t, tt.src, envRoot(nil))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%.60s: error %v, want %q", tt.src, err, tt.msg)
		}
	}
}
