package report

import (
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// TestRemedyOverCapDoesNotSayWaiting: a rate limit whose asked-for wait is
// over retry-after-cap stopped the loop, so its remedy does not say that
// retrywise is waiting as the server asked: it says when to run the step
// again, or which setting would let it wait. A rate limit that exhausted the
// attempts keeps the remedy.
func TestRemedyOverCapDoesNotSayWaiting(t *testing.T) {
	f := failure.New(failure.Transient, failure.HTTPCode(429), "rate limited (HTTP 429 Too Many Requests)", failure.RemedyRateLimit, "HTTP 429 Too Many Requests")
	f.RetryAfter = 24 * time.Hour
	a := retry.Attempt{N: 1, Start: start, Duration: time.Millisecond, Class: failure.Transient, Reason: f.Reason}
	out := &retry.Outcome{Policy: policy(), Stop: retry.StopRetryAfterOverCap, Final: f, Attempts: []retry.Attempt{a},
		Detail: "the server asked to wait 24h0m0s, over the retry-after cap of 5m0s"}
	r := New("http", "GET https://api.example.com/quota", out, exitcode.Transient)
	if strings.Contains(r.Remedy, "waiting as the server asked") || !strings.Contains(r.Remedy, "retry-after-cap") {
		t.Errorf("over the cap, the remedy is %q", r.Remedy)
	}
	out.Stop, out.Detail = retry.StopAttemptsExhausted, "all 4 attempts failed"
	out.Attempts = []retry.Attempt{a, a, a, a}
	if r := New("http", "GET https://api.example.com/quota", out, exitcode.Transient); r.Remedy != failure.RemedyRateLimit {
		t.Errorf("attempts exhausted, the remedy is %q, want %q", r.Remedy, failure.RemedyRateLimit)
	}
}
