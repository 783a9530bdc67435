package explain

import (
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/redact"
)

// TestTailMarksAMidLineCut: a tail that keeps no whole line starts inside
// one, and says so with redact.Cut, so that the redactor masks the end of a
// secret the cut left; a tail from a line's start is as it was written.
func TestTailMarksAMidLineCut(t *testing.T) {
	const secret = "Q7vK2mX9pL4wR8tY3bN6cJ5hF1dG7sA2eU9oI4uV8xW3qM6nB1kH5jD9gP"
	r := redact.New(redact.Options{Env: []string{"API_TOKEN=" + secret}})
	for _, tt := range []struct {
		writes []string
		want   string
	}{
		{[]string{"token " + secret + " rejected"}, redact.Cut + secret[len(secret)-20:] + " rejected"},
		{[]string{"token " + secret + " rejected\n"}, redact.Cut + secret[len(secret)-19:] + " rejected\n"},
		{[]string{"first line that is long\n", "second line\n"}, "second line\n"},
		{[]string{"x\n", strings.Repeat("y", 29)}, strings.Repeat("y", 29)},
	} {
		tl := NewTail(29)
		for _, w := range tt.writes {
			tl.Write([]byte(w))
		}
		got := tl.String()
		if got != tt.want {
			t.Errorf("%q: String() = %q, want %q", tt.writes, got, tt.want)
		}
		if masked := r.String(got); strings.Contains(masked, secret[len(secret)-10:]) {
			t.Errorf("%q: masked %q still shows the secret's end", tt.writes, masked)
		}
	}
}
