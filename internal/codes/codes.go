// Package codes parses comma-separated lists of numeric codes and ranges, such
// as exit statuses ("1,3-5") and HTTP statuses ("200,201,300-399"), into sets
// that keep ranges as ranges: a list's size, not its ranges' widths, bounds
// the work and the memory.
package codes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Range is the codes from Lo to Hi, both included.
type Range struct{ Lo, Hi int }

// Set is a set of codes: sorted ranges that neither overlap nor touch.
// Its length is at most half the width of the domain it was parsed in.
type Set []Range

// Has reports whether c is in the set.
func (s Set) Has(c int) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].Hi >= c })
	return i < len(s) && s[i].Lo <= c
}

// Ints returns every code of the set in order; for small domains (exit codes).
func (s Set) Ints() []int {
	var out []int
	for _, r := range s {
		for c := r.Lo; c <= r.Hi; c++ {
			out = append(out, c)
		}
	}
	return out
}

// String renders the set as "200-299,304"; "" when empty.
func (s Set) String() string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.Lo))
		if r.Hi > r.Lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.Hi))
		}
	}
	return b.String()
}

// add merges r into the set, joining the ranges it overlaps or touches.
func (s Set) add(r Range) Set {
	i := sort.Search(len(s), func(i int) bool { return s[i].Hi+1 >= r.Lo })
	j := sort.Search(len(s), func(j int) bool { return s[j].Lo > r.Hi+1 })
	if i < j {
		r.Lo, r.Hi = min(r.Lo, s[i].Lo), max(r.Hi, s[j-1].Hi)
	}
	if i == j {
		s = append(s, Range{})
		copy(s[i+1:], s[i:])
		s[i] = r
		return s
	}
	s[i] = r
	return append(s[:i+1], s[j:]...)
}

// Parse returns the set of a list such as "1,2,5-7"; every code must lie in
// [lo, hi]. Blank input gives the empty set. noun names one code in errors
// ("exit code", "HTTP status").
func Parse(s string, lo, hi int, noun string) (Set, error) {
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
	var out Set
	for rest, more := s, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
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
		out = out.add(Range{a, b})
	}
	return out, nil
}
