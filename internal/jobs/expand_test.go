package jobs

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/retrywise/retrywise/internal/expand"
)

func TestExpandValue(t *testing.T) {
	st := State{
		Env: map[string]string{"HOST": "dev.to", "EMPTY": ""},
		Steps: map[string]StepState{
			"quota": {Outcome: "success", Outputs: map[string]any{
				"count":  json.Number("3"),
				"ratio":  0.5,
				"whole":  float64(10),
				"int":    7,
				"ok":     true,
				"none":   nil,
				"name":   "a <b> & c",
				"obj":    map[string]any{"b": 1.0, "a": "<x>"},
				"list":   []any{1.0, "two", nil},
				"number": json.Number("1e3"),
				"big":    12345678901234567890.0,
				"tiny":   1e-6,
				"no":     false,
			}},
		},
	}
	tests := []struct {
		in, want string
		unset    string // the *expand.UnsetError's name
		syntax   bool
	}{
		{in: "https://${HOST}/api", want: "https://dev.to/api"},
		{in: "[${EMPTY}]", want: "[]"},
		{in: "no refs", want: "no refs"},
		{in: "$$5 and $${HOST}", want: "$5 and ${HOST}"},
		{in: "${steps.quota.outputs.count}", want: "3"},
		{in: "${steps.quota.outputs.ratio}", want: "0.5"},
		{in: "${steps.quota.outputs.whole}", want: "10"},
		{in: "${steps.quota.outputs.int}", want: "7"},
		{in: "${steps.quota.outputs.ok}", want: "true"},
		{in: "${steps.quota.outputs.none}", want: ""},
		{in: "${steps.quota.outputs.big}", want: "1.23456789012346E+19"},
		{in: "${steps.quota.outputs.tiny}", want: "1E-06"},
		{in: "${steps.quota.outputs.no}", want: "false"},
		{in: "${steps.quota.outputs.name}", want: "a <b> & c"},
		{in: "${steps.quota.outputs.obj}", want: `{"a":"<x>","b":1}`},
		{in: "${steps.quota.outputs.list}", want: `[1,"two",null]`},
		{in: "${steps.quota.outputs.number}", want: "1e3"},
		{in: "n=${steps.quota.outputs.count}, host=${HOST}", want: "n=3, host=dev.to"},
		{in: "${MISSING}", unset: "MISSING"},
		{in: "${steps.quota.outputs.nope}", unset: "steps.quota.outputs.nope"},
		{in: "${steps.later.outputs.x}", unset: "steps.later.outputs.x"},
		{in: "${HOST", syntax: true},
		{in: "${steps.quota.count}", syntax: true},
		{in: "${1X}", syntax: true},
	}
	for _, tt := range tests {
		got, err := ExpandValue(tt.in, st)
		var ue *expand.UnsetError
		var se *expand.SyntaxError
		switch {
		case tt.unset != "":
			if !errors.As(err, &ue) || ue.Name != tt.unset || got != "" {
				t.Errorf("%q = %q, %v; want unset %s", tt.in, got, err, tt.unset)
			} else if ue.Error() != "${"+tt.unset+"} is not set" {
				t.Errorf("%q: message %q", tt.in, ue.Error())
			}
		case tt.syntax:
			if !errors.As(err, &se) {
				t.Errorf("%q = %q, %v; want a syntax error", tt.in, got, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestFormatOutput: an output is the string a workflow would see, as
// GitHub's runner converts a value: booleans 'true'/'false', numbers as
// G15 prints them (a JSON number as its text: it stays exact), null ”,
// objects and arrays their compact JSON.
func TestFormatOutput(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // 0.30000000000000004 at run time
	tests := []struct {
		v    any
		want string
	}{
		{"s", "s"},
		{"", ""},
		{json.Number("12"), "12"},
		{json.Number("12345678901234567890"), "12345678901234567890"},
		{nil, ""},
		{false, "false"},
		{true, "true"},
		{3.25, "3.25"},
		{3.0, "3"},
		{7, "7"},
		{int64(-2), "-2"},
		{tenth + fifth, "0.3"},
		{12345678901234567890.0, "1.23456789012346E+19"},
		{3.14159265358979323, "3.14159265358979"},
		{1e15, "1E+15"},
		{1e-5, "1E-05"},
		{1e-6, "1E-06"},
		{math.Copysign(0, -1), "-0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{map[string]any{}, "{}"},
		{map[string]any{"b": 1.0, "a": "<x>"}, `{"a":"<x>","b":1}`},
		{[]any{}, "[]"},
		{[]any{1.0, "two", nil, false}, `[1,"two",null,false]`},
	}
	for _, tt := range tests {
		if got := FormatOutput(tt.v); got != tt.want {
			t.Errorf("FormatOutput(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
