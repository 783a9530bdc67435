package httpstep

import (
	"runtime"
	"strings"
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

// TestParseExpectKeepsRanges: --expect of 15,000 ranges (120 KB) is parsed
// fast and small, ranges kept as ranges, not expanded into every status.
func TestParseExpectKeepsRanges(t *testing.T) {
	in := strings.TrimSuffix(strings.Repeat("100-599,", 15000), ",")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, err := ParseExpect(in)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("parsing allocated %d KiB, want under 1 MiB", alloc>>10)
	}
	if !e.Has(100) || !e.Has(599) || e.Has(600) || e.String() != "100-599" {
		t.Errorf("set = %s", e.String())
	}
	if n := len(e); n > 1 {
		t.Errorf("the set holds %d elements, want one range", n)
	}
}
