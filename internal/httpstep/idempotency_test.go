package httpstep

import (
	"net/http"
	"strings"
	"testing"

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
		if ok != tt.want || !strings.Contains(why, tt.why) {
			t.Errorf("%s: CanRetry = %v, %q; want %v, %q", tt.name, ok, why, tt.want, tt.why)
		}
		if !ok && s.RefusalRemedy() == "" {
			t.Errorf("%s: a refusal without a remedy", tt.name)
		}
	}
}
