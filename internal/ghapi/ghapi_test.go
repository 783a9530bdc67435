package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/retry"
)

// rateLimitJSON is GitHub's documented GET /rate_limit answer.
const rateLimitJSON = `{
  "resources": {
    "core": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1796032800},
    "search": {"limit": 30, "used": 12, "remaining": 18, "reset": 1796029260},
    "graphql": {"limit": 5000, "used": 7, "remaining": 4993, "reset": 1796032801},
    "integration_manifest": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1796032802},
    "source_import": {"limit": 100, "used": 1, "remaining": 99, "reset": 1796029260},
    "code_scanning_upload": {"limit": 500, "used": 1, "remaining": 499, "reset": 1796032803},
    "actions_runner_registration": {"limit": 10000, "used": 0, "remaining": 10000, "reset": 1796032804},
    "scim": {"limit": 15000, "used": 0, "remaining": 15000, "reset": 1796032805},
    "dependency_snapshots": {"limit": 100, "used": 0, "remaining": 100, "reset": 1796029261},
    "code_search": {"limit": 10, "used": 0, "remaining": 10, "reset": 1796029262}
  },
  "rate": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1796032800}
}`

// newAPI starts a fake API and returns a client configured the way
// github-quota configures it: its own HTTP client, a token, a User-Agent and
// the injected clock (at t0, so rate-limit waits are exact).
func newAPI(t *testing.T, h http.HandlerFunc) (*Client, *atomic.Int64, *httptest.Server) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	tr := httpstep.NewTransport(httpstep.TransportOptions{})
	t.Cleanup(tr.CloseIdleConnections)
	c, err := New(Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: srv.URL + "/api/v3", Token: "tok-123456", UserAgent: "retrywise/test", Clock: clock.NewFake(t0, false)})
	if err != nil {
		t.Fatal(err)
	}
	return c, &hits, srv
}

func TestQuotaReadsEveryResource(t *testing.T) {
	c, hits, _ := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v3/rate_limit" || r.Header.Get("Authorization") != "Bearer tok-123456" || r.UserAgent() != "retrywise/test" {
			t.Errorf("request %s %s auth %q user agent %q", r.Method, r.URL.Path, r.Header.Get("Authorization"), r.UserAgent())
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("X-RateLimit-Reset", "1796032800")
		w.Header().Set("X-RateLimit-Resource", "core")
		fmt.Fprint(w, rateLimitJSON)
	})
	q, err := c.Quota(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[Resource]Rate{
		Core:          {5000, 4999, time.Unix(1796032800, 0)},
		Search:        {30, 18, time.Unix(1796029260, 0)},
		GraphQL:       {5000, 4993, time.Unix(1796032801, 0)},
		"code_search": {10, 10, time.Unix(1796029262, 0)},
		"scim":        {15000, 15000, time.Unix(1796032805, 0)},
	}
	for r, w := range want {
		got := q[r]
		if got.Limit != w.Limit || got.Remaining != w.Remaining || !got.Reset.Equal(w.Reset) {
			t.Errorf("%s = %+v, want %+v", r, got, w)
		}
	}
	if len(q) != 10 || hits.Load() != 1 {
		t.Errorf("%d resources, %d requests", len(q), hits.Load())
	}
}

// TestClassify reads the quota from answers GitHub gives; every wait is
// measured from the injected clock, so it is exact.
func TestClassify(t *testing.T) {
	reset := t0.Add(time.Hour)
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		class    failure.Class
		wait     time.Duration
		reason   string
		evidence []string
	}{
		{"429 is a plain ErrorResponse", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"message":"Too Many Requests"}`)
		}, failure.Transient, 7 * time.Second, "rate limited (HTTP 429", nil},
		// an hour's wait is over the default max elapsed: policy, the reset named
		{"403 primary rate limit", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Date", t0.Format(http.TimeFormat))
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Limit", "60")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"API rate limit exceeded for 127.0.0.1."}`)
		}, failure.Policy, time.Hour, "GitHub API rate limit of 60 exhausted until 2026-11-30T11:00:00Z; the limit resets at 2026-11-30 11:00:00 UTC (in 1h)",
			[]string{"HTTP 403 Forbidden", "X-RateLimit-Remaining: 0", "API rate limit exceeded for 127.0.0.1."}},
		{"403 secondary rate limit", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "42")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
		}, failure.Transient, 42 * time.Second, "secondary rate limit", []string{"HTTP 403 Forbidden", "You have exceeded a secondary rate limit."}},
		{"401 bad credentials", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
		}, failure.Policy, 0, "bad credentials", nil},
		{"404 on a lookup", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message":"Not Found"}`)
		}, failure.Absent, 0, "HTTP 404", nil},
		{"503", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, failure.Transient, 0, "HTTP 503", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := newAPI(t, tt.handler)
			_, err := c.Quota(context.Background())
			var f *failure.Failure
			if !errors.As(err, &f) {
				t.Fatalf("error %v is not a *failure.Failure", err)
			}
			if f.Class != tt.class || !strings.Contains(f.Reason, tt.reason) {
				t.Errorf("%s: %s, want %s containing %q", f.Class, f.Reason, tt.class, tt.reason)
			}
			if f.RetryAfter != tt.wait {
				t.Errorf("RetryAfter %s, want %s", f.RetryAfter, tt.wait)
			}
			for _, e := range tt.evidence {
				if !slices.Contains(f.Evidence, e) {
					t.Errorf("evidence %q lacks %q", f.Evidence, e)
				}
			}
		})
	}
}

// TestQuotaIsReadAgainAfterARateLimit: github-quota retries a rate-limited
// read of GET /rate_limit through the same client, and that endpoint is
// exempt from go-github's self-imposed refusal, so every retry reaches the
// server and is classified from GitHub's real answer (not a local refusal).
func TestQuotaIsReadAgainAfterARateLimit(t *testing.T) {
	reset := t0.Add(10 * time.Minute)
	for _, tt := range []struct {
		name  string
		write func(w http.ResponseWriter)
		wait  time.Duration
	}{
		{"primary", func(w http.ResponseWriter) {
			w.Header().Set("Date", t0.Format(http.TimeFormat)) // the reset is measured from the answer's Date
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Limit", "5000")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"API rate limit exceeded for user ID 1."}`)
		}, 10 * time.Minute},
		{"secondary", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "600")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
		}, 10 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var limited atomic.Bool
			limited.Store(true)
			c, hits, _ := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
				if limited.Load() {
					tt.write(w)
					return
				}
				fmt.Fprint(w, rateLimitJSON)
			})
			ctx := context.Background()
			for i := 1; i <= 2; i++ {
				_, err := c.Quota(ctx)
				if hits.Load() != int64(i) {
					t.Fatalf("read %d: the server saw %d requests; go-github refused the read locally", i, hits.Load())
				}
				var f *failure.Failure
				if !errors.As(err, &f) || f.Class != failure.Transient || f.RetryAfter != tt.wait {
					t.Fatalf("read %d: %v, want transient with a wait of %s", i, err, tt.wait)
				}
				if ev := strings.Join(f.Evidence, "\n"); !strings.Contains(ev, "HTTP 403 Forbidden") || strings.Contains(ev, "refused the call without sending it") {
					t.Errorf("read %d: evidence %q, want GitHub's answer", i, f.Evidence)
				}
			}
			limited.Store(false)
			if q, err := c.Quota(ctx); err != nil || q[Core].Remaining != 4999 || hits.Load() != 3 {
				t.Fatalf("after the limit: %v, %v, %d requests", q, err, hits.Load())
			}
		})
	}
}

func TestClassifyNetworkError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tr := httpstep.NewTransport(httpstep.TransportOptions{})
	defer tr.CloseIdleConnections()
	c, err := New(Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: "http://" + addr, Clock: clock.NewFake(t0, false)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Quota(context.Background())
	var f *failure.Failure
	if !errors.As(err, &f) || f.Class != failure.Transient || !strings.Contains(f.Reason, "connection refused") {
		t.Fatalf("%v", err)
	}
}

func TestNewAndResource(t *testing.T) {
	c, err := New(Options{BaseURL: "https://ghe.example.com/api/v3"})
	if err != nil || c.BaseURL().String() != "https://ghe.example.com/api/v3/" {
		t.Errorf("base %v, %v", c.BaseURL(), err)
	}
	if c, err := New(Options{}); err != nil || c.BaseURL().String() != DefaultBaseURL {
		t.Errorf("default base %v, %v", c.BaseURL(), err)
	}
	for _, bad := range []string{"ftp://x/", "not a url", "https://"} {
		if _, err := New(Options{BaseURL: bad}); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	for in, want := range map[string]Resource{"core": Core, "Search": Search, " graphql ": GraphQL} {
		if got, err := ParseResource(in); err != nil || got != want {
			t.Errorf("ParseResource(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseResource("actions"); err == nil {
		t.Errorf("ParseResource accepted actions")
	}
}

// TestQuotaStepWithBreaker runs the step in the retry loop: an outage opens
// the breaker after 3 requests and a later read short-circuits.
func TestQuotaStepWithBreaker(t *testing.T) {
	c, hits, srv := newAPI(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	clk := clock.NewFake(time.Now(), true)
	reg := breaker.NewRegistry(clk)
	host := strings.TrimPrefix(srv.URL, "http://")
	step := &QuotaStep{Client: c, Breaker: reg.Get(host, breaker.Settings{Threshold: 3}), Clock: clk}
	coord := &retry.Coordinator{Policy: retry.Policy{Schedule: []time.Duration{time.Second}, MaxAttempts: 10, MaxElapsed: time.Hour}, Clock: clk}
	out, err := coord.Run(context.Background(), step)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stop != retry.StopCannotRetry || hits.Load() != 3 || !strings.Contains(out.Detail, "circuit breaker open for "+host) {
		t.Fatalf("stop %s after %d requests: %s", out.Stop, hits.Load(), out.Detail)
	}
	out, _ = coord.Run(context.Background(), step)
	if hits.Load() != 3 || out.Final == nil || !strings.HasPrefix(out.Final.Reason, "circuit breaker open") {
		t.Fatalf("second run sent requests (%d) or did not short-circuit: %v", hits.Load(), out.Final)
	}
}

// TestSecondaryRateLimitWaitsOnTheInjectedClock: a secondary rate limit
// announced by X-RateLimit-Reset alone is measured from the caller's now, not
// from the wall clock go-github uses for its own RetryAfter.
func TestSecondaryRateLimitWaitsOnTheInjectedClock(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	wall := 42 * time.Hour // what go-github would have computed: nonsense here
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"reset only", http.Header{"X-Ratelimit-Remaining": {"12"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(5 * time.Minute).Unix())}}, 5 * time.Minute},
		{"Retry-After wins", http.Header{"Retry-After": {"30"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(5 * time.Minute).Unix())}}, 30 * time.Second},
		{"reset already past", http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Add(-time.Minute).Unix())}}, 0},
		{"nothing in the headers: go-github's value", http.Header{}, wall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &github.AbuseRateLimitError{Response: &http.Response{StatusCode: 403, Header: tt.header}, Message: "You have exceeded a secondary rate limit", RetryAfter: &wall}
			f := ClassifyFor(err, now, 48*time.Hour) // a step long enough to wait 42h: the wait itself is tested
			if f.Code != failure.CodeGitHubSecondary || f.RetryAfter != tt.want {
				t.Errorf("code %s, RetryAfter %v; want %s, %v", f.Code, f.RetryAfter, failure.CodeGitHubSecondary, tt.want)
			}
		})
	}
}

// TestRateLimitJudgedAgainstMaxElapsed: a GitHub rate limit's reset is
// measured from the answer's Date (the server's clock, here two hours behind
// the caller's) and judged against the step's whole max elapsed: within it
// a wait, beyond it policy (rate-limit-window) naming the reset.
func TestRateLimitJudgedAgainstMaxElapsed(t *testing.T) {
	served := t0.Add(-2 * time.Hour)
	for _, tt := range []struct {
		name       string
		resetIn    time.Duration
		maxElapsed time.Duration
		class      failure.Class
		code       failure.Code
		wait       time.Duration
	}{
		{"ten minutes by the server's clock", 10 * time.Minute, 0, failure.Transient, failure.CodeGitHubRateLimit, 10 * time.Minute},
		{"fifty minutes: over the default max elapsed", 50 * time.Minute, 0, failure.Policy, failure.CodeRateLimitWindow, 50 * time.Minute},
		{"fifty minutes within a one-hour step", 50 * time.Minute, time.Hour, failure.Transient, failure.CodeGitHubRateLimit, 50 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{"Date": {served.Format(http.TimeFormat)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Reset": {fmt.Sprint(served.Add(tt.resetIn).Unix())}}
			err := &github.RateLimitError{Response: &http.Response{StatusCode: 403, Header: h}, Message: "API rate limit exceeded", Rate: github.Rate{Limit: 60, Reset: github.Timestamp{Time: served.Add(tt.resetIn)}}}
			f := ClassifyFor(err, t0, tt.maxElapsed)
			if f.Class != tt.class || f.Code != tt.code || f.RetryAfter != tt.wait {
				t.Errorf("%s %s RetryAfter %v (%s); want %s %s %v", f.Class, f.Code, f.RetryAfter, f.Reason, tt.class, tt.code, tt.wait)
			}
			if f.Class == failure.Policy && !strings.Contains(f.Reason, served.Add(tt.resetIn).UTC().Format("2006-01-02 15:04:05 UTC")) {
				t.Errorf("reason %q does not name the reset", f.Reason)
			}
		})
	}
}
