package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// Step is one kind of work the loop can attempt; it answers only two questions.
type Step interface {
	// Attempt performs attempt n (1-based) and returns nil on success or the
	// failure; errors that are not *failure.Failure are classified by failure.FromError.
	Attempt(ctx context.Context, n int) error
	// CanRetry reports whether f may be retried in the same context (an idempotent
	// request, nothing half-applied); when it may not, why says so in one line.
	CanRetry(f *failure.Failure) (ok bool, why string)
}

// Rechecker is a Step that may ask, at most once per run, for one more
// attempt after a failure its class alone would stop on: a token refused
// while it propagates (git push --auth-recheck). The loop records that
// attempt like any other, with its own progress line and report row; the
// wait counts against MaxElapsed but not against the schedule.
type Rechecker interface {
	// Recheck returns the wait before the extra attempt and why it is made,
	// in one line; ok is false when f does not qualify.
	Recheck(f *failure.Failure) (wait time.Duration, why string, ok bool)
}

// BeforeRetrier is a Step that prepares every retry: a clean-up that must
// succeed before the next attempt may start (exec --on-retry). The loop
// calls it after the wait, before attempt n (n > 1); an error stops the
// loop (StopCleanupFailed) with the last failure as the final one, since
// the next attempt would not start from a clean state.
type BeforeRetrier interface {
	// BeforeRetry prepares attempt n; its error says in one line what failed.
	BeforeRetry(ctx context.Context, n int) error
}

// Narrator is a Step whose attempts may run different commands (a
// continuation instead of a restart): it says, for the report, which
// command attempt n ran and why.
type Narrator interface {
	// Ran returns the command attempt n ran and why that one.
	Ran(n int) (command, why string)
}

// StepFunc adapts a function to a Step that can always be retried in the same context.
type StepFunc func(ctx context.Context, n int) error

// Attempt calls f.
func (f StepFunc) Attempt(ctx context.Context, n int) error { return f(ctx, n) }

// CanRetry always allows a retry.
func (StepFunc) CanRetry(*failure.Failure) (bool, string) { return true, "" }

// Stop says why the loop ended.
type Stop string

// The reasons a loop ends.
const (
	StopSucceeded         Stop = "succeeded"
	StopNotRetryable      Stop = "not-retryable"
	StopCannotRetry       Stop = "cannot-retry-in-context"
	StopAttemptsExhausted Stop = "attempts-exhausted"
	StopElapsedExhausted  Stop = "elapsed-exhausted"
	StopRetryAfterOverCap Stop = "retry-after-over-cap"
	StopCancelled         Stop = "cancelled"
	StopCleanupFailed     Stop = "clean-up-failed"
	StopPersistent        Stop = "persistent"
)

// Attempt is the record of one attempt.
type Attempt struct {
	// N is the attempt number, from 1.
	N int `json:"n"`
	// Start is when it began.
	Start time.Time `json:"start"`
	// Duration is how long it ran.
	Duration time.Duration `json:"duration_ns"`
	// OK is true when the attempt succeeded.
	OK bool `json:"ok"`
	// Class is the failure's class; None on success (no "class" in the JSON).
	Class failure.Class `json:"class,omitempty"`
	// Code is the failure's stable code (failure.Code); empty on success.
	Code failure.Code `json:"code,omitempty"`
	// Reason is the failure's one-line reason; empty on success.
	Reason string `json:"reason,omitempty"`
	// Wait is the wait that followed this attempt; zero after the last. A
	// wait cut short (a signal, a job's timeout) is the time actually waited.
	Wait time.Duration `json:"wait_ns,omitempty"`
	// Recheck says why the next attempt re-checks a failure that would have
	// stopped the loop (Rechecker); empty for a scheduled retry.
	Recheck string `json:"recheck,omitempty"`
	// Command is what the attempt ran, when the step's attempts may differ
	// (Narrator); Why says why that command.
	Command string `json:"command,omitempty"`
	Why     string `json:"why,omitempty"`
	// Failure is the full classification; not serialised (the report carries the final one).
	Failure *failure.Failure `json:"-"`
}

// record sets the attempt's failure and the fields read from it.
func (a *Attempt) record(f *failure.Failure) {
	a.Class, a.Code, a.Reason, a.Failure = f.Class, f.Code, f.Reason, f
}

// Outcome is what the loop did and why it stopped.
type Outcome struct {
	// Policy is the normalised snapshot that ran.
	Policy Policy
	// Attempts records the attempts in order: every one up to KeepAttempts,
	// else the first and the last KeepAttempts/2, Omitted counting those between.
	Attempts []Attempt
	// Omitted is how many attempts between the first and the last kept ones
	// are not recorded in Attempts.
	Omitted int
	// Final is the failure that ended the loop; nil on success.
	Final *failure.Failure
	// Stop says why the loop ended.
	Stop Stop
	// Detail explains Stop in one line when it is not obvious from Final.
	Detail string
	// Cause is the context's cause when the loop was cancelled.
	Cause error
	// Elapsed is the time from the first attempt to the end of the loop.
	Elapsed time.Duration
}

// OK reports whether the loop ended in success.
func (o *Outcome) OK() bool { return o.Stop == StopSucceeded }

// Count returns how many attempts ran, recorded or not.
func (o *Outcome) Count() int { return len(o.Attempts) + o.Omitted }

// KeepAttempts is the most attempt records an Outcome keeps: a longer run
// (only with MaxAttemptsLimit forced) keeps its first and last 500.
const KeepAttempts = 1000

// keepStep is how many middle records are dropped at once when a run
// outgrows KeepAttempts, so that dropping is not a copy per attempt.
const keepStep = 100

// add records a, dropping middle records once there are too many; the
// caller takes its pointer to the last record afterwards.
func (o *Outcome) add(a Attempt) {
	if len(o.Attempts) >= KeepAttempts+keepStep {
		o.dropMiddle(len(o.Attempts) - KeepAttempts + 1)
	}
	o.Attempts = append(o.Attempts, a)
}

// dropMiddle drops n records after the first KeepAttempts/2.
func (o *Outcome) dropMiddle(n int) {
	if n <= 0 {
		return
	}
	half := KeepAttempts / 2
	o.Attempts = slices.Delete(o.Attempts, half, half+n)
	o.Omitted += n
}

// trim leaves at most KeepAttempts records, the first and the last half.
func (o *Outcome) trim() { o.dropMiddle(len(o.Attempts) - KeepAttempts) }

// ErrMaxElapsed is the cause (context.Cause) of the context an attempt runs
// under once the loop has reached its max elapsed time on its clock.
var ErrMaxElapsed = errors.New("the loop reached its max elapsed time")

// Coordinator runs steps under one policy; the zero Clock means the wall clock.
type Coordinator struct {
	// Policy is the snapshot; Run normalises it.
	Policy Policy
	// Clock drives every wait; nil means clock.Real.
	Clock clock.Clock
	// Progress is called after each failed attempt that will be retried, with the wait
	// that follows; it is not called after the last attempt.
	Progress func(a Attempt, maxAttempts int)
	// Diagnose, when set, is called with every failure before the loop decides whether
	// to wait; it may return a reclassified failure (an egress denial turns a network
	// failure into policy; a proxy that fails for everyone turns a bare 403 into
	// transient). It returns f itself (or nil) to keep it, and must be bounded in time.
	Diagnose func(ctx context.Context, f *failure.Failure) *failure.Failure
	// Attempting, when set, is called as attempt n starts; the function it
	// returns, when not nil, is called as the attempt ends, before its
	// failure is diagnosed or progress is printed (an action's log groups).
	Attempting func(n, maxAttempts int) (ended func())
	// Rand draws the jitter of each wait: a number in [0, 1). Nil means
	// math/rand/v2's; tests inject a seeded source.
	Rand func() float64
	// Hindsight, when set, is asked about every failure the loop would
	// retry: a non-nil answer is the same failure marked persistent (it
	// failed the same way in the runs before), and the loop stops on it
	// (StopPersistent) without a retry. It must not block.
	Hindsight func(f *failure.Failure) *failure.Failure
}

// Run attempts step until it succeeds, a failure is not retryable, or the policy's
// bounds are reached; it returns the full record. It returns an error only for an
// invalid policy.
func (c *Coordinator) Run(ctx context.Context, step Step) (*Outcome, error) {
	pol, err := c.Policy.Normalize()
	if err != nil {
		return nil, err
	}
	clk := c.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	out := &Outcome{Policy: pol}
	start := clk.Now()
	defer func() { out.Elapsed = clk.Now().Sub(start); out.trim() }()

	// The whole loop, attempts included, is bounded by MaxElapsed on the loop's
	// clock: an attempt still running when it is reached has its context
	// cancelled with ErrMaxElapsed, and no wait that would cross it starts.
	loopCtx, cancel := clock.WithTimeout(ctx, clk, pol.MaxElapsed, ErrMaxElapsed)
	defer cancel()
	reached := func() bool { return errors.Is(context.Cause(loopCtx), ErrMaxElapsed) }

	b := pol.BackOff()
	rechecked := false
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return c.cancelled(ctx, out), nil
		}
		if reached() {
			// A wait ended exactly at the bound: there is no time left for an attempt.
			out.Stop = StopElapsedExhausted
			out.Detail = fmt.Sprintf("the loop reached its max elapsed time of %s before attempt %d", pol.MaxElapsed, n)
			return out, nil
		}
		if br, ok := step.(BeforeRetrier); ok && n > 1 {
			if err := br.BeforeRetry(loopCtx, n); err != nil {
				if ctx.Err() != nil {
					return c.cancelled(ctx, out), nil
				}
				out.Stop = StopCleanupFailed
				out.Detail = fmt.Sprintf("the clean-up before attempt %d failed, so attempt %d would not start from a clean state: %v", n, n, err)
				return out, nil
			}
		}
		var ended func()
		if c.Attempting != nil {
			ended = c.Attempting(n, pol.MaxAttempts)
		}
		t0 := clk.Now()
		aerr := step.Attempt(loopCtx, n)
		if ended != nil {
			ended()
		}
		rec := Attempt{N: n, Start: t0, Duration: clk.Now().Sub(t0)}
		if nr, ok := step.(Narrator); ok {
			rec.Command, rec.Why = nr.Ran(n)
		}
		if aerr == nil {
			rec.OK = true
			out.add(rec)
			out.Stop = StopSucceeded
			return out, nil
		}
		f := failure.FromError(aerr)
		rec.record(f)
		out.add(rec)
		last := &out.Attempts[len(out.Attempts)-1]
		out.Final = f

		if ctx.Err() != nil {
			return c.cancelled(ctx, out), nil
		}
		if reached() {
			if f.Class != failure.Transient {
				// The loop's own deadline cut the attempt short: that is a timeout, whatever the child printed.
				f = failure.MaxElapsed(n, pol.MaxElapsed, f)
				out.Final = f
				last.record(f)
			}
			out.Stop = StopElapsedExhausted
			out.Detail = fmt.Sprintf("the loop reached its max elapsed time of %s during attempt %d", pol.MaxElapsed, n)
			return out, nil
		}
		if c.Diagnose != nil {
			dctx := context.WithValue(loopCtx, retryAheadKey{}, pol.MaxAttempts == 0 || n < pol.MaxAttempts)
			if d := c.Diagnose(dctx, f); d != nil && d != f {
				f = d
				out.Final = f
				last.record(f)
			}
			if ctx.Err() != nil {
				return c.cancelled(ctx, out), nil
			}
		}
		if !retryable(f, pol) {
			rc, isRechecker := step.(Rechecker)
			if rechecked || !isRechecker {
				out.Stop = StopNotRetryable
				return out, nil
			}
			wait, why, ok := rc.Recheck(f)
			if !ok {
				out.Stop = StopNotRetryable
				return out, nil
			}
			rechecked = true
			if elapsed := clk.Now().Sub(start); Add(elapsed, wait) > pol.MaxElapsed {
				out.Stop = StopNotRetryable
				out.Detail = fmt.Sprintf("no re-check: waiting %s more would cross the max elapsed time of %s", wait, pol.MaxElapsed)
				return out, nil
			}
			last.Wait, last.Recheck = wait, why
			if c.Progress != nil {
				c.Progress(*last, pol.MaxAttempts)
			}
			if slept := clk.Now(); !clock.Sleep(ctx, clk, wait) {
				last.Wait = clk.Now().Sub(slept) // cut short: the time actually waited
				return c.cancelled(ctx, out), nil
			}
			continue
		}
		if c.Hindsight != nil {
			if g := c.Hindsight(f); g != nil {
				out.Final = g
				last.record(g)
				out.Stop = StopPersistent
				out.Detail = "failed the same way as in the runs before: no retries"
				if g.Persistent != nil {
					out.Detail = fmt.Sprintf("failed the same way in %d runs: no retries", g.Persistent.Runs)
				}
				return out, nil
			}
		}
		if ok, why := step.CanRetry(f); !ok {
			out.Stop = StopCannotRetry
			out.Detail = why
			return out, nil
		}
		wait := b.NextBackOff()
		if wait == backoff.Stop {
			out.Stop = StopAttemptsExhausted
			out.Detail = fmt.Sprintf("all %d attempts failed", pol.MaxAttempts)
			if pol.MaxAttempts == 1 {
				out.Detail = "the only attempt allowed (max attempts 1) failed"
			}
			return out, nil
		}
		if f.RetryAfter > 0 && f.RetryAfter > pol.RetryAfterCap {
			out.Stop = StopRetryAfterOverCap
			out.Detail = fmt.Sprintf("the server asked to wait %s, over the retry-after cap of %s", f.RetryAfter, pol.RetryAfterCap)
			return out, nil
		}
		wait = Jittered(wait, f.RetryAfter, pol.RetryAfterCap, pol.Jitter, c.rand())
		if elapsed := clk.Now().Sub(start); Add(elapsed, wait) > pol.MaxElapsed {
			out.Stop = StopElapsedExhausted
			out.Detail = fmt.Sprintf("waiting %s more would cross the max elapsed time of %s (%s spent)", wait, pol.MaxElapsed, elapsed.Round(time.Millisecond))
			return out, nil
		}
		last.Wait = wait
		if c.Progress != nil {
			c.Progress(*last, pol.MaxAttempts)
		}
		if slept := clk.Now(); !clock.Sleep(ctx, clk, wait) {
			last.Wait = clk.Now().Sub(slept) // cut short: the time actually waited
			return c.cancelled(ctx, out), nil
		}
	}
}

// rand returns the Coordinator's random source.
func (c *Coordinator) rand() float64 {
	if c.Rand != nil {
		return c.Rand()
	}
	return rand.Float64()
}

// Jittered is the wait after a failure: the scheduled wait w spread by
// jitter j (u is a draw in [0, 1)): w·(1−j+2j·u). With a server's wait R
// (within cap) the wait is a floor that jitter only adds to: max(w, R) +
// j·min(R, w)·v with v = |2u−1|, itself uniform in [0, 1], never past cap
// (a schedule longer than cap is kept as it is). The middle draw, u = ½,
// leaves both exact. All arithmetic saturates.
func Jittered(w, R, cap time.Duration, j, u float64) time.Duration {
	if R > 0 {
		floor := max(w, R)
		if floor >= cap {
			return floor
		}
		return min(Add(floor, scale(min(R, w), j*math.Abs(2*u-1))), cap)
	}
	if j == 0 {
		return w
	}
	return scale(w, 1-j+2*j*u)
}

// scale returns d·f for f ≥ 0, saturated at the largest duration.
func scale(d time.Duration, f float64) time.Duration {
	if d <= 0 || f <= 0 {
		return 0
	}
	x := float64(d) * f
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(x)
}

func retryable(f *failure.Failure, p Policy) bool {
	return f.Class == failure.Transient || (f.Class == failure.Unknown && p.OnUnknown == UnknownRetry)
}

func (c *Coordinator) cancelled(ctx context.Context, out *Outcome) *Outcome {
	out.Stop = StopCancelled
	out.Cause = context.Cause(ctx)
	if out.Cause == nil {
		out.Cause = context.Canceled
	}
	out.Detail = "cancelled: " + out.Cause.Error()
	return out
}

// retryAheadKey marks a Diagnose context with whether another attempt may
// follow the failure diagnosed.
type retryAheadKey struct{}

// RetryAhead reports whether, as the loop's Diagnose is called, another
// attempt may follow the failure (the attempts are not spent): a diagnosis
// that only serves a retry (live evidence) is skipped otherwise. A context
// not from the loop says true.
func RetryAhead(ctx context.Context) bool {
	v, ok := ctx.Value(retryAheadKey{}).(bool)
	return !ok || v
}
