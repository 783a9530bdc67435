package codes

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"", nil, false},
		{" 1, 3-5 ,4", []int{1, 3, 4, 5}, false},
		{"7", []int{7}, false},
		{"5-3", nil, true},
		{"256", nil, true},
		{"-1", nil, true},
		{"+2", nil, true},
		{"1,,2", nil, true},
		{"x", nil, true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, 0, 255, "exit code")
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
