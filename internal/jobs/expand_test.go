package jobs

import (
	"encoding/json"
	"errors"
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
		{in: "${steps.quota.outputs.none}", want: "null"},
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

func TestFormatOutput(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"s", "s"},
		{json.Number("12"), "12"},
		{nil, "null"},
		{false, "false"},
		{3.25, "3.25"},
		{map[string]any{}, "{}"},
		{[]any{}, "[]"},
	}
	for _, tt := range tests {
		if got := FormatOutput(tt.v); got != tt.want {
			t.Errorf("FormatOutput(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
