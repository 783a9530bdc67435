package expand

import (
	"errors"
	"testing"
)

func TestString(t *testing.T) {
	lookup := EnvLookup([]string{"HOST=api.example.com", "EMPTY=", "TOKEN=abc", "TOKEN=def", "N_1=x"})
	tests := []struct {
		in, want string
		unset    string // the *UnsetError's name, or ""
		syntax   bool
	}{
		{in: "https://${HOST}/x", want: "https://api.example.com/x"},
		{in: "no dollars", want: "no dollars"},
		{in: "Bearer ${TOKEN}", want: "Bearer def"},
		{in: "${EMPTY}", want: ""},
		{in: "price: $$5 and $$${N_1}", want: "price: $5 and $x"},
		{in: "$HOME stays, a $ alone stays, trailing $", want: "$HOME stays, a $ alone stays, trailing $"},
		{in: "$${HOST}", want: "${HOST}"},
		{in: "${MISSING}", unset: "MISSING"},
		{in: "a ${HOST} b ${NOPE}", unset: "NOPE"},
		{in: "${HOST", syntax: true},
		{in: "${}", syntax: true},
		{in: "${1X}", syntax: true},
		{in: "${A-B}", syntax: true},
	}
	for _, tt := range tests {
		got, err := String(tt.in, lookup)
		var ue *UnsetError
		var se *SyntaxError
		switch {
		case tt.unset != "":
			if !errors.As(err, &ue) || ue.Name != tt.unset {
				t.Errorf("%q: err %v, want unset %s", tt.in, err, tt.unset)
			} else if ue.Error() != "${"+tt.unset+"} is not set" {
				t.Errorf("%q: message %q", tt.in, ue.Error())
			}
		case tt.syntax:
			if !errors.As(err, &se) {
				t.Errorf("%q: err %v, want a syntax error", tt.in, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
