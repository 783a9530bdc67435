package ghapi

import (
	"context"
	"errors"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// DefaultTimeout bounds one read of the quota (30 s).
const DefaultTimeout = 30 * time.Second

// QuotaStep reads the rate-limit quota once per attempt; it implements retry.Step.
type QuotaStep struct {
	// Client reads the quota.
	Client *Client
	// Breaker is the API host's circuit breaker; nil means none.
	Breaker *breaker.Breaker
	// Timeout bounds each attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// Clock dates the breaker's cooldown in messages; nil means the wall clock.
	Clock clock.Clock

	quota Quota
	open  bool
}

// Quota returns what the last successful attempt read.
func (s *QuotaStep) Quota() Quota { return s.quota }

// Attempt reads the quota once.
func (s *QuotaStep) Attempt(ctx context.Context, n int) error {
	s.open = false
	clk := s.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	var ticket breaker.Ticket
	if s.Breaker != nil {
		t, err := s.Breaker.Allow()
		var oe *breaker.OpenError
		if errors.As(err, &oe) {
			s.open = true
			return oe.Failure(clk.Now())
		}
		ticket = t
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	q, err := s.Client.Quota(actx)
	cancel()
	var f *failure.Failure
	if err != nil {
		f = failure.FromError(err)
	}
	if s.Breaker != nil {
		r := breaker.ResultOf(f)
		if ctx.Err() != nil {
			r = breaker.Neutral
		}
		reason := ""
		if f != nil {
			reason = f.Class.String() + ": " + f.Reason
		}
		s.Breaker.Done(ticket, r, reason)
	}
	if f != nil {
		return f
	}
	s.quota = q
	return nil
}

// CanRetry allows a retry (reading the quota is a GET) unless the breaker is open.
func (s *QuotaStep) CanRetry(*failure.Failure) (bool, string) {
	if s.open {
		return false, "no request was sent: the API host's circuit breaker is open"
	}
	if s.Breaker != nil && s.Breaker.State() == breaker.Open {
		n, _ := s.Breaker.Failures()
		return false, (&breaker.OpenError{Key: s.Breaker.Key(), Failures: n}).Error() + ": no more requests to it in this run until its cooldown ends"
	}
	return true, ""
}
