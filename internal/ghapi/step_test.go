package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// coreAnswer is a GET /rate_limit answer whose core bucket has remaining of
// 5000 and resets at reset; search is full and graphql absent.
func coreAnswer(remaining int, reset time.Time) string {
	return fmt.Sprintf(`{"resources":{"core":{"limit":5000,"used":%d,"remaining":%d,"reset":%d},"search":{"limit":30,"used":0,"remaining":30,"reset":%d}}}`,
		5000-remaining, remaining, reset.Unix(), t0.Add(time.Minute).Unix())
}

// quotaAPI serves answers[n-1] to the n-th request (the last one repeats).
func quotaAPI(t *testing.T, answers ...string) (*Client, *atomic.Int64, string) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answers[min(n, len(answers))-1])
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, &hits, strings.TrimPrefix(srv.URL, "http://")
}

func TestQuotaStepChecksTheBucket(t *testing.T) {
	low := coreAnswer(5, t0.Add(10*time.Minute))
	passed := coreAnswer(5, t0.Add(-time.Second))
	tests := []struct {
		name      string
		answer    string
		resource  Resource
		maxWait   time.Duration
		wantClass string // "" means the read passes
		wantWait  time.Duration
		wantRetry bool
		wantWhy   string
	}{
		{"enough", coreAnswer(4999, t0.Add(time.Hour)), Core, 0, "", 0, false, ""},
		{"exactly the bar", coreAnswer(100, t0.Add(time.Hour)), Core, 0, "", 0, false, ""},
		{"no resource, no check", low, "", 0, "", 0, false, ""},
		{"low, --max-wait 0 never waits", low, Core, 0, "transient", 10 * time.Minute, false, "the reset at 2026-11-30T10:10:00Z is 10m0s away, over --max-wait 0s"},
		{"low, reset within --max-wait", low, Core, 15 * time.Minute, "transient", 10 * time.Minute, true, ""},
		{"low, reset exactly at --max-wait", low, Core, 10 * time.Minute, "transient", 10 * time.Minute, true, ""},
		{"low, reset beyond --max-wait", low, Core, 5 * time.Minute, "transient", 10 * time.Minute, false, "the reset at 2026-11-30T10:10:00Z is 10m0s away, over --max-wait 5m0s"},
		{"low after the reset passed, --max-wait 0", passed, Core, 0, "transient", 0, false, "the reset at 2026-11-30T09:59:59Z has passed but the quota is still low, and --max-wait 0s never waits"},
		{"low after the reset passed, retried on the schedule", passed, Core, time.Minute, "transient", 0, true, ""},
		{"no such bucket", low, GraphQL, time.Hour, "unknown", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := quotaAPI(t, tt.answer)
			s := &QuotaStep{Client: c, Clock: clock.NewFake(t0, false), Resource: tt.resource, MinRemaining: 100, MaxWait: tt.maxWait}
			err := s.Attempt(context.Background(), 1)
			if s.Quota()[Core].Remaining == 0 {
				t.Errorf("the read was not kept: %v", s.Quota())
			}
			if tt.wantClass == "" {
				if err != nil {
					t.Fatalf("Attempt = %v, want the read to pass", err)
				}
				return
			}
			f := failure.FromError(err)
			if f == nil {
				t.Fatalf("Attempt passed, want %s after %s", tt.wantClass, tt.wantWait)
			}
			if f.Class.String() != tt.wantClass || f.RetryAfter != tt.wantWait {
				t.Fatalf("Attempt = %v (retry after %v), want %s after %s", f, f.RetryAfter, tt.wantClass, tt.wantWait)
			}
			if ok, why := s.CanRetry(f); ok != tt.wantRetry || why != tt.wantWhy {
				t.Errorf("CanRetry = %v %q, want %v %q", ok, why, tt.wantRetry, tt.wantWhy)
			}
			var lq *LowQuotaError
			if isLow := errors.As(err, &lq); isLow != (tt.wantClass == "transient") {
				t.Fatalf("LowQuotaError %v for %v", isLow, f)
			} else if isLow && (lq.Resource != Core || lq.Rate.Remaining != 5 || lq.MinRemaining != 100 ||
				!strings.HasPrefix(f.Reason, "GitHub core quota 5 of 5000 is under --min-remaining 100 until its reset at 2026-11-30T")) {
				t.Errorf("low quota %+v reason %q", lq, f.Reason)
			}
		})
	}
}

// TestQuotaStepInTheLoop: the wait for a reset is the retry loop's own wait,
// bounded by MaxWait (the step), the Retry-After cap and max elapsed (the loop).
func TestQuotaStepInTheLoop(t *testing.T) {
	low10m := coreAnswer(5, t0.Add(10*time.Minute))
	low70m := coreAnswer(5, t0.Add(70*time.Minute))
	full := coreAnswer(5000, t0.Add(70*time.Minute))
	pol := func(sched time.Duration, cap, elapsed time.Duration) retry.Policy {
		return retry.Policy{Schedule: []time.Duration{sched}, MaxAttempts: 4, MaxElapsed: elapsed, RetryAfterCap: cap}
	}
	tests := []struct {
		name       string
		answers    []string
		maxWait    time.Duration
		policy     retry.Policy
		wantStop   retry.Stop
		wantWaits  []time.Duration
		wantDetail string
	}{
		{"waits for the reset, then passes", []string{low10m, full}, 15 * time.Minute, pol(10*time.Second, 15*time.Minute, time.Hour),
			retry.StopSucceeded, []time.Duration{10 * time.Minute}, ""},
		{"still low after the reset", []string{low10m, low70m}, 15 * time.Minute, pol(10*time.Second, 2*time.Hour, 2*time.Hour),
			retry.StopCannotRetry, []time.Duration{10 * time.Minute}, "the quota had not refilled after waiting for its reset; the next reset at 2026-11-30T11:10:00Z is 1h0m0s away, beyond --max-wait 15m0s"},
		{"a second reset within what is left of --max-wait", []string{low10m, low70m, full}, 2 * time.Hour, pol(10*time.Second, 2*time.Hour, 3*time.Hour),
			retry.StopSucceeded, []time.Duration{10 * time.Minute, time.Hour}, ""},
		{"the scheduled wait is a floor", []string{coreAnswer(5, t0.Add(2*time.Second)), full}, time.Minute, pol(10*time.Second, time.Minute, time.Hour),
			retry.StopSucceeded, []time.Duration{10 * time.Second}, ""},
		{"a reset over the Retry-After cap stops", []string{low10m}, 15 * time.Minute, pol(10*time.Second, 5*time.Minute, time.Hour),
			retry.StopRetryAfterOverCap, nil, "the server asked to wait 10m0s, over the retry-after cap of 5m0s"},
		{"a reset beyond max elapsed stops", []string{low10m}, 15 * time.Minute, pol(10*time.Second, 15*time.Minute, 5*time.Minute),
			retry.StopElapsedExhausted, nil, "waiting 10m0s more would cross the max elapsed time of 5m0s (0s spent)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, hits, host := quotaAPI(t, tt.answers...)
			clk := clock.NewFake(t0, true)
			// A threshold of 1 shows that low reads never count against the host.
			br := breaker.NewRegistry(clk).Get(host, breaker.Settings{Threshold: 1})
			s := &QuotaStep{Client: c, Breaker: br, Clock: clk, Resource: Core, MinRemaining: 100, MaxWait: tt.maxWait}
			out, err := (&retry.Coordinator{Policy: tt.policy, Clock: clk}).Run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tt.wantStop || !slices.Equal(clk.Waits(), tt.wantWaits) || out.Detail != tt.wantDetail {
				t.Fatalf("stop %s waits %v detail %q\nwant %s %v %q", out.Stop, clk.Waits(), out.Detail, tt.wantStop, tt.wantWaits, tt.wantDetail)
			}
			if int(hits.Load()) != len(tt.wantWaits)+1 || len(out.Attempts) != len(tt.wantWaits)+1 {
				t.Errorf("%d requests, %d attempts, want one more than the waits", hits.Load(), len(out.Attempts))
			}
			if !out.OK() && (out.Final == nil || out.Final.Class != failure.Transient) {
				t.Errorf("final %v, want the transient low quota", out.Final)
			}
			if br.State() != breaker.Closed {
				t.Errorf("breaker %v after low reads, want closed", br.State())
			}
		})
	}
}

// TestQuotaStepOpenBreaker: an open breaker short-circuits the read without
// sending it, and the step will not retry while it stays open.
func TestQuotaStepOpenBreaker(t *testing.T) {
	c, hits, host := quotaAPI(t, coreAnswer(5000, t0.Add(time.Hour)))
	clk := clock.NewFake(t0, false)
	br := breaker.NewRegistry(clk).Get(host, breaker.Settings{Threshold: 1})
	tk, _ := br.Allow()
	br.Done(tk, breaker.Failure, "transient: connection reset")
	s := &QuotaStep{Client: c, Breaker: br, Clock: clk, Resource: Core, MinRemaining: 100}
	f := failure.FromError(s.Attempt(context.Background(), 1))
	if f == nil || f.Code != failure.CodeBreakerOpen || hits.Load() != 0 {
		t.Fatalf("Attempt = %v after %d requests, want the breaker-open failure and none sent", f, hits.Load())
	}
	if ok, why := s.CanRetry(f); ok || why != "no request was sent: the API host's circuit breaker is open" {
		t.Errorf("CanRetry = %v %q", ok, why)
	}
}
