package expr

import (
	"math"
	"testing"
)

// TestFormatNumberG15 is .NET's G15, as the runner prints a number: up to
// 15 significant digits without trailing zeros, scientific (E+XX, E-XX)
// when the exponent is 15 or more or below -4.
func TestFormatNumberG15(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // 0.30000000000000004 at run time
	tests := []struct {
		v    float64
		want string
	}{
		{12345678901234567890, "1.23456789012346E+19"},
		{math.Pi, "3.14159265358979"},
		{tenth + fifth, "0.3"},
		{1e15, "1E+15"},
		{1e14, "100000000000000"},
		{999999999999999, "999999999999999"},
		{9.999999999999999e14, "1E+15"},
		{123456789012345678, "1.23456789012346E+17"},
		{1e-4, "0.0001"},
		{1e-5, "1E-05"},
		{1e-6, "1E-06"},
		{-2.5e-7, "-2.5E-07"},
		{0.000123456, "0.000123456"},
		{1e100, "1E+100"},
		{5e-324, "4.94065645841247E-324"},
		{math.MaxFloat64, "1.79769313486232E+308"},
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{3, "3"},
		{-9.2, "-9.2"},
		{1.5, "1.5"},
		{711, "711"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.v); got != tt.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestNumberKeywords: the runner's lexer reads NaN, Infinity and
// -Infinity as numbers (case as written), and a number becomes a string
// as G15 prints it.
func TestNumberKeywords(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{"NaN == NaN", false},
		{"NaN != NaN", true},
		{"Infinity > 1e308", true},
		{"-Infinity < -1e308", true},
		{"Infinity == fromJSON('1e999')", true},
		{"!NaN", true},
		{"!!Infinity", true},
		{"format('{0} {1} {2}', NaN, Infinity, -Infinity)", "NaN Infinity -Infinity"},
		{"format('{0}', 12345678901234567890)", "1.23456789012346E+19"},
		{"format('{0}', 3.14159265358979323)", "3.14159265358979"},
		{"format('{0}|{1}|{2}', 1e15, 0.00001, 0.0001)", "1E+15|1E-05|0.0001"},
		{"join(fromJSON('[1e15, 0.1, true, null]'), ',')", "1E+15,0.1,true,"},
		{"'1E+15' == 1e15", true},
	}
	for _, tt := range tests {
		got, err := evalExpr(t, tt.src, envRoot(nil))
		if err != nil || got != tt.want {
			t.Errorf("%s = %#v, %v; want %#v", tt.src, got, err, tt.want)
		}
	}
	for _, src := range []string{"nan == 1", "infinity > 1", "INFINITY", "-infinity"} {
		if _, err := Parse(src, testOptions); err == nil {
			t.Errorf("%s: parsed; the runner's keywords are case-sensitive", src)
		}
	}
}
