package cli

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// pluralOfOne is a count of one with a plural noun, or a "(s)" plural:
// "1 consecutive failures", "1 times", "attempt(s)".
var pluralOfOne = regexp.MustCompile(`\b1 (?:consecutive )?(?:failures|times|attempts|requests|hosts|steps|jobs)\b|[a-z]\(s\)`)

// TestCountsSingularBreakerOfOne: a breaker that opens after one failure
// (--breaker-threshold 1) says "after 1 failure" and "failed once", never
// "1 consecutive failures" or "1 times"; three say "3 consecutive failures"
// and "3 times in a row".
func TestCountsSingularBreakerOfOne(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	for _, tc := range []struct {
		threshold string
		want      []string
	}{
		{"1", []string{"after 1 failure:", "the host failed once in this run"}},
		{"3", []string{"after 3 consecutive failures:", "the host failed 3 times in a row in this run"}},
	} {
		p := newProc(t)
		r := p.run("http", "--breaker-threshold", tc.threshold, "--schedule", "1s", "--max-attempts", "5", srv.URL+"/api")
		if r.code != exitcode.Transient {
			t.Fatalf("threshold %s: exit %d, want %d\n%s", tc.threshold, r.code, exitcode.Transient, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("threshold %s: the report does not say %q:\n%s", tc.threshold, w, r.stderr)
			}
		}
		if m := pluralOfOne.FindString(r.stderr); m != "" {
			t.Errorf("threshold %s: %q in:\n%s", tc.threshold, m, r.stderr)
		}
	}
}
