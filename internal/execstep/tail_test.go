package execstep

import (
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/redact"
)

// TestTailMarksItsCut: once older output is dropped, the kept tail starts
// with the cut mark, and the redactor masks the part of a secret the cut
// left at its start.
func TestTailMarksItsCut(t *testing.T) {
	const secret = "ghp_TailCutSecretValue0123456789abcd"
	red := redact.New(redact.Options{Values: []string{secret}})
	for cut := 4; cut < len(secret)-3; cut++ {
		tl := newTail(64)
		tl.Write([]byte(strings.Repeat("x", 10) + secret[:cut]))
		tl.Write([]byte(secret[cut:] + " " + strings.Repeat("y", 64-len(secret)+cut-1)))
		got := tl.String()
		if !strings.HasPrefix(got, redact.Cut) {
			t.Fatalf("cut %d: no cut mark: %q", cut, got)
		}
		if masked := red.String(got); strings.Contains(masked, secret[len(secret)-3:]) {
			t.Errorf("cut %d: the masked tail shows the secret's end: %q", cut, masked)
		}
	}
	tl := newTail(64)
	tl.Write([]byte("short"))
	if got := tl.String(); got != "short" {
		t.Errorf("an uncut tail = %q", got)
	}
	tl.Write([]byte(strings.Repeat("z", 100)))
	tl.Reset()
	tl.Write([]byte("again"))
	if got := tl.String(); got != "again" {
		t.Errorf("after Reset = %q", got)
	}
}
