package failure

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxWaitSeconds is the most whole seconds a time.Duration holds; a longer
// wait saturates at the largest duration (over any cap), it is not absent.
const maxWaitSeconds = math.MaxInt64 / int64(time.Second)

// RetryAfter returns the wait the server asked for, relative to the
// response (ReadWait's Wait): Retry-After (delta seconds or HTTP-date),
// else a reset (X-RateLimit-Reset, X-Rate-Limit-Reset, the x-*-limit-24hour
// headers, the IETF RateLimit fields, RateLimit-Reset) of a limit with none
// remaining. A time already past gives (0, true); a wait longer than a
// time.Duration holds gives the largest duration. ok is false when no
// header states a wait (a window alone, "w=21600", is not one: see ReadWait).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	w, ok := ReadWait(h, now)
	if !ok || w.Window {
		return 0, false
	}
	return w.Wait, true
}

// HeaderWait is the wait a rate-limited response's headers give.
type HeaderWait struct {
	// Wait is the wait from the response's time (its Date header, else now).
	Wait time.Duration
	// Reset is when the limit resets; zero when only a window is known.
	Reset time.Time
	// Window says Wait is the length of the limit's window (RateLimit-Policy
	// w=, "0;w=21600", a 24-hour limit without its reset): the longest the
	// limit may take to free up, not a stated reset.
	Window bool
	// From is the header that gave it, as "Name: value".
	From string
}

// ReadWait reads the wait of a rate-limited response from its headers, in
// every dialect: Retry-After (delta seconds or HTTP-date); X-RateLimit-Reset
// and X-Rate-Limit-Reset with none remaining (unix seconds, unix
// milliseconds or delta seconds, told apart by size); the x-*-limit-24hour-*
// headers of a spent daily limit; the IETF RateLimit field ("r=0;t=30"),
// its older draft ("remaining=0, reset=30") and RateLimit-Reset; the window
// of a spent limit (RateLimit-Policy w=, "RateLimit-Remaining: 0;w=21600")
// when no reset is given. Dates and resets are measured from the response's
// Date header when it has one (the server's clock, not the local one), else
// from now. ok is false when no header gives a wait.
func ReadWait(h http.Header, now time.Time) (HeaderWait, bool) {
	if now.IsZero() {
		now = time.Now()
	}
	if len(h) == 0 {
		return HeaderWait{}, false
	}
	base := now
	if d, err := http.ParseTime(headerGet(h, "Date")); err == nil {
		base = d
	}
	if v := strings.TrimSpace(headerGet(h, "Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			if n >= 0 { // ErrRange gives MaxInt64 or MinInt64
				return relWait(base, n, "Retry-After", v), true
			}
		} else if t, err := http.ParseTime(v); err == nil {
			return HeaderWait{Wait: until(t, base), Reset: t, From: "Retry-After: " + v}, true
		}
	}
	for _, p := range [][2]string{{"X-RateLimit-Remaining", "X-RateLimit-Reset"}, {"X-Rate-Limit-Remaining", "X-Rate-Limit-Reset"}} {
		if leadingInt(headerGet(h, p[0])) == 0 {
			if w, ok := resetValue(headerGet(h, p[1]), p[1], base); ok {
				return w, true
			}
		}
	}
	if w, ok := dailyLimit(h, base); ok {
		return w, true
	}
	if w, ok := ietfRateLimit(h, base); ok {
		return w, true
	}
	if leadingInt(headerGet(h, "RateLimit-Remaining")) == 0 {
		if v := headerGet(h, "RateLimit-Reset"); v != "" {
			// delta seconds (the IETF draft), or a unix time within a year
			// of the answer's date, as some servers send (Bluesky's PDS)
			if n, ok := leadingSeconds(v); ok {
				if u := base.Unix(); n >= epochMin && n > u-epochNear && n < u+epochNear {
					t := time.Unix(n, 0)
					return HeaderWait{Wait: until(t, base), Reset: t, From: "RateLimit-Reset: " + strings.TrimSpace(v)}, true
				}
				return relWait(base, n, "RateLimit-Reset", v), true
			}
		}
		if w, ok := windowOf(h, "RateLimit-Remaining", "RateLimit-Limit"); ok {
			return w, true
		}
	}
	return HeaderWait{}, false
}

// relWait is a wait of n seconds from base, named by the header k: v.
func relWait(base time.Time, n int64, k, v string) HeaderWait {
	d := secondsWait(n)
	w := HeaderWait{Wait: d, From: k + ": " + strings.TrimSpace(v)}
	if d < math.MaxInt64 {
		w.Reset = base.Add(d)
	}
	return w
}

// Resets at or over epochMin are unix times; under it, delta seconds (a
// delta of 1e9 s is 31 years). Over epochMilli they are unix milliseconds.
const (
	// epochNear is how near an answer's date a RateLimit-Reset must be to
	// be read as a unix time rather than as delta seconds: a year.
	epochNear  = 366 * 24 * 3600
	epochMin   = 1_000_000_000
	epochMilli = 100_000_000_000
)

// resetValue reads an X-RateLimit-Reset value: a unix time in seconds or
// milliseconds, or a delta in seconds, measured from base.
func resetValue(v, k string, base time.Time) (HeaderWait, bool) {
	n, ok := leadingSeconds(v)
	if !ok || v == "" {
		return HeaderWait{}, false
	}
	from := k + ": " + strings.TrimSpace(v)
	switch {
	case n < epochMin:
		w := relWait(base, n, k, v)
		return w, true
	case n >= epochMilli && n < math.MaxInt64:
		n /= 1000
	}
	if u := base.Unix(); u >= 0 && n-u > maxWaitSeconds {
		return HeaderWait{Wait: math.MaxInt64, From: from}, true
	}
	t := time.Unix(n, 0)
	return HeaderWait{Wait: until(t, base), Reset: t, From: from}, true
}

// dailyLimit reads the x-*-limit-24hour-* headers (x-app-limit-24hour-*,
// x-user-limit-24hour-*): a spent 24-hour limit waits for its reset, or for
// the day when no reset is given.
func dailyLimit(h http.Header, base time.Time) (HeaderWait, bool) {
	for k, vs := range h {
		lk := strings.ToLower(k)
		if len(vs) == 0 || !strings.HasPrefix(lk, "x-") || !strings.HasSuffix(lk, "-limit-24hour-remaining") || leadingInt(vs[0]) != 0 {
			continue
		}
		rk := strings.TrimSuffix(lk, "remaining") + "reset"
		if w, ok := resetValue(headerGet(h, rk), rk, base); ok {
			return w, true
		}
		return HeaderWait{Wait: 24 * time.Hour, Window: true, From: k + ": " + vs[0]}, true
	}
	return HeaderWait{}, false
}

// ietfRateLimit reads the IETF RateLimit field: the structured form
// ("default";r=0;t=30, one item per policy) and the older draft's
// (limit=100, remaining=0, reset=30). A spent item without t= waits for its
// policy's window (RateLimit-Policy: "default";q=100;w=3600).
func ietfRateLimit(h http.Header, base time.Time) (HeaderWait, bool) {
	v := headerGet(h, "RateLimit")
	if v == "" {
		return HeaderWait{}, false
	}
	from := "RateLimit: " + strings.TrimSpace(v)
	old := map[string]string{}
	var best HeaderWait
	found := false
	for _, item := range strings.Split(v, ",") {
		parts := strings.Split(item, ";")
		name := strings.Trim(strings.TrimSpace(parts[0]), `"`)
		params := map[string]string{}
		for _, p := range parts {
			if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok {
				params[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(val), `"`)
			}
		}
		for _, k := range []string{"remaining", "reset"} {
			if val, ok := params[k]; ok {
				old[k] = val
			}
		}
		r, hasR := params["r"]
		if !hasR || leadingInt(r) != 0 {
			continue
		}
		var w HeaderWait
		if t, ok := leadingSeconds(params["t"]); ok {
			w = relWait(base, t, "RateLimit", v)
		} else if win, ok := policyWindow(headerGet(h, "RateLimit-Policy"), name); ok {
			w = HeaderWait{Wait: win, Window: true}
		} else {
			continue
		}
		w.From = from
		if !found || w.Wait > best.Wait {
			best, found = w, true
		}
	}
	if found {
		return best, true
	}
	if rem, ok := old["remaining"]; ok && leadingInt(rem) == 0 {
		if n, ok := leadingSeconds(old["reset"]); ok {
			w := relWait(base, n, "RateLimit", v)
			w.From = from
			return w, true
		}
	}
	return HeaderWait{}, false
}

// policyWindow returns the w= of the policy named name in a
// RateLimit-Policy field (the only policy when name is "").
func policyWindow(v, name string) (time.Duration, bool) {
	for _, item := range strings.Split(v, ",") {
		parts := strings.Split(item, ";")
		n := strings.Trim(strings.TrimSpace(parts[0]), `"`)
		if name != "" && n != name && !strings.Contains(n, "=") {
			continue
		}
		for _, p := range parts {
			if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "w") {
				if s, ok := leadingSeconds(val); ok {
					return secondsWait(s), true
				}
			}
		}
	}
	return 0, false
}

// windowOf returns the window (";w=N") of a spent limit in the given
// headers ("RateLimit-Remaining: 0;w=21600", Docker Hub's), else the
// window of RateLimit-Policy.
func windowOf(h http.Header, keys ...string) (HeaderWait, bool) {
	for _, k := range keys {
		v := headerGet(h, k)
		if i := strings.Index(strings.ToLower(v), "w="); i >= 0 {
			if s, ok := leadingSeconds(v[i+2:]); ok {
				return HeaderWait{Wait: secondsWait(s), Window: true, From: k + ": " + strings.TrimSpace(v)}, true
			}
		}
	}
	if v := headerGet(h, "RateLimit-Policy"); v != "" {
		if d, ok := policyWindow(v, ""); ok {
			return HeaderWait{Wait: d, Window: true, From: "RateLimit-Policy: " + strings.TrimSpace(v)}, true
		}
	}
	return HeaderWait{}, false
}

// ResetWait returns the wait from now until v, an X-RateLimit-Reset value
// (unix seconds): 0 when it is past, the largest duration when it is further
// than a time.Duration holds; ok is false when v is not a positive number.
func ResetWait(v string, now time.Time) (time.Duration, bool) {
	n, ok := leadingSeconds(v)
	if !ok || n <= 0 {
		return 0, false
	}
	if now.IsZero() {
		now = time.Now()
	}
	if u := now.Unix(); u >= 0 && n-u > maxWaitSeconds {
		return math.MaxInt64, true
	}
	return until(time.Unix(n, 0), now), true
}

// secondsWait converts n whole seconds (n >= 0) to a wait, saturated at the
// largest duration.
func secondsWait(n int64) time.Duration {
	if n > maxWaitSeconds {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// leadingSeconds reads the digits that start s as a count of seconds,
// saturated at math.MaxInt64; ok is false when s starts with no digit.
func leadingSeconds(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil { // only ErrRange: digits past int64
		return math.MaxInt64, true
	}
	return n, true
}

func until(t, now time.Time) time.Duration {
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}

// isRateLimit reports whether f is a rate limit (a throttle whose wait the
// server may state).
func isRateLimit(f *Failure) bool {
	switch f.Code {
	case CodeRateLimited, HTTPCode(429), CodeThrottled, CodeGitHubRateLimit, CodeGitHubSecondary:
		return true
	}
	return strings.Contains(f.Reason, "rate limit")
}

// JudgeWait decides a rate limit by its wait, against budget, the step's
// whole max elapsed (0 means DefaultMaxElapsed), the rule waits stated in
// text follow: a wait no longer than the budget stays transient (the retry
// loop may still stop over its Retry-After cap or the time left, exit 75:
// the cap is the user's patience, not the server's answer); a longer one is
// policy (CodeRateLimitWindow): the limit outlasts the run, the reason names
// the reset and the remedy says when to retry. w is the wait the headers
// gave (ReadWait); when they gave none, f.RetryAfter (a wait read from the
// body) is judged. f is returned unchanged when it is not a transient rate
// limit or its wait fits.
func JudgeWait(f *Failure, w HeaderWait, hasWait bool, budget time.Duration, now time.Time) *Failure {
	if f == nil || f.Class != Transient || !isRateLimit(f) {
		return f
	}
	if budget <= 0 {
		budget = DefaultMaxElapsed
	}
	if !hasWait {
		if f.RetryAfter <= 0 {
			return f
		}
		if now.IsZero() {
			now = time.Now()
		}
		w = HeaderWait{Wait: f.RetryAfter, Reset: now.Add(f.RetryAfter)}
	}
	if w.Wait <= budget {
		return f
	}
	g := *f
	g.Class, g.Code = Policy, CodeRateLimitWindow
	g.RetryAfter, g.ResetAt, g.ResetIn = w.Wait, w.Reset, w.Wait
	g.Evidence = append([]string(nil), f.Evidence...)
	if w.From != "" && len(g.Evidence) < maxEvidenceLines && !containsLine(g.Evidence, w.From) {
		g.Evidence = append(g.Evidence, EvidenceLineAt(Clip(w.From), 0))
	}
	when := resetWords(w)
	g.Reason = fmt.Sprintf("%s; the limit resets %s, after the step's max elapsed of %s", f.Reason, when, budget)
	g.Remedy = fmt.Sprintf("the rate limit outlasts the step: run again %s (a later scheduled run), or authenticate or use credentials with a higher limit; retrying within this run cannot succeed", retryWhen(w))
	return &g
}

// resetWords renders a wait for a reason: "at 2026-12-07 14:00:00 UTC (in
// 5h58m)", or "within 6h (the limit's window)".
func resetWords(w HeaderWait) string {
	switch {
	case w.Window:
		return "within " + humanWait(w.Wait) + " (the limit's window)"
	case !w.Reset.IsZero():
		return "at " + w.Reset.UTC().Format(resetLayout) + " (in " + humanWait(w.Wait) + ")"
	case w.Wait == math.MaxInt64:
		return "further away than any run"
	}
	return "in " + humanWait(w.Wait)
}

// retryWhen says when to run again: after the reset, or once the window has
// passed.
func retryWhen(w HeaderWait) string {
	switch {
	case w.Window:
		return "once the limit's window of " + humanWait(w.Wait) + " has passed"
	case !w.Reset.IsZero():
		return "after " + w.Reset.UTC().Format(resetLayout)
	}
	return "after the reset"
}

// resetLayout is how a reset time is written in reasons and remedies.
const resetLayout = "2006-01-02 15:04:05 UTC"

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// ResetPassed lowers a verdict on a spent limit (a rate-limit window, a
// quota) whose reset is already past at now: transient, a re-run may pass.
// The reset is f.ResetAt when known, else failedAt (when the failure was
// seen, as a job's completion) plus the wait its text stated (f.ResetIn).
// explain reads old logs with it; f is returned unchanged otherwise.
func ResetPassed(f *Failure, failedAt, now time.Time) *Failure {
	if f == nil || f.Class != Policy {
		return f
	}
	switch f.Code {
	case CodeRateLimitWindow, CodeQuotaExhausted:
	default:
		return f
	}
	reset := f.ResetAt
	in := f.ResetIn
	if in == 0 {
		in = statedWait(f.Evidence)
	}
	if reset.IsZero() && in > 0 && !failedAt.IsZero() {
		reset = failedAt.Add(in)
	}
	if reset.IsZero() || now.Before(reset) {
		return f
	}
	g := *f
	g.Class, g.RetryAfter = Transient, 0
	g.Reason = f.Reason + "; that reset (" + reset.UTC().Format(resetLayout) + ") has passed since"
	g.Remedy = "the limit has reset since the failure: a re-run may pass"
	return &g
}

// statedWait returns the wait the first of lines to state one gives ("try
// again in 30 minutes"), or 0.
func statedWait(lines []string) time.Duration {
	for _, l := range lines {
		if m := reWaitStated.FindStringSubmatch(l); m != nil {
			if d, ok := parseWait(strings.TrimSpace(m[1])); ok {
				return d
			}
		}
	}
	return 0
}
