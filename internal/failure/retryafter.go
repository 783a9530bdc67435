package failure

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxWaitSeconds is the most whole seconds a time.Duration holds; a longer
// wait saturates at the largest duration (over any cap), it is not absent.
const maxWaitSeconds = math.MaxInt64 / int64(time.Second)

// RetryAfter returns the wait the server asked for, relative to now:
// Retry-After (delta seconds or HTTP-date), else X-RateLimit-Reset (unix
// seconds) when X-RateLimit-Remaining is 0, else RateLimit-Reset (delta
// seconds) when RateLimit-Remaining is 0. A time already past gives (0, true);
// a wait longer than a time.Duration holds gives the largest duration.
// ok is false when no header gives a usable wait.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if now.IsZero() {
		now = time.Now()
	}
	if v := strings.TrimSpace(headerGet(h, "Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			if n >= 0 { // ErrRange gives MaxInt64 or MinInt64
				return secondsWait(n), true
			}
		} else if t, err := http.ParseTime(v); err == nil {
			return until(t, now), true
		}
	}
	if leadingInt(headerGet(h, "X-RateLimit-Remaining")) == 0 {
		if d, ok := ResetWait(headerGet(h, "X-RateLimit-Reset"), now); ok {
			return d, true
		}
	}
	if leadingInt(headerGet(h, "RateLimit-Remaining")) == 0 {
		if n, ok := leadingSeconds(headerGet(h, "RateLimit-Reset")); ok {
			return secondsWait(n), true
		}
	}
	return 0, false
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
