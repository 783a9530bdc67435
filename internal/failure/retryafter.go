package failure

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxWaitSeconds bounds a parsed wait so it fits a time.Duration.
const maxWaitSeconds = math.MaxInt64 / int64(time.Second)

// RetryAfter returns the wait the server asked for, relative to now:
// Retry-After (delta seconds or HTTP-date), else X-RateLimit-Reset (unix
// seconds) when X-RateLimit-Remaining is 0, else RateLimit-Reset (delta
// seconds) when RateLimit-Remaining is 0. A time already past gives (0, true).
// ok is false when no header gives a usable wait.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if now.IsZero() {
		now = time.Now()
	}
	if v := strings.TrimSpace(headerGet(h, "Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			if n >= 0 && n <= maxWaitSeconds {
				return time.Duration(n) * time.Second, true
			}
		} else if t, err := http.ParseTime(v); err == nil {
			return until(t, now), true
		}
	}
	if leadingInt(headerGet(h, "X-RateLimit-Remaining")) == 0 {
		if n := leadingInt(headerGet(h, "X-RateLimit-Reset")); n > 0 && n <= maxWaitSeconds {
			return until(time.Unix(n, 0), now), true
		}
	}
	if leadingInt(headerGet(h, "RateLimit-Remaining")) == 0 {
		if n := leadingInt(headerGet(h, "RateLimit-Reset")); n >= 0 && n <= maxWaitSeconds {
			return time.Duration(n) * time.Second, true
		}
	}
	return 0, false
}

func until(t, now time.Time) time.Duration {
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}
