// Package failure holds the failure taxonomy and the recognisers that classify
// tool output, HTTP responses and Go errors into it.
//
// Every classification answers one question: if the same request were sent
// again unchanged, could the answer differ? Only a transient failure says yes.
package failure

import (
	"fmt"
	"strings"
	"time"
)

// Class is the closed set of failure classes.
type Class int

// The classes, ordered so that the zero value is None.
const (
	// None is no failure: the class of an attempt or a step that succeeded
	// (or did not run). Classify never returns it; its name is "", so the
	// JSON report leaves it out.
	None Class = iota
	// Unknown is a failure no recogniser claimed; it stops the loop.
	Unknown
	// Transient may succeed unchanged later: timeouts, resets, 5xx, 429.
	Transient
	// Policy is a decision already made: allowlist denial, 401/403, missing permission.
	Policy
	// Structural means the request itself must change: non-fast-forward, 400/422.
	Structural
	// Absent is a valid "not there" answer: 404/410 on a lookup.
	Absent
)

var classNames = [...]string{
	None:       "",
	Unknown:    "unknown",
	Transient:  "transient",
	Policy:     "policy",
	Structural: "structural",
	Absent:     "absent",
}

// String returns the lower-case name used in reports and JSON; "" for None
// (no failure), as the reports have always written it.
func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("class(%d)", int(c))
	}
	return classNames[c]
}

// MarshalText encodes the class by name, None as "" (a field tagged
// omitempty is then left out, as it was when the class was a string).
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes a class name; "" is None.
func (c *Class) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*c = None
		return nil
	}
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseClass returns the failure class with the given name; None, no
// failure, is not one.
func ParseClass(s string) (Class, error) {
	for i, n := range classNames[Unknown:] {
		if strings.EqualFold(s, n) {
			return Unknown + Class(i), nil
		}
	}
	return Unknown, fmt.Errorf("unknown failure class %q (want one of %s)", s, strings.Join(classNames[Unknown:], ", "))
}

// Decision is what the classification alone recommends.
type Decision string

// The two decisions.
const (
	Retry Decision = "retry"
	Stop  Decision = "stop"
)

// Decision returns retry for transient failures and stop for every other class.
func (c Class) Decision() Decision {
	if c == Transient {
		return Retry
	}
	return Stop
}

// Failure is one classified failure; it is an error so callers can use errors.As.
type Failure struct {
	// Class is the verdict.
	Class Class
	// Code is the stable, machine-readable kind of failure (e.g.
	// git-non-fast-forward, proxy-denied, http-429); callers and tests switch
	// on it, never on Reason. CodeUnknown only when nothing recognised it.
	Code Code
	// Reason says what failed in one line, e.g. "curl 28, operation timed out".
	Reason string
	// Remedy tells a person what to do about it; empty when nothing better than retrying is known.
	Remedy string
	// Evidence quotes what the verdict rests on: output lines, a status and header.
	Evidence []string
	// RetryAfter is the wait the server asked for (Retry-After, X-RateLimit-Reset); zero when none.
	RetryAfter time.Duration
	// ResetAt is when a spent limit resets (a rate limit's window, a quota),
	// when the failure tells it; zero when not known. explain compares it
	// with now: a reset already past makes a re-run useful.
	ResetAt time.Time
	// ResetIn is how long after the failure a spent limit resets, as its
	// text states it ("try again in 24h"); zero when not stated. explain
	// adds it to when the job failed.
	ResetIn time.Duration
	// Trace says how the failure arose on the way to the server: at the
	// network level, through a proxy, before the request was sent, as a
	// refusal of the credentials. It is read once, with the class.
	Trace Trace
	// Rule is where the team rule that decided the failure is written
	// ("FILE:LINE", see package teamrules); "" when a built-in recogniser did.
	Rule string
	// Err is the underlying error, if any.
	Err error
	// Persistent, when set, says the failure repeats what the runs before
	// failed with (hindsight): the loop made no retry.
	Persistent *Persistence
}

// Error returns "class: reason".
func (f *Failure) Error() string {
	if f.Reason == "" {
		return f.Class.String()
	}
	return f.Class.String() + ": " + f.Reason
}

// Unwrap returns the underlying error.
func (f *Failure) Unwrap() error { return f.Err }

// New returns a failure of class c and code with the given reason and remedy.
func New(c Class, code Code, reason, remedy string, evidence ...string) *Failure {
	return &Failure{Class: c, Code: code, Reason: reason, Remedy: remedy, Evidence: evidence}
}

// Recognised reports whether a recogniser or a rule claimed f: its code is
// neither CodeUnknown nor CodeNoOutput.
func (f *Failure) Recognised() bool {
	return f.Code != CodeUnknown && f.Code != CodeNoOutput && f.Code != ""
}
