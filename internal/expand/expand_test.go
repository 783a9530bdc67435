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

func TestRefs(t *testing.T) {
	tests := []struct {
		in     string
		want   []Ref
		syntax bool
	}{
		{in: "no refs"},
		{in: "$$ and $${X} are literal, $ alone too"},
		{in: "a ${X} b", want: []Ref{{Name: "X", Offset: 2, End: 6}}},
		{in: "${steps.q.outputs.n}-${}", want: []Ref{{Name: "steps.q.outputs.n", Offset: 0, End: 20}, {Name: "", Offset: 21, End: 24}}},
		{in: "$$${A}", want: []Ref{{Name: "A", Offset: 2, End: 6}}},
		{in: "ok ${A} then ${B", syntax: true},
	}
	for _, tt := range tests {
		got, err := Refs(tt.in)
		var se *SyntaxError
		if tt.syntax {
			if !errors.As(err, &se) || se.Offset != 13 {
				t.Errorf("%q: err %v, want a syntax error at byte 13", tt.in, err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("%q = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: ref %d = %+v, want %+v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func TestFunc(t *testing.T) {
	boom := errors.New("boom")
	value := func(r Ref) (string, error) {
		if r.Name == "bad" {
			return "", boom
		}
		return "<" + r.Name + ">", nil
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{in: "a ${x.y} $$ ${z}", want: "a <x.y> $ <z>"},
		{in: "${bad}", err: boom},
	}
	for _, tt := range tests {
		got, err := Func(tt.in, value)
		if err != tt.err || got != tt.want {
			t.Errorf("%q = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
