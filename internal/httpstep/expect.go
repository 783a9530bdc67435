package httpstep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/codes"
)

// Expect is the set of statuses that count as success; empty means any 2xx.
type Expect []int

// ParseExpect parses a comma-separated list of statuses and ranges such as
// "200,201" or "200-299,304"; "" means any 2xx.
func ParseExpect(s string) (Expect, error) {
	out, err := codes.Parse(s, 100, 599, "HTTP status")
	if err != nil {
		return nil, fmt.Errorf("invalid --expect %q: %w", s, err)
	}
	return out, nil
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
