package breaker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestDo(t *testing.T) {
	var (
		transient = failure.New(failure.Transient, failure.HTTPCode(503), "HTTP 503 Service Unavailable", "")
		unknown   = failure.New(failure.Unknown, failure.CodeUnknown, "unrecognised", "")
		absent    = failure.New(failure.Absent, failure.HTTPCode(404), "HTTP 404 Not Found", "")
		policy    = failure.New(failure.Policy, failure.HTTPCode(403), "HTTP 403 Forbidden", "")
	)
	const priorLast = "HTTP 500 Internal Server Error" // what record gives the prior failures
	tests := []struct {
		name      string
		prior     int           // failures recorded before Do
		advance   time.Duration // clock moved after them
		cancelled bool          // ctx is done when attempt returns
		nilB      bool          // Do on a nil *Breaker
		ret       *failure.Failure
		neutral   bool

		wantCalled   bool
		wantShort    bool
		wantCode     failure.Code // "" means no failure
		wantRemedy   string       // a part of the failure's remedy
		wantFailures int
		wantLast     string
		wantState    State
	}{
		{name: "success resets", prior: 2, ret: nil,
			wantCalled: true, wantFailures: 0, wantLast: "", wantState: Closed},
		{name: "transient counts", prior: 1, ret: transient,
			wantCalled: true, wantCode: transient.Code, wantFailures: 2, wantLast: "transient: HTTP 503 Service Unavailable", wantState: Closed},
		{name: "unknown counts", ret: unknown,
			wantCalled: true, wantCode: failure.CodeUnknown, wantFailures: 1, wantLast: "unknown: unrecognised", wantState: Closed},
		{name: "the threshold's failure opens", prior: 2, ret: transient,
			wantCalled: true, wantCode: transient.Code, wantFailures: 3, wantLast: "transient: HTTP 503 Service Unavailable", wantState: Open},
		{name: "absent is neutral", prior: 2, ret: absent,
			wantCalled: true, wantCode: absent.Code, wantFailures: 2, wantLast: priorLast, wantState: Closed},
		{name: "policy is neutral", prior: 2, ret: policy,
			wantCalled: true, wantCode: policy.Code, wantFailures: 2, wantLast: priorLast, wantState: Closed},
		{name: "a failure attempt calls neutral", prior: 2, ret: transient, neutral: true,
			wantCalled: true, wantCode: transient.Code, wantFailures: 2, wantLast: priorLast, wantState: Closed},
		{name: "cancelled ctx: a failure is neutral", prior: 2, cancelled: true, ret: transient,
			wantCalled: true, wantCode: transient.Code, wantFailures: 2, wantLast: priorLast, wantState: Closed},
		{name: "cancelled ctx: a success does not reset", prior: 2, cancelled: true, ret: nil,
			wantCalled: true, wantFailures: 2, wantLast: priorLast, wantState: Closed},
		{name: "open short-circuits", prior: 3, advance: 10 * time.Second, ret: nil,
			wantShort: true, wantCode: failure.CodeBreakerOpen, wantRemedy: "until the cooldown ends in 20s",
			wantFailures: 3, wantLast: priorLast, wantState: Open},
		{name: "half-open trial success closes", prior: 3, advance: DefaultCooldown, ret: nil,
			wantCalled: true, wantFailures: 0, wantLast: "", wantState: Closed},
		{name: "half-open trial failure reopens", prior: 3, advance: DefaultCooldown, ret: transient,
			wantCalled: true, wantCode: transient.Code, wantFailures: 4, wantLast: "transient: HTTP 503 Service Unavailable", wantState: Open},
		{name: "nil breaker runs attempt", nilB: true, ret: transient,
			wantCalled: true, wantCode: transient.Code},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, clk := newBreaker(t)
			for i := 0; i < tt.prior; i++ {
				record(t, b, Failure)
			}
			clk.Advance(tt.advance)
			if tt.nilB {
				b = nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			called := false
			f, short := b.Do(ctx, func() (*failure.Failure, bool) {
				called = true
				if tt.cancelled {
					cancel()
				}
				return tt.ret, tt.neutral
			})
			if called != tt.wantCalled || short != tt.wantShort {
				t.Fatalf("attempt called %v, short-circuited %v; want %v, %v", called, short, tt.wantCalled, tt.wantShort)
			}
			switch {
			case tt.wantCode == "" && f != nil:
				t.Fatalf("Do = %v, want no failure", f)
			case tt.wantCode != "" && (f == nil || f.Code != tt.wantCode):
				t.Fatalf("Do = %v, want code %s", f, tt.wantCode)
			case tt.wantCalled && f != tt.ret:
				t.Fatalf("Do = %v, want attempt's own failure %v", f, tt.ret)
			case tt.wantRemedy != "" && !strings.Contains(f.Remedy, tt.wantRemedy):
				t.Fatalf("remedy %q, want it to hold %q", f.Remedy, tt.wantRemedy)
			}
			if tt.nilB {
				return
			}
			if n, last := b.Failures(); n != tt.wantFailures || last != tt.wantLast || b.State() != tt.wantState {
				t.Errorf("failures %d (%q), state %s; want %d (%q), %s", n, last, b.State(), tt.wantFailures, tt.wantLast, tt.wantState)
			}
		})
	}
}

// TestDoShortCircuitFailure checks the failure of a short-circuited request:
// transient, never sent, with the last counted failure as evidence.
func TestDoShortCircuitFailure(t *testing.T) {
	b, _ := newBreaker(t)
	for i := 0; i < DefaultThreshold; i++ {
		record(t, b, Failure)
	}
	f, short := b.Do(context.Background(), func() (*failure.Failure, bool) {
		t.Fatal("attempt called while the breaker is open")
		return nil, false
	})
	if !short || f == nil || f.Class != failure.Transient || !f.Trace.NotSent ||
		f.Reason != "circuit breaker open for api.example.com:443 after 3 consecutive failures" ||
		len(f.Evidence) != 1 || f.Evidence[0] != "last failure: HTTP 500 Internal Server Error" {
		t.Fatalf("short-circuit failure %+v (short %v)", f, short)
	}
}

// TestDoDuringTheTrial: while the half-open trial runs, every other request
// is short-circuited, and its failure says a trial is in flight.
func TestDoDuringTheTrial(t *testing.T) {
	b, clk := newBreaker(t)
	for i := 0; i < DefaultThreshold; i++ {
		record(t, b, Failure)
	}
	clk.Advance(DefaultCooldown)
	var inner *failure.Failure
	var innerShort bool
	f, short := b.Do(context.Background(), func() (*failure.Failure, bool) {
		inner, innerShort = b.Do(context.Background(), func() (*failure.Failure, bool) {
			t.Fatal("a second request ran during the trial")
			return nil, false
		})
		return nil, false
	})
	if f != nil || short {
		t.Fatalf("the trial: %v (short %v)", f, short)
	}
	if !innerShort || inner == nil || inner.Code != failure.CodeBreakerOpen || !strings.Contains(inner.Remedy, "(a trial request is in flight)") {
		t.Fatalf("during the trial: %+v (short %v)", inner, innerShort)
	}
	if b.State() != Closed {
		t.Fatalf("state %s after a successful trial, want closed", b.State())
	}
}
