package httpstep

import (
	"fmt"

	"github.com/retrywise/retrywise/internal/codes"
)

// Expect is the set of statuses that count as success, kept as ranges;
// empty means any 2xx.
type Expect codes.Set

// ParseExpect parses a comma-separated list of statuses and ranges such as
// "200,201" or "200-299,304"; "" means any 2xx.
func ParseExpect(s string) (Expect, error) {
	out, err := codes.Parse(s, 100, 599, "HTTP status")
	if err != nil {
		return nil, fmt.Errorf("invalid --expect %q: %w", s, err)
	}
	return Expect(out), nil
}

// Has reports whether status counts as success.
func (e Expect) Has(status int) bool {
	if len(e) == 0 {
		return status >= 200 && status < 300
	}
	return codes.Set(e).Has(status)
}

// String renders the set for messages: "any 2xx" or "200-201,304".
func (e Expect) String() string {
	if len(e) == 0 {
		return "any 2xx"
	}
	return codes.Set(e).String()
}
