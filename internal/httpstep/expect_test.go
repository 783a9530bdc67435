package httpstep

import (
	"testing"
)

func TestParseExpect(t *testing.T) {
	tests := []struct {
		in      string
		has     []int
		hasNot  []int
		str     string
		wantErr bool
	}{
		{in: "", has: []int{200, 204, 299}, hasNot: []int{199, 300, 404}, str: "any 2xx"},
		{in: "200,201", has: []int{200, 201}, hasNot: []int{202, 204}, str: "200-201"},
		{in: "200, 404", has: []int{200, 404}, hasNot: []int{201}, str: "200,404"},
		{in: "200-204,304", has: []int{200, 203, 304}, hasNot: []int{205}, str: "200-204,304"},
		{in: "2xx", wantErr: true},
		{in: "99", wantErr: true},
		{in: "600", wantErr: true},
		{in: "204-200", wantErr: true},
		{in: "+200", wantErr: true},
	}
	for _, tt := range tests {
		e, err := ParseExpect(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseExpect(%q) error %v", tt.in, err)
			continue
		}
		if err != nil {
			continue
		}
		for _, c := range tt.has {
			if !e.Has(c) {
				t.Errorf("%q does not have %d", tt.in, c)
			}
		}
		for _, c := range tt.hasNot {
			if e.Has(c) {
				t.Errorf("%q has %d", tt.in, c)
			}
		}
		if e.String() != tt.str {
			t.Errorf("%q.String() = %q, want %q", tt.in, e.String(), tt.str)
		}
	}
}
