// Package breaker is the per-host circuit breaker of HTTP steps: after
// Threshold consecutive real failures against one host:port it opens and
// short-circuits every request to that host for Cooldown, then lets exactly
// one trial request through (half-open); the trial's success closes it, its
// failure opens it again.
//
// Only real failures count: transient and unknown ones (5xx, resets,
// timeouts, refused connections). Absent answers (404/410 on a lookup),
// policy answers (401/403) and structural ones (400/422) are neutral: a
// healthy host, used correctly, returns them, so they neither count nor
// reset. A success resets the count. This is the lesson of a burst of
// guessed paths answering 404: counting them trips the breaker and blocks
// the valid call queued behind them.
//
// The breakers live in a Registry that the caller owns and passes in (one per
// process, shared by all of its steps); there is no package-level state.
//
// Why not github.com/sony/gobreaker/v2: its IsExcluded hook would fit the
// neutral answers, but its state machine reads time.Now directly and offers
// no clock hook, so a 30 s cooldown could only be tested by sleeping, and its
// waits could not follow the injected clock.Clock that drives every other
// wait in retrywise. This breaker is small and runs on clock.Clock.
package breaker

import (
	"fmt"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// Defaults for Settings.
const (
	// DefaultThreshold is the number of consecutive failures that opens a breaker (3).
	DefaultThreshold = 3
	// DefaultCooldown is how long an open breaker short-circuits before its half-open trial (30 s).
	DefaultCooldown = 30 * time.Second
)

// Settings configures a breaker.
type Settings struct {
	// Threshold is the number of consecutive failures that opens the breaker; 0 or less disables it.
	Threshold int
	// Cooldown is how long the breaker stays open; 0 means DefaultCooldown.
	Cooldown time.Duration
}

// State is a breaker's state.
type State int

// The three states.
const (
	// Closed lets every request through and counts consecutive failures.
	Closed State = iota
	// Open short-circuits every request until the cooldown has passed.
	Open
	// HalfOpen lets one trial request through; its result closes or reopens the breaker.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Result is what one request tells the breaker.
type Result int

// The three results.
const (
	// Neutral neither counts nor resets: an absent, policy or structural answer, or a cancelled request.
	Neutral Result = iota
	// Success resets the count (and closes a half-open breaker).
	Success
	// Failure counts towards the threshold (and reopens a half-open breaker).
	Failure
)

// ResultOf maps a classified failure to its breaker result: nil is Success,
// transient and unknown failures are Failure, every other class is Neutral.
func ResultOf(f *failure.Failure) Result {
	if f == nil {
		return Success
	}
	switch f.Class {
	case failure.Transient, failure.Unknown:
		return Failure
	}
	return Neutral
}

// OpenError is returned by Allow when the breaker short-circuits a request.
type OpenError struct {
	// Key is the breaker's host:port.
	Key string
	// Failures is the number of consecutive failures that opened it.
	Failures int
	// Last is the one-line reason of the last counted failure.
	Last string
	// Until is when the half-open trial may start; zero while a trial is in flight.
	Until time.Time
	// TrialInFlight is true when the breaker is half-open and its one trial request is running.
	TrialInFlight bool
}

// Error returns "circuit breaker open for HOST after N consecutive
// failures" ("after 1 failure" for one).
func (e *OpenError) Error() string {
	if e.Failures == 1 {
		return fmt.Sprintf("circuit breaker open for %s after 1 failure", e.Key)
	}
	return fmt.Sprintf("circuit breaker open for %s after %d consecutive failures", e.Key, e.Failures)
}

// Ticket is the permission Allow grants for one request; pass it to Done.
type Ticket struct {
	gen   uint64
	trial bool
}

// Breaker is one host's breaker; it is safe for concurrent use.
type Breaker struct {
	key string
	clk clock.Clock

	mu       sync.Mutex
	settings Settings
	state    State
	failures int       // consecutive counted failures
	last     string    // reason of the last counted failure
	until    time.Time // end of the cooldown while open
	gen      uint64    // bumped on every state change; stale tickets are ignored
	trial    bool      // a half-open trial is in flight
}

// Key returns the breaker's host:port.
func (b *Breaker) Key() string { return b.key }

// State returns the current state, moving an open breaker whose cooldown has
// passed to half-open.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tick()
	return b.state
}

// Failures returns the consecutive failures counted so far and the last one's reason.
func (b *Breaker) Failures() (int, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures, b.last
}

// Refusal returns why no request to the host may be retried while b is open, and the consecutive failures that opened it; "" when b is nil or not open.
func (b *Breaker) Refusal() (why string, failures int) {
	if b == nil {
		return "", 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tick()
	if b.state != Open {
		return "", 0
	}
	oe := OpenError{Key: b.key, Failures: b.failures}
	return oe.Error() + ": no more requests to it in this run until its cooldown ends", b.failures
}

// Allow asks to send one request. It returns a Ticket, or an *OpenError when
// the breaker is open, or half-open with its trial already in flight.
func (b *Breaker) Allow() (Ticket, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.settings.Threshold <= 0 {
		return Ticket{gen: b.gen}, nil
	}
	b.tick()
	switch b.state {
	case Open:
		return Ticket{}, &OpenError{Key: b.key, Failures: b.failures, Last: b.last, Until: b.until}
	case HalfOpen:
		if b.trial {
			return Ticket{}, &OpenError{Key: b.key, Failures: b.failures, Last: b.last, TrialInFlight: true}
		}
		b.trial = true
		return Ticket{gen: b.gen, trial: true}, nil
	}
	return Ticket{gen: b.gen}, nil
}

// Done records the result of the request t was granted for; last is the
// failure's one-line reason. Results of tickets granted before the last
// state change are ignored.
func (b *Breaker) Done(t Ticket, r Result, last string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.settings.Threshold <= 0 || t.gen != b.gen {
		return
	}
	b.tick()
	switch b.state {
	case Closed:
		switch r {
		case Success:
			b.failures, b.last = 0, ""
		case Failure:
			b.failures++
			b.last = last
			if b.failures >= b.settings.Threshold {
				b.open()
			}
		}
	case HalfOpen:
		if !t.trial {
			return
		}
		b.trial = false
		switch r {
		case Success:
			b.state, b.failures, b.last = Closed, 0, ""
			b.gen++
		case Failure:
			b.failures++
			b.last = last
			b.open()
		}
	}
}

// open moves the breaker to Open for one cooldown; b.mu is held.
func (b *Breaker) open() {
	b.state = Open
	b.until = b.clk.Now().Add(b.cooldown())
	b.trial = false
	b.gen++
}

// tick moves an open breaker whose cooldown has passed to half-open; b.mu is held.
func (b *Breaker) tick() {
	if b.state == Open && !b.clk.Now().Before(b.until) {
		b.state = HalfOpen
		b.trial = false
		b.gen++
	}
}

func (b *Breaker) cooldown() time.Duration {
	if b.settings.Cooldown > 0 {
		return b.settings.Cooldown
	}
	return DefaultCooldown
}

// Registry holds the breakers of one process, keyed by host:port; it is safe
// for concurrent use. Pass one Registry to every step of a run.
type Registry struct {
	clk clock.Clock

	mu sync.Mutex
	m  map[string]*Breaker
}

// NewRegistry returns an empty registry whose breakers run on clk (nil means the wall clock).
func NewRegistry(clk clock.Clock) *Registry {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Registry{clk: clk, m: map[string]*Breaker{}}
}

// Get returns the breaker for key (host:port), creating it closed; s becomes
// its settings, so the latest step's --breaker-threshold applies to the host.
func (r *Registry) Get(key string, s Settings) *Breaker {
	r.mu.Lock()
	b, ok := r.m[key]
	if !ok {
		b = &Breaker{key: key, clk: r.clk}
		r.m[key] = b
	}
	r.mu.Unlock()
	b.mu.Lock()
	b.settings = s
	b.mu.Unlock()
	return b
}

// Failure returns the classified failure of a short-circuited request
// (failure.BreakerOpen); now dates the cooldown's end.
func (e *OpenError) Failure(now time.Time) *failure.Failure {
	var left time.Duration
	if !e.TrialInFlight {
		left = e.Until.Sub(now)
	}
	return failure.BreakerOpen(e, e.Failures, e.Last, left, e.TrialInFlight)
}
