package cli

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestManyAttemptsBoundedOutput: 500 forced attempts print the first ten
// progress lines, then one per ten attempts up to 100 and one per hundred
// after that (closed by the attempt before the last); the closing report lists the
// first and last few attempts and counts the rest; the JSON report has all.
func TestManyAttemptsBoundedOutput(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { w.WriteHeader(http.StatusServiceUnavailable) })
	rep := filepath.Join(t.TempDir(), "r.json")
	r := newProc(t).run("http", "--schedule", "1s", "--max-attempts", "500", "--max-attempts-force", "--max-elapsed", "24h", "--breaker-threshold", "0", "--report", rep, srv.URL)
	if r.code != exitcode.Transient || srv.hits.Load() != 500 {
		t.Fatalf("exit %d after %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	progress, listed := 0, 0
	for _, l := range lines {
		if strings.HasPrefix(l, "retrywise: attempt") {
			progress++
		}
		if strings.HasPrefix(strings.TrimSpace(l), "attempt:") {
			listed++
		}
	}
	if len(lines) > 60 || progress != 10+9+4 {
		t.Errorf("stderr has %d lines, %d of them progress; want a bounded stderr", len(lines), progress)
	}
	if listed > 12 || !strings.Contains(r.stderr, "490 more attempts") {
		t.Errorf("the report lists %d attempts; want the first and last few and a count:\n%s", listed, r.stderr)
	}
	for _, want := range []string{"retrywise: attempt 10/500 failed", "retrywise: attempts 11-20/500 failed", "retrywise: attempts 101-200/500 failed", "retrywise: attempts 401-499/500 failed"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	got, _ := readReport(t, rep)
	if len(got.Attempts) != 500 || got.Attempts[499].N != 500 {
		t.Errorf("the JSON report has %d attempts, want all 500", len(got.Attempts))
	}
}
