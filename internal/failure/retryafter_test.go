package failure

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
)

const forever = time.Duration(math.MaxInt64)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	reset := func(d time.Duration) string { return fmt.Sprint(now.Add(d).Unix()) }
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"nil", nil, 0, false},
		{"none", http.Header{"Content-Type": {"text/plain"}}, 0, false},
		{"delta", http.Header{"Retry-After": {"120"}}, 120 * time.Second, true},
		{"zero", http.Header{"Retry-After": {"0"}}, 0, true},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0, false},
		{"huge", http.Header{"Retry-After": {"99999999999999999"}}, forever, true},
		{"one second over the largest duration", http.Header{"Retry-After": {"9223372037"}}, forever, true},
		{"the largest whole duration in seconds", http.Header{"Retry-After": {"9223372036"}}, 9223372036 * time.Second, true},
		{"past int64", http.Header{"Retry-After": {"99999999999999999999999"}}, forever, true},
		{"reset past int64", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"99999999999999999999999"}}, forever, true},
		{"reset 19 digits", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"9223372036854775807"}}, forever, true},
		{"IETF reset huge", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"9223372037"}}, forever, true},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"IMF-fixdate", http.Header{"Retry-After": {now.Add(45 * time.Second).Format(http.TimeFormat)}}, 45 * time.Second, true},
		{"RFC 850 date", http.Header{"Retry-After": {now.Add(time.Hour).Format("Monday, 02-Jan-06 15:04:05 GMT")}}, time.Hour, true},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{"reset with none left", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset(5 * time.Minute)}}, 5 * time.Minute, true},
		{"reset with some left", http.Header{"X-Ratelimit-Remaining": {"12"}, "X-Ratelimit-Reset": {reset(5 * time.Minute)}}, 0, false},
		{"reset without remaining", http.Header{"X-Ratelimit-Reset": {reset(5 * time.Minute)}}, 0, false},
		{"reset in the past", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset(-time.Minute)}}, 0, true},
		{"Retry-After beats reset", http.Header{"Retry-After": {"7"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset(time.Hour)}}, 7 * time.Second, true},
		{"non-canonical keys", http.Header{"x-ratelimit-remaining": {"0"}, "x-ratelimit-reset": {reset(time.Minute)}}, time.Minute, true},
		{"IETF RateLimit-Reset", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"30"}}, 30 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RetryAfter(tc.h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("RetryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
