package expr

import "testing"

// TestComparisonAndLiteral: a parsed comparison gives its operator and
// operands, a literal its value, and FormatLiteral writes the value back
// as the expression wrote it; other nodes are not taken for either.
func TestComparisonAndLiteral(t *testing.T) {
	for _, tt := range []struct {
		src      string
		op       string
		ok       bool
		lit, rit string // FormatLiteral of a literal operand, "" for none
	}{
		{"steps.a.outcome == 'succeeded'", "==", true, "", "'succeeded'"},
		{"'It''s' != steps.a.outputs.x", "!=", true, "'It''s'", ""},
		{"steps.a.outputs.n < 10", "<", true, "", "10"},
		{"false >= null", ">=", true, "false", "null"},
		{"true <= -2.5", "<=", true, "true", "-2.5"},
		{"steps.a.outputs.x", "", false, "", ""},
		{"!(1 == 1)", "", false, "", ""},
		{"success() && 1 == 1", "", false, "", ""},
	} {
		n, err := Parse(tt.src, testOptions)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		op, l, r, ok := Comparison(n)
		if ok != tt.ok || op != tt.op {
			t.Errorf("%s: Comparison = %q, %v; want %q, %v", tt.src, op, ok, tt.op, tt.ok)
			continue
		}
		if !ok {
			if _, isLit := Literal(n); isLit {
				t.Errorf("%s: taken for a literal", tt.src)
			}
			continue
		}
		for _, side := range []struct {
			n    Node
			want string
		}{{l, tt.lit}, {r, tt.rit}} {
			v, isLit := Literal(side.n)
			got := ""
			if isLit {
				got = FormatLiteral(v)
			}
			if got != side.want {
				t.Errorf("%s: operand literal %q, want %q", tt.src, got, side.want)
			}
		}
	}
}
