package httpstep

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

func TestCanRetryIdempotency(t *testing.T) {
	tests := []struct {
		name   string
		method string
		header string
		unsafe bool
		last   attemptState
		want   bool
		why    string
	}{
		{"GET after 503", "GET", "", false, attemptState{sent: true, status: 503}, true, ""},
		{"HEAD", "HEAD", "", false, attemptState{sent: true, timedOut: true}, true, ""},
		{"PUT", "PUT", "", false, attemptState{sent: true, status: 502}, true, ""},
		{"DELETE", "DELETE", "", false, attemptState{sent: true, status: 500}, true, ""},
		{"OPTIONS", "OPTIONS", "", false, attemptState{sent: true, status: 500}, true, ""},
		{"POST 503", "POST", "", false, attemptState{sent: true, status: 503}, false, "the POST was answered HTTP 503 and may already have been processed"},
		{"PATCH 500", "PATCH", "", false, attemptState{sent: true, status: 500}, false, "the PATCH was answered HTTP 500"},
		{"POST timed out", "POST", "", false, attemptState{sent: true, timedOut: true}, false, "the POST timed out after it was sent"},
		{"POST reset", "POST", "", false, attemptState{sent: true}, false, "the POST failed after it was sent"},
		{"POST refused / DNS", "POST", "", false, attemptState{sent: false}, true, ""},
		{"POST 429", "POST", "", false, attemptState{sent: true, status: 429}, true, ""},
		{"POST with Idempotency-Key", "POST", "k-1", false, attemptState{sent: true, status: 503}, true, ""},
		{"POST --retry-unsafe", "POST", "", true, attemptState{sent: true, timedOut: true}, true, ""},
		{"partial body on stdout", "GET", "", false, attemptState{sent: true, partial: true}, false, "already written to stdout"},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Idempotency-Key", tt.header)
		}
		s, err := New(Options{Method: tt.method, URL: "https://api.example.com/x", Header: h, RetryUnsafe: tt.unsafe})
		if err != nil {
			t.Fatal(err)
		}
		s.last = tt.last
		ok, why := s.CanRetry(failure.New(failure.Transient, failure.CodeTimeout, "x", ""))
		// A retry needs no reason; a refusal must give the expected one.
		if ok != tt.want || (tt.why == "" && why != "") || !strings.Contains(why, tt.why) {
			t.Errorf("%s: CanRetry = %v, %q; want %v, %q", tt.name, ok, why, tt.want, tt.why)
		}
		if !ok && s.RefusalRemedy() == "" {
			t.Errorf("%s: a refusal without a remedy", tt.name)
		}
	}
}

// TestCanRetryOpenBreaker: the failure that opens the host's breaker is not
// retried, whatever the method; the attempt it short-circuits is not either.
func TestCanRetryOpenBreaker(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	key := HostKey(u.Scheme, u.Host)
	b := breaker.NewRegistry(clock.NewFake(t0, false)).Get(key, breaker.Settings{Threshold: 1})
	s, err := New(Options{URL: srv.URL, Breaker: b})
	if err != nil {
		t.Fatal(err)
	}
	f := failure.FromError(s.Attempt(context.Background(), 1))
	want := "circuit breaker open for " + key + " after 1 failure: no more requests to it in this run until its cooldown ends"
	if ok, why := s.CanRetry(f); ok || why != want || !strings.Contains(s.RefusalRemedy(), "the host failed once in this run") {
		t.Fatalf("CanRetry = %v %q, remedy %q; want a refusal %q", ok, why, s.RefusalRemedy(), want)
	}
	f = failure.FromError(s.Attempt(context.Background(), 2))
	if ok, why := s.CanRetry(f); ok || why != "no request was sent while the breaker is open" || s.RefusalRemedy() != "" {
		t.Fatalf("short-circuited: CanRetry = %v %q, remedy %q", ok, why, s.RefusalRemedy())
	}
}
