// Package retry owns the one retry loop used by every kind of step: attempt,
// classify, decide, wait, and record.
package retry

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// The bounds every policy is held to.
const (
	// MaxAttemptsLimit is the most attempts a step command or a job step may
	// ask for without --max-attempts-force (max-attempts-force: true).
	MaxAttemptsLimit = 100
	// MaxElapsedLimit is the longest MaxElapsed a policy may have (24h).
	MaxElapsedLimit = 24 * time.Hour
	// MinRepeatWait is the shortest wait the schedule repeats: once its list
	// is used up, the last wait, when shorter, is raised to it (100ms).
	MinRepeatWait = 100 * time.Millisecond
)

// Add returns a+b, saturated at the largest (or smallest) duration instead
// of wrapping around.
func Add(a, b time.Duration) time.Duration {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// OnUnknown says what the loop does with a failure no recogniser claimed.
type OnUnknown string

// The two answers to an unknown failure.
const (
	// UnknownStop stops the loop; the default, because unrecognised is not permission to retry.
	UnknownStop OnUnknown = "stop"
	// UnknownRetry treats an unknown failure like a transient one.
	UnknownRetry OnUnknown = "retry"
)

// ParseOnUnknown parses "stop" or "retry".
func ParseOnUnknown(s string) (OnUnknown, error) {
	switch OnUnknown(s) {
	case UnknownStop, UnknownRetry:
		return OnUnknown(s), nil
	}
	return "", fmt.Errorf("invalid --on-unknown %q: want stop or retry", s)
}

// Policy is the snapshot of what was promised for one step: it is resolved once,
// before anything runs, and written into the report.
type Policy struct {
	// Schedule is the wait before each retry; a longer run repeats the last
	// wait, at least MinRepeatWait.
	Schedule []time.Duration
	// MaxAttempts bounds the attempts, the first included; 0 means len(Schedule)+1.
	MaxAttempts int
	// MaxElapsed bounds the whole loop on the Coordinator's clock: an attempt
	// running when it is reached is cancelled (cause ErrMaxElapsed), and a wait
	// that would cross it is not started. At most MaxElapsedLimit.
	MaxElapsed time.Duration
	// RetryAfterCap is the longest server-requested wait honoured; a longer one stops the loop.
	RetryAfterCap time.Duration
	// OnUnknown says whether unknown failures are retried; "" means stop.
	OnUnknown OnUnknown
	// Jitter spreads each wait at random, 0 ≤ Jitter ≤ 1: a scheduled wait w
	// becomes w·U(1−Jitter, 1+Jitter); a server's Retry-After R stays a floor
	// and only gains U(0, Jitter·min(R, w)), never past RetryAfterCap. 0
	// keeps the schedule exact.
	Jitter float64
}

// MaxJitter is the largest Jitter: a wait may shrink to nothing or double.
const MaxJitter = 1.0

// Normalize validates p and fills in derived values (MaxAttempts, OnUnknown).
func (p Policy) Normalize() (Policy, error) {
	for i, d := range p.Schedule {
		if d < 0 {
			return p, fmt.Errorf("schedule entry %d is negative (%s)", i+1, d)
		}
	}
	p.Schedule = append([]time.Duration(nil), p.Schedule...)
	if p.MaxAttempts < 0 {
		return p, fmt.Errorf("max attempts must be at least 1, got %d", p.MaxAttempts)
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = len(p.Schedule) + 1
	}
	if p.MaxAttempts > 1 && len(p.Schedule) == 0 {
		return p, fmt.Errorf("max attempts %d needs a schedule of waits", p.MaxAttempts)
	}
	if p.MaxElapsed <= 0 {
		return p, fmt.Errorf("max elapsed must be positive, got %s", p.MaxElapsed)
	}
	if p.MaxElapsed > MaxElapsedLimit {
		return p, fmt.Errorf("max elapsed %s is over the limit of %s", p.MaxElapsed, MaxElapsedLimit)
	}
	if p.RetryAfterCap < 0 {
		return p, fmt.Errorf("retry-after cap must not be negative, got %s", p.RetryAfterCap)
	}
	if !(p.Jitter >= 0 && p.Jitter <= MaxJitter) { // NaN included
		return p, fmt.Errorf("jitter %v is out of range: want 0 to %v", p.Jitter, MaxJitter)
	}
	switch p.OnUnknown {
	case "":
		p.OnUnknown = UnknownStop
	case UnknownStop, UnknownRetry:
	default:
		return p, fmt.Errorf("invalid on-unknown %q: want stop or retry", p.OnUnknown)
	}
	return p, nil
}

// BackOff returns the policy's waits as a backoff.BackOff: the Schedule,
// bounded by backoff.WithMaxRetries to MaxAttempts-1 waits (0 MaxAttempts
// means len(Schedule)+1, as in Normalize).
func (p Policy) BackOff() backoff.BackOff {
	attempts := p.MaxAttempts
	if attempts <= 0 {
		attempts = len(p.Schedule) + 1
	}
	return backoff.WithMaxRetries(&Schedule{waits: p.Schedule}, uint64(attempts-1))
}

// policyJSON is the policy's JSON form, with durations as Go duration strings.
type policyJSON struct {
	Schedule      []string  `json:"schedule"`
	MaxAttempts   int       `json:"max_attempts"`
	MaxElapsed    string    `json:"max_elapsed"`
	RetryAfterCap string    `json:"retry_after_cap"`
	OnUnknown     OnUnknown `json:"on_unknown"`
	Jitter        float64   `json:"jitter"`
}

// MarshalJSON writes durations as Go duration strings.
func (p Policy) MarshalJSON() ([]byte, error) {
	s := make([]string, len(p.Schedule))
	for i, d := range p.Schedule {
		s[i] = d.String()
	}
	return json.Marshal(policyJSON{s, p.MaxAttempts, p.MaxElapsed.String(), p.RetryAfterCap.String(), p.OnUnknown, p.Jitter})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (p *Policy) UnmarshalJSON(b []byte) error {
	var j policyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	sched, err := ParseSchedule(strings.Join(j.Schedule, ","))
	if err != nil {
		return err
	}
	var me, rc time.Duration
	if j.MaxElapsed != "" {
		if me, err = time.ParseDuration(j.MaxElapsed); err != nil {
			return err
		}
	}
	if j.RetryAfterCap != "" {
		if rc, err = time.ParseDuration(j.RetryAfterCap); err != nil {
			return err
		}
	}
	*p = Policy{Schedule: sched, MaxAttempts: j.MaxAttempts, MaxElapsed: me, RetryAfterCap: rc, OnUnknown: j.OnUnknown, Jitter: j.Jitter}
	return nil
}

// String renders the policy in one line, e.g. "schedule 2s,4s; 5 attempts; max elapsed 15m0s".
func (p Policy) String() string {
	attempts := "attempts"
	if p.MaxAttempts == 1 {
		attempts = "attempt"
	}
	s := fmt.Sprintf("schedule %s; %d %s; max elapsed %s; retry-after cap %s; on unknown %s",
		FormatSchedule(p.Schedule), p.MaxAttempts, attempts, p.MaxElapsed, p.RetryAfterCap, p.OnUnknown)
	if p.Jitter > 0 {
		s += fmt.Sprintf("; jitter %v", p.Jitter)
	}
	return s
}

// ParseSchedule parses a comma-separated list of Go durations such as "10s,20s,60s".
func ParseSchedule(s string) ([]time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []time.Duration
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		d, err := time.ParseDuration(part)
		if err != nil {
			return nil, fmt.Errorf("invalid schedule %q: entry %d %q is not a duration like 10s or 1m30s", s, i+1, part)
		}
		if d < 0 {
			return nil, fmt.Errorf("invalid schedule %q: entry %d is negative", s, i+1)
		}
		out = append(out, d)
	}
	return out, nil
}

// FormatSchedule renders waits as "10s,20s,1m0s".
func FormatSchedule(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ",")
}

// Schedule is a backoff.BackOff over an explicit list of waits: it returns them
// in order, then repeats the last one, raised to MinRepeatWait when shorter
// (an immediate retry, repeated, is a hot loop); it returns backoff.Stop only
// when the list is empty. Policy.BackOff bounds it with backoff.WithMaxRetries.
//
// The loop that consumes it is not backoff.Retry, because a wait is decided
// by more than the backoff: whether to retry at all comes from the failure's
// class and the step's CanRetry (not from a Permanent wrapper), Diagnose may
// reclassify a failure before that decision, a server's Retry-After is a
// floor over the scheduled wait and stops the loop past its cap, and the max
// elapsed time bounds attempts and waits alike on the injected clock, with
// every attempt recorded for the report.
type Schedule struct {
	waits []time.Duration
	i     int
}

var _ backoff.BackOff = (*Schedule)(nil)

// NextBackOff returns the next wait, or backoff.Stop when there are no waits.
func (s *Schedule) NextBackOff() time.Duration {
	if len(s.waits) == 0 {
		return backoff.Stop
	}
	if s.i < len(s.waits) {
		d := s.waits[s.i]
		s.i++
		return d
	}
	return max(s.waits[len(s.waits)-1], MinRepeatWait)
}

// Reset starts the schedule over.
func (s *Schedule) Reset() { s.i = 0 }
