package codes

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		str     string
		wantErr bool
	}{
		{"", nil, "", false},
		{" 1, 3-5 ,4", []int{1, 3, 4, 5}, "1,3-5", false},
		{"7", []int{7}, "7", false},
		{"3,1,2", []int{1, 2, 3}, "1-3", false},
		{"10-20,5-9,30,21", append(seq(5, 21), 30), "5-21,30", false},
		{"1-3,7-9,2-8", seq(1, 9), "1-9", false},
		{"5,5,5", []int{5}, "5", false},
		{"0-255,4", seq(0, 255), "0-255", false},
		{"5-3", nil, "", true},
		{"256", nil, "", true},
		{"-1", nil, "", true},
		{"+2", nil, "", true},
		{"1,,2", nil, "", true},
		{"1,", nil, "", true},
		{"x", nil, "", true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, 0, 255, "exit code")
		if (err != nil) != tt.wantErr || !slices.Equal(got.Ints(), tt.want) || got.String() != tt.str {
			t.Errorf("Parse(%q) = %v (%q), %v; want %v (%q), err %v", tt.in, got.Ints(), got.String(), err, tt.want, tt.str, tt.wantErr)
		}
		for c := -1; c <= 256; c++ {
			if got.Has(c) != slices.Contains(tt.want, c) {
				t.Errorf("Parse(%q).Has(%d) = %v", tt.in, c, got.Has(c))
			}
		}
	}
}

func seq(lo, hi int) []int {
	var out []int
	for c := lo; c <= hi; c++ {
		out = append(out, c)
	}
	return out
}

// TestParseKeepsRanges: 15,000 wide ranges (120 KB of text) parse into one
// range in well under 1 MiB; disjoint codes stay bounded by the domain.
func TestParseKeepsRanges(t *testing.T) {
	for _, tc := range []struct {
		in       string
		wantLen  int
		wantText string
	}{
		{strings.TrimSuffix(strings.Repeat("100-599,", 15000), ","), 1, "100-599"},
		{strings.TrimSuffix(strings.Repeat("101,103,105,", 5000), ","), 3, "101,103,105"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := Parse(tc.in, 100, 599, "HTTP status")
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("parsing %d bytes allocated %d KiB, want under 1 MiB", len(tc.in), alloc>>10)
		}
		if len(got) != tc.wantLen || got.String() != tc.wantText {
			t.Errorf("got %d ranges %q, want %d %q", len(got), got.String(), tc.wantLen, tc.wantText)
		}
	}
}

func BenchmarkParseManyRanges(b *testing.B) {
	in := strings.TrimSuffix(strings.Repeat("100-599,", 15000), ",")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(in, 100, 599, "HTTP status"); err != nil {
			b.Fatal(err)
		}
	}
}
