package ghapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// DefaultTimeout bounds one read of the quota (30 s).
const DefaultTimeout = 30 * time.Second

// QuotaStep reads the rate-limit quota once per attempt; it implements retry.Step.
// With a Resource, a read whose bucket is under MinRemaining is a LowQuota
// failure, so the retry loop waits for the reset like any server-requested wait.
type QuotaStep struct {
	// Client reads the quota.
	Client *Client
	// Breaker is the API host's circuit breaker; nil means none.
	Breaker *breaker.Breaker
	// Timeout bounds each attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// Clock measures the waits for a reset; nil means the wall clock. (The
	// breaker's cooldown runs on the breaker's own clock.)
	Clock clock.Clock
	// Resource is the bucket each read is checked against; "" checks none.
	Resource Resource
	// MinRemaining is the least remaining quota of Resource that passes.
	MinRemaining int
	// MaxWait bounds the time, from the first read under MinRemaining, that the
	// loop may wait for the bucket to refill; 0 means never wait. It is checked
	// against the reset; the loop's Retry-After cap and max elapsed time also apply.
	MaxWait time.Duration

	quota    Quota
	open     bool
	lowSince time.Time // when this run first read the bucket under MinRemaining
	lowReads int       // how many reads of this run were under MinRemaining
}

// Quota returns what the last successful read returned, a low one included.
func (s *QuotaStep) Quota() Quota { return s.quota }

func (s *QuotaStep) clock() clock.Clock {
	if s.Clock == nil {
		return clock.Real{}
	}
	return s.Clock
}

// Attempt reads the quota once and checks Resource against MinRemaining.
func (s *QuotaStep) Attempt(ctx context.Context, n int) error {
	s.open = false
	if n == 1 {
		s.lowSince, s.lowReads = time.Time{}, 0
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var q Quota
	// A low quota is an answer from a healthy host: the breaker sees the read.
	f, open := s.Breaker.Do(ctx, func() (*failure.Failure, bool) {
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var err error
		if q, err = s.Client.Quota(actx); err != nil {
			return failure.FromError(err), false
		}
		return nil, false
	})
	s.open = open
	if f != nil {
		return f
	}
	s.quota = q
	return s.check(s.clock().Now())
}

// check returns the failure of the last read against Resource, or nil.
func (s *QuotaStep) check(now time.Time) error {
	if s.Resource == "" {
		return nil
	}
	r, ok := s.quota[s.Resource]
	if !ok {
		return failure.GitHubNoBucket(string(s.Resource))
	}
	if r.Remaining >= s.MinRemaining {
		return nil
	}
	if s.lowReads == 0 {
		s.lowSince = now
	}
	s.lowReads++
	return LowQuota(s.Resource, r, s.MinRemaining, now)
}

// CanRetry allows a retry (reading the quota is a GET) unless the breaker is
// open; a low quota is retried only while its reset is within MaxWait of the
// first low read.
func (s *QuotaStep) CanRetry(f *failure.Failure) (bool, string) {
	if s.open {
		return false, "no request was sent: the API host's circuit breaker is open"
	}
	if why, _ := s.Breaker.Refusal(); why != "" {
		return false, why
	}
	var low *LowQuotaError
	if !errors.As(f, &low) {
		return true, ""
	}
	left := s.lowSince.Add(s.MaxWait).Sub(s.clock().Now())
	if s.MaxWait > 0 && f.RetryAfter <= left {
		return true, ""
	}
	reset := low.Rate.Reset.UTC().Format(time.RFC3339)
	away := f.RetryAfter.Round(time.Second)
	switch {
	case s.lowReads > 1 && f.RetryAfter == 0:
		return false, fmt.Sprintf("the quota had not refilled after waiting for its reset; its reset at %s has passed and --max-wait %s is spent", reset, s.MaxWait)
	case s.lowReads > 1:
		return false, fmt.Sprintf("the quota had not refilled after waiting for its reset; the next reset at %s is %s away, beyond --max-wait %s", reset, away, s.MaxWait)
	case f.RetryAfter == 0:
		return false, fmt.Sprintf("the reset at %s has passed but the quota is still low, and --max-wait 0s never waits", reset)
	}
	return false, fmt.Sprintf("the reset at %s is %s away, over --max-wait %s", reset, away, s.MaxWait)
}

// LowQuotaError is the underlying error (Failure.Err) of a LowQuota failure:
// the bucket that was read and the bar it missed.
type LowQuotaError struct {
	// Resource is the bucket.
	Resource Resource
	// Rate is what was read.
	Rate Rate
	// MinRemaining is the least remaining quota that would have passed.
	MinRemaining int
}

// Error returns "GitHub core quota 5 of 5000 is under --min-remaining 100".
func (e *LowQuotaError) Error() string {
	return fmt.Sprintf("GitHub %s quota %d of %d is under --min-remaining %d", e.Resource, e.Rate.Remaining, e.Rate.Limit, e.MinRemaining)
}

// LowQuota returns the failure of bucket res read as r, under minRemaining:
// transient, with the time from now until the reset as RetryAfter (0 when the
// reset has passed) and a *LowQuotaError as Err.
func LowQuota(res Resource, r Rate, minRemaining int, now time.Time) *failure.Failure {
	f := failure.GitHubQuotaLow(string(res), r.Remaining, r.Limit, minRemaining, r.Reset, now)
	f.Err = &LowQuotaError{Resource: res, Rate: r, MinRemaining: minRemaining}
	return f
}
