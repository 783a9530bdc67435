package httpstep

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

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

// TestBreakerCountsOnlyRealFailures runs the step against a server and checks
// what reached the host's breaker.
func TestBreakerCountsOnlyRealFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/absent":
			http.NotFound(w, r)
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/denied":
			w.WriteHeader(http.StatusForbidden)
		case "/invalid":
			w.WriteHeader(http.StatusUnprocessableEntity)
		case "/moved":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/fail":
			w.WriteHeader(http.StatusInternalServerError)
		case "/field":
			io.WriteString(w, `{"items":[]}`)
		default:
			io.WriteString(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	clk := clock.NewFake(t0, false)
	reg := breaker.NewRegistry(clk)
	send := func(path string, mod func(*Options)) *failure.Failure {
		t.Helper()
		u, _ := url.Parse(srv.URL)
		o := Options{URL: srv.URL + path, Breaker: reg.Get(HostKey(u.Scheme, u.Host), breaker.Settings{Threshold: 3}), Clock: clk, Client: NewClient(NewTransport(TransportOptions{}), false)}
		if mod != nil {
			mod(&o)
		}
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Attempt(context.Background(), 1); err != nil {
			return failure.FromError(err)
		}
		return nil
	}
	u, _ := url.Parse(srv.URL)
	b := reg.Get(HostKey(u.Scheme, u.Host), breaker.Settings{Threshold: 3})
	count := func() int { n, _ := b.Failures(); return n }

	send("/fail", nil)
	send("/fail", nil)
	for i := 0; i < 20; i++ {
		for _, p := range []string{"/absent", "/gone", "/denied", "/invalid", "/moved"} {
			send(p, nil)
		}
		send("/field", func(o *Options) { f, _ := ParseField("id=.items[0].id"); o.Fields = []Field{f} })
	}
	if count() != 2 || b.State() != breaker.Closed {
		t.Fatalf("count %d, state %s: absent/policy/structural/unexpected answers were counted", count(), b.State())
	}
	if f := send("/absent", nil); f == nil || f.Class != failure.Absent {
		t.Fatalf("404: %v", f)
	}
	if f := send("/ok", nil); f != nil || count() != 0 {
		t.Fatalf("a success did not reset: %v, count %d", f, count())
	}
	for i := 0; i < 3; i++ {
		send("/fail", nil)
	}
	if b.State() != breaker.Open {
		t.Fatalf("3 failures did not open the breaker")
	}
	f := send("/ok", nil)
	if f == nil || !strings.Contains(f.Reason, "circuit breaker open for "+b.Key()+" after 3 consecutive failures") || f.Class != failure.Transient {
		t.Fatalf("short-circuit: %v", f)
	}
}

func TestNewRejects(t *testing.T) {
	for _, o := range []Options{
		{URL: "ftp://example.com/x"},
		{URL: "http:///nohost"},
		{URL: "://bad"},
		{URL: "https://example.com/", OutputFile: "/nonexistent-dir/out"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// overhead measures one successful GET: a plain http.Client.Do with the body
// read, and the same request as a step through the retry coordinator (breaker,
// classification, the body written through a writer, the result kept).
func BenchmarkOverhead(b *testing.B) {
	body := `{"id":42,"name":"retrywise","items":[1,2,3]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	defer srv.Close()
	client := NewClient(NewTransport(TransportOptions{}), true)

	b.Run("plain-client", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("step", func(b *testing.B) {
		reg := breaker.NewRegistry(clock.Real{})
		u, _ := url.Parse(srv.URL)
		f, _ := ParseField("id=.id")
		coord := &retry.Coordinator{Policy: retry.Policy{Schedule: []time.Duration{time.Second}, MaxElapsed: time.Minute}}
		for b.Loop() {
			s, err := New(Options{URL: srv.URL + "/x", Client: client, Stdout: io.Discard, Fields: []Field{f}, Timeout: 30 * time.Second,
				Breaker: reg.Get(HostKey(u.Scheme, u.Host), breaker.Settings{Threshold: 3})})
			if err != nil {
				b.Fatal(err)
			}
			out, err := coord.Run(context.Background(), s)
			if err != nil || !out.OK() {
				b.Fatal(err, out.Final)
			}
		}
	})
}
