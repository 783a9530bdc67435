package step

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/retry"
)

// RetryConfig is the shared retry settings of every kind that retries:
// the retry: keys of a job file.
type RetryConfig struct {
	// Schedule is the wait before each retry; the last repeats.
	Schedule []time.Duration
	// MaxAttempts bounds the attempts, the first included; 0 means the
	// schedule's length plus one.
	MaxAttempts int
	// MaxAttemptsForce allows more than retry.MaxAttemptsLimit attempts.
	MaxAttemptsForce bool
	// MaxElapsed bounds the whole loop, at most retry.MaxElapsedLimit.
	MaxElapsed time.Duration
	// RetryAfterCap is the longest server-requested wait honoured.
	RetryAfterCap time.Duration
	// OnUnknown is stop or retry.
	OnUnknown string
	// Jitter spreads each wait, 0 to 1.
	Jitter float64
}

// Built-in jitter: 0.2 for the kinds whose many scheduled copies would
// retry a shared endpoint at the same instants; 0 where the schedule is
// exact by design (push's 2/4/8/16 s) or there is no retry (probe).
const (
	defaultJitter = "0.2"
	exactJitter   = "0"
)

// jitterMax is retry.MaxJitter as the jitter field's Max, and jitterRange
// what a jitter outside 0 to it is told.
var (
	jitterMax   = strconv.FormatFloat(retry.MaxJitter, 'g', -1, 64)
	jitterRange = "out of range: want a fraction from 0 to " + jitterMax
)

// retryDocs are the retry fields' docs that name limits, formatted once.
var retryDocs = sync.OnceValue(func() (d struct{ maxAttempts, force, maxElapsed string }) {
	d.maxAttempts = fmt.Sprintf("attempts in all, the first included; 0 means the schedule's length plus one; at most %d without --max-attempts-force", retry.MaxAttemptsLimit)
	d.force = fmt.Sprintf("allow more than %d attempts (still bounded by --max-elapsed)", retry.MaxAttemptsLimit)
	d.maxElapsed = fmt.Sprintf("bound on the whole loop, at most %s; a wait that would cross it is not started", fmtLimit(retry.MaxElapsedLimit))
	return d
})

// fields adds the retry fields with the kind's default schedule and jitter.
func (r *RetryConfig) fields(s *fieldSet, schedule, jitter string) {
	docs := retryDocs()
	bind(s, Field{Name: "schedule", Place: Retry, Default: schedule, Doc: "comma-separated `waits` before each retry; the last repeats"}, &r.Schedule)
	bind(s, Field{Name: "max-attempts", Place: Retry, Default: "0", Min: "0", MinMsg: "must be at least 1 (0 derives it from the schedule)", Doc: docs.maxAttempts}, &r.MaxAttempts)
	bind(s, Field{Name: "max-attempts-force", Place: Retry, Doc: docs.force}, &r.MaxAttemptsForce)
	bind(s, Field{Name: "max-elapsed", Place: Retry, Default: "15m", Doc: docs.maxElapsed}, &r.MaxElapsed)
	bind(s, Field{Name: "retry-after-cap", Place: Retry, Default: "5m", Min: "0", Doc: "longest server-requested wait (Retry-After) honoured; a longer one stops"}, &r.RetryAfterCap)
	bind(s, Field{Name: "on-unknown", Place: Retry, Default: "stop", Doc: "what to do with an unrecognised failure: stop or retry"}, &r.OnUnknown)
	bind(s, Field{Name: "jitter", Place: Retry, Min: "0", Max: jitterMax, MinMsg: jitterRange, MaxMsg: jitterRange, BoundFix: "write jitter: 0.2, or 0 for exact waits", Default: jitter, Doc: "spread each wait at random by this `FRACTION` (0 to 1): w·U(1−j, 1+j); a server's Retry-After is a floor jitter only adds to"}, &r.Jitter)
}

// Policy validates the settings into a normalised policy snapshot; its
// errors are *FieldError. A value outside its field's bounds is Prepare's
// error (CheckBounds), not repeated here: the snapshot is then empty.
func (r *RetryConfig) Policy() (retry.Policy, error) {
	var errs []error
	ou, err := retry.ParseOnUnknown(r.OnUnknown)
	if err != nil {
		errs = append(errs, &FieldError{Field: "on-unknown", Value: fmt.Sprintf("%q", r.OnUnknown), Msg: "want stop or retry"})
	}
	switch {
	case r.MaxElapsed <= 0:
		errs = append(errs, &FieldError{Field: "max-elapsed", Value: r.MaxElapsed.String(), Msg: "leaves the retry policy unbounded; it must be positive", Fix: "write a positive bound such as max-elapsed: 15m"})
	case r.MaxElapsed > retry.MaxElapsedLimit:
		errs = append(errs, &FieldError{Field: "max-elapsed", Value: r.MaxElapsed.String(), Msg: fmt.Sprintf("over the limit of %s", fmtLimit(retry.MaxElapsedLimit))})
	}
	if len(errs) > 0 {
		return retry.Policy{}, errors.Join(errs...)
	}
	table := &fieldSet{given: &givenSet{}}
	r.fields(table, "", "")
	if len(CheckBounds(table.fields)) > 0 {
		return retry.Policy{}, nil
	}
	p, err := retry.Policy{Schedule: r.Schedule, MaxAttempts: r.MaxAttempts, MaxElapsed: r.MaxElapsed, RetryAfterCap: r.RetryAfterCap, OnUnknown: ou, Jitter: r.Jitter}.Normalize()
	if err != nil {
		return p, &FieldError{Field: "schedule", Msg: err.Error()}
	}
	if p.MaxAttempts > retry.MaxAttemptsLimit && !r.MaxAttemptsForce {
		if r.MaxAttempts == 0 {
			return retry.Policy{}, &FieldError{Field: "schedule", Msg: fmt.Sprintf("%d waits (%d attempts) are over the cap of %d attempts; add --max-attempts-force to allow more (the loop stays bounded by --max-elapsed)", len(p.Schedule), p.MaxAttempts, retry.MaxAttemptsLimit)}
		}
		return retry.Policy{}, &FieldError{Field: "max-attempts", Value: fmt.Sprint(p.MaxAttempts), Msg: fmt.Sprintf("over the cap of %d attempts; add --max-attempts-force to allow more (the loop stays bounded by --max-elapsed)", retry.MaxAttemptsLimit)}
	}
	return p, nil
}

// fmtLimit renders a limit of whole hours as "24h".
func fmtLimit(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
