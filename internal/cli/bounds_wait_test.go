package cli

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/retry"
)

// TestHTTPHugeWaitsStopAtOnce: a schedule entry, a Retry-After or an
// X-RateLimit-Reset near the largest duration never makes the loop wait
// for centuries. A schedule entry saturates and crosses --max-elapsed
// (exit 75); a server's wait that long is over the step's whole max
// elapsed, a rate limit the run cannot outwait: policy, exit 77, at once.
func TestHTTPHugeWaitsStopAtOnce(t *testing.T) {
	tests := []struct {
		name     string
		header   http.Header
		status   int
		args     []string
		wantStop retry.Stop
		wantCode int
	}{
		{"largest schedule entry", nil, http.StatusServiceUnavailable, []string{"--schedule", "2562047h47m16.854775807s", "--max-elapsed", "2s"}, retry.StopElapsedExhausted, exitcode.Transient},
		{"Retry-After one second past the largest duration", http.Header{"Retry-After": {"9223372037"}}, http.StatusTooManyRequests, nil, retry.StopNotRetryable, exitcode.Policy},
		{"Retry-After past int64", http.Header{"Retry-After": {"99999999999999999999"}}, http.StatusTooManyRequests, nil, retry.StopNotRetryable, exitcode.Policy},
		{"Retry-After under a huge cap", http.Header{"Retry-After": {"9223372036"}}, http.StatusTooManyRequests, []string{"--retry-after-cap", "2562047h47m16.854775807s"}, retry.StopNotRetryable, exitcode.Policy},
		{"X-RateLimit-Reset under a huge cap", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"9223372036854775807"}}, http.StatusTooManyRequests, []string{"--retry-after-cap", "2562047h47m16.854775807s"}, retry.StopNotRetryable, exitcode.Policy},
		{"X-RateLimit-Reset over the cap", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"9223372036854775807"}}, http.StatusTooManyRequests, nil, retry.StopNotRetryable, exitcode.Policy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProc(t)
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
				p.clk.Advance(time.Second) // the attempt takes time on the loop's clock
				for k, v := range tt.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tt.status)
			})
			rep := filepath.Join(t.TempDir(), "r.json")
			r := p.run(append(append([]string{"http", "--breaker-threshold", "0", "--report", rep}, tt.args...), srv.URL)...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r.stderr)
			}
			if len(r.waits) != 0 || srv.hits.Load() != 1 {
				t.Errorf("waited %v after %d requests; want one request and no wait", r.waits, srv.hits.Load())
			}
			got, _ := readReport(t, rep)
			if got.Stop != tt.wantStop {
				t.Errorf("stop = %s (%s), want %s", got.Stop, got.Detail, tt.wantStop)
			}
		})
	}
}

// TestZeroWaitRepeated: --schedule 0s repeated retries at once the first
// time, then waits retry.MinRepeatWait between the repeats.
func TestZeroWaitRepeated(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { w.WriteHeader(http.StatusServiceUnavailable) })
	r := newProc(t).run("http", "--schedule", "0s", "--max-attempts", "4", "--breaker-threshold", "0", srv.URL)
	want := []time.Duration{0, 100 * time.Millisecond, 100 * time.Millisecond}
	if r.code != exitcode.Transient || fmt.Sprint(r.waits) != fmt.Sprint(want) {
		t.Errorf("exit %d, waits %v; want 75 and %v\n%s", r.code, r.waits, want, r.stderr)
	}
}
