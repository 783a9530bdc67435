package httpstep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Expect is the set of statuses that count as success; empty means any 2xx.
type Expect []int

// ParseExpect parses a comma-separated list of statuses and ranges such as
// "200,201" or "200-299,304"; "" means any 2xx.
func ParseExpect(s string) (Expect, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Expect
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := parseStatus(lo)
		if err != nil {
			return nil, fmt.Errorf("invalid --expect %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = parseStatus(hi); err != nil {
				return nil, fmt.Errorf("invalid --expect %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("invalid --expect %q: range %q runs backwards", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseStatus(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 || s[0] == '+' {
		return 0, fmt.Errorf("%q is not an HTTP status (100-599)", s)
	}
	return n, nil
}

// Has reports whether status counts as success.
func (e Expect) Has(status int) bool {
	if len(e) == 0 {
		return status >= 200 && status < 300
	}
	_, ok := slices.BinarySearch(e, status)
	return ok
}

// String renders the set for messages: "any 2xx" or "200,201".
func (e Expect) String() string {
	if len(e) == 0 {
		return "any 2xx"
	}
	var s []string
	for i := 0; i < len(e); {
		j := i
		for j+1 < len(e) && e[j+1] == e[j]+1 {
			j++
		}
		if j > i {
			s = append(s, strconv.Itoa(e[i])+"-"+strconv.Itoa(e[j]))
		} else {
			s = append(s, strconv.Itoa(e[i]))
		}
		i = j + 1
	}
	return strings.Join(s, ",")
}
