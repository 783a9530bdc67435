package cli

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
)

// TestHTTPRateLimitWindow: the http step reads a spent limit's reset from
// the answer's headers, measured from the answer's Date (the server's
// clock: here the real one, while the loop's clock is a fake of 2026), and
// judges it against the step's whole --max-elapsed: a reset within it is
// waited for; a reset further away stops at once as policy (exit 77),
// naming the reset and when to run again.
func TestHTTPRateLimitWindow(t *testing.T) {
	limited := func(wait time.Duration) func(w http.ResponseWriter, r *http.Request, n int64) {
		return func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				served := time.Now().UTC().Truncate(time.Second)
				w.Header().Set("Date", served.Format(http.TimeFormat))
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", fmt.Sprint(served.Add(wait).Unix()))
				http.Error(w, `{"message":"API rate limit exceeded"}`, http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, "ok")
		}
	}
	t.Run("a reset within the max elapsed is waited for", func(t *testing.T) {
		srv := newServer(t, limited(4*time.Minute))
		r := newProc(t).run("http", "--schedule", "1s", srv.URL)
		if r.code != exitcode.OK || !slices.Equal(r.waits, []time.Duration{4 * time.Minute}) {
			t.Fatalf("exit %d, waits %v\n%s", r.code, r.waits, r.stderr)
		}
	})
	t.Run("a reset six hours away stops as policy", func(t *testing.T) {
		srv := newServer(t, limited(6*time.Hour))
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t).run("http", "--report", rep, srv.URL)
		if r.code != exitcode.Policy || srv.hits.Load() != 1 || len(r.waits) != 0 {
			t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
		}
		got, raw := readReport(t, rep)
		if got.Class != failure.Policy || got.Code != failure.CodeRateLimitWindow || !strings.Contains(got.Reason, "(in 6h)") || !strings.Contains(got.Reason, "max elapsed of 15m") || !strings.Contains(got.Remedy, "run again after ") {
			t.Errorf("report:\n%s", raw)
		}
	})
	t.Run("a longer --max-elapsed makes six hours a wait (over the cap: 75)", func(t *testing.T) {
		srv := newServer(t, limited(6*time.Hour))
		r := newProc(t).run("http", "--max-elapsed", "8h", srv.URL)
		if r.code != exitcode.Transient || len(r.waits) != 0 || !strings.Contains(r.stderr, "retry-after cap") {
			t.Fatalf("exit %d, waits %v\n%s", r.code, r.waits, r.stderr)
		}
	})
}
