// Package codes parses comma-separated lists of numeric codes and ranges, such
// as exit statuses ("1,3-5") and HTTP statuses ("200,201,300-399").
package codes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Parse returns the sorted, distinct codes of a list such as "1,2,5-7"; every
// code must lie in [lo, hi]. Blank input gives no codes. noun names one code
// in errors ("exit code", "HTTP status").
func Parse(s string, lo, hi int, noun string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	one := func(v string) (int, error) {
		v = strings.TrimSpace(v)
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi || v == "" || v[0] == '+' {
			return 0, fmt.Errorf("%q is not an %s (%d-%d)", v, noun, lo, hi)
		}
		return n, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		first, last, isRange := strings.Cut(part, "-")
		a, err := one(first)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = one(last); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %q runs backwards", part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
