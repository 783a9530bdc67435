package failure

import (
	"fmt"
	"math"
	"net/http"
	"strings"
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

// TestReadWaitDialects: the wait of a spent limit in every header dialect,
// measured from the response's Date when it has one.
func TestReadWaitDialects(t *testing.T) {
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	date := now.Add(-2 * time.Hour) // the server's clock is two hours behind ours
	unix := func(t time.Time) string { return fmt.Sprint(t.Unix()) }
	for _, tc := range []struct {
		name   string
		h      http.Header
		wait   time.Duration
		reset  time.Time // zero: none (a window)
		window bool
	}{
		{"Retry-After seconds", http.Header{"Retry-After": {"3600"}}, time.Hour, now.Add(time.Hour), false},
		{"Retry-After date against Date", http.Header{"Date": {date.Format(http.TimeFormat)}, "Retry-After": {date.Add(6 * time.Hour).Format(http.TimeFormat)}}, 6 * time.Hour, date.Add(6 * time.Hour), false},
		{"X-RateLimit-Reset epoch against Date", http.Header{"Date": {date.Format(http.TimeFormat)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {unix(date.Add(13 * time.Hour))}}, 13 * time.Hour, date.Add(13 * time.Hour), false},
		{"X-RateLimit-Reset epoch milliseconds", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(time.Hour).UnixMilli())}}, time.Hour, now.Add(time.Hour), false},
		{"X-RateLimit-Reset delta seconds", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"90"}}, 90 * time.Second, now.Add(90 * time.Second), false},
		{"X-Rate-Limit-Reset (Twitter v1.1)", http.Header{"X-Rate-Limit-Remaining": {"0"}, "X-Rate-Limit-Reset": {unix(now.Add(15 * time.Minute))}}, 15 * time.Minute, now.Add(15 * time.Minute), false},
		{"x-app-limit-24hour-reset", http.Header{"X-App-Limit-24hour-Limit": {"17"}, "X-App-Limit-24hour-Remaining": {"0"}, "X-App-Limit-24hour-Reset": {unix(now.Add(20 * time.Hour))}}, 20 * time.Hour, now.Add(20 * time.Hour), false},
		{"x-user-limit-24hour without reset", http.Header{"X-User-Limit-24hour-Remaining": {"0"}}, 24 * time.Hour, time.Time{}, true},
		{"IETF RateLimit r=0;t=", http.Header{"Ratelimit": {`"default";r=0;t=30`}}, 30 * time.Second, now.Add(30 * time.Second), false},
		{"IETF RateLimit, two policies, the spent one", http.Header{"Ratelimit": {`"burst";r=9;t=1, "daily";r=0;t=43200`}}, 12 * time.Hour, now.Add(12 * time.Hour), false},
		{"IETF RateLimit spent, window from RateLimit-Policy", http.Header{"Ratelimit": {`"day";r=0`}, "Ratelimit-Policy": {`"day";q=1000;w=86400`}}, 24 * time.Hour, time.Time{}, true},
		{"IETF older draft in one field", http.Header{"Ratelimit": {"limit=100, remaining=0, reset=50"}}, 50 * time.Second, now.Add(50 * time.Second), false},
		{"RateLimit-Reset with none remaining", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"7200"}}, 2 * time.Hour, now.Add(2 * time.Hour), false},
		{"Docker Hub w= window", http.Header{"Ratelimit-Limit": {"100;w=21600"}, "Ratelimit-Remaining": {"0;w=21600"}}, 6 * time.Hour, time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := ReadWait(tc.h, now)
			if !ok || w.Wait != tc.wait || !w.Reset.Equal(tc.reset) || w.Window != tc.window || w.From == "" {
				t.Errorf("ReadWait = %+v, %v; want wait %v, reset %v, window %v", w, ok, tc.wait, tc.reset, tc.window)
			}
		})
	}
	for _, h := range []http.Header{
		{"X-Ratelimit-Remaining": {"4"}, "X-Ratelimit-Reset": {"1900000000"}},
		{"X-App-Limit-24hour-Remaining": {"3"}, "X-App-Limit-24hour-Reset": {"1900000000"}},
		{"Ratelimit": {`"default";r=5;t=30`}},
		{"Ratelimit-Limit": {"100;w=21600"}, "Ratelimit-Remaining": {"76;w=21600"}},
	} {
		if w, ok := ReadWait(h, now); ok {
			t.Errorf("ReadWait(%v) = %+v: a limit with some left is no wait", h, w)
		}
	}
}

// TestJudgeWaitAgainstMaxElapsed: a rate limit whose reset is within the
// step's whole max elapsed stays transient; a later one is policy, naming
// the reset; the response's Date, not the local clock, measures it.
func TestJudgeWaitAgainstMaxElapsed(t *testing.T) {
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	serverNow := now.Add(-3 * time.Hour)
	in := func(h http.Header, maxElapsed time.Duration) Input {
		return Input{Tool: ToolHTTP, Status: 429, Header: h, Text: "Too Many Requests", Now: now, MaxElapsed: maxElapsed, ExitCode: NoExitCode}
	}
	for _, tc := range []struct {
		name       string
		in         Input
		class      Class
		code       Code
		reason     string
		remedy     string
		retryAfter time.Duration
	}{
		{"a minute: transient", in(http.Header{"Retry-After": {"60"}}, 0), Transient, HTTPCode(429), "", "", time.Minute},
		{"just the max elapsed: transient", in(http.Header{"Retry-After": {"900"}}, 15*time.Minute), Transient, HTTPCode(429), "", "", 15 * time.Minute},
		{"over the default max elapsed: policy", in(http.Header{"Retry-After": {"3600"}}, 0), Policy, CodeRateLimitWindow, "2025-06-02 11:00:00 UTC", "after 2025-06-02 11:00:00 UTC", time.Hour},
		{"within a longer max elapsed: transient", in(http.Header{"Retry-After": {"3600"}}, 2*time.Hour), Transient, HTTPCode(429), "", "", time.Hour},
		{"a daily reset six hours away", in(http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(6 * time.Hour).Unix())}}, 0), Policy, CodeRateLimitWindow, "in 6h", "after 2025-06-02 16:00:00 UTC", 6 * time.Hour},
		{"reset against the response's Date", in(http.Header{"Date": {serverNow.Format(http.TimeFormat)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(serverNow.Add(10 * time.Minute).Unix())}}, 0), Transient, HTTPCode(429), "", "", 10 * time.Minute},
		{"Docker Hub's six-hour window", in(http.Header{"Ratelimit-Limit": {"100;w=21600"}, "Ratelimit-Remaining": {"0;w=21600"}}, 0), Policy, CodeRateLimitWindow, "within 6h", "window of 6h", 6 * time.Hour},
		{"24-hour limit of X's API", in(http.Header{"X-User-Limit-24hour-Limit": {"25"}, "X-User-Limit-24hour-Remaining": {"0"}, "X-User-Limit-24hour-Reset": {fmt.Sprint(now.Add(13 * time.Hour).Unix())}}, 0), Policy, CodeRateLimitWindow, "in 13h", "", 13 * time.Hour},
		{"IETF RateLimit t= a day", in(http.Header{"Ratelimit": {`"daily";r=0;t=86400`}, "Ratelimit-Policy": {`"daily";q=50;w=86400`}}, 0), Policy, CodeRateLimitWindow, "in 1d", "", 24 * time.Hour},
		{"GitHub 403 with none remaining, reset in 40m", Input{Tool: ToolHTTP, Status: 403, Header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(40 * time.Minute).Unix())}}, Text: `{"message":"API rate limit exceeded for 203.0.113.9."}`, Now: now, ExitCode: NoExitCode}, Policy, CodeRateLimitWindow, "in 40m", "", 40 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Classify(tc.in)
			if f.Class != tc.class || f.Code != tc.code || !strings.Contains(f.Reason, tc.reason) || !strings.Contains(f.Remedy, tc.remedy) || f.RetryAfter != tc.retryAfter {
				t.Errorf("got %s %s (%s) remedy=%q RetryAfter=%v; want %s %s reason~%q remedy~%q RetryAfter=%v", f.Class, f.Code, f.Reason, f.Remedy, f.RetryAfter, tc.class, tc.code, tc.reason, tc.remedy, tc.retryAfter)
			}
		})
	}
	// FromHTTP judges against the Response's MaxElapsed the same way
	h := http.Header{"Retry-After": {"7200"}}
	if f := FromHTTP(Response{Status: 429, Header: h, Now: now}); f.Class != Policy || f.Code != CodeRateLimitWindow {
		t.Errorf("FromHTTP default budget: %s %s", f.Class, f.Code)
	}
	if f := FromHTTP(Response{Status: 429, Header: h, Now: now, MaxElapsed: 3 * time.Hour}); f.Class != Transient {
		t.Errorf("FromHTTP 3h budget: %s %s", f.Class, f.Code)
	}
}

// TestResetPassed: explain reads an old failure against now: a reset
// already past makes a re-run useful.
func TestResetPassed(t *testing.T) {
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	f := Classify(Input{Tool: ToolHTTP, Status: 429, Header: http.Header{"Retry-After": {"3600"}}, Now: now, ExitCode: NoExitCode})
	if f.Class != Policy || !f.ResetAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("got %s ResetAt %v", f.Class, f.ResetAt)
	}
	if g := ResetPassed(f, time.Time{}, now.Add(30*time.Minute)); g.Class != Policy {
		t.Errorf("before the reset: %s", g.Class)
	}
	if g := ResetPassed(f, time.Time{}, now.Add(61*time.Minute)); g.Class != Transient || !strings.Contains(g.Reason, "has passed") {
		t.Errorf("after the reset: %s %s", g.Class, g.Reason)
	}
	// a wait stated in text counts from when the job failed
	txt := FromText(ToolAuto, "Error! Builds rate limit exceeded (0 of 100 remaining). Try again in 24h", 1)
	if txt.Class != Policy || txt.ResetIn != 24*time.Hour {
		t.Fatalf("text: %s ResetIn %v", txt.Class, txt.ResetIn)
	}
	if g := ResetPassed(txt, now, now.Add(23*time.Hour)); g.Class != Policy {
		t.Errorf("23h after: %s", g.Class)
	}
	if g := ResetPassed(txt, now, now.Add(25*time.Hour)); g.Class != Transient {
		t.Errorf("25h after: %s", g.Class)
	}
	if g := ResetPassed(txt, time.Time{}, now.Add(25*time.Hour)); g.Class != Policy {
		t.Errorf("no failure time: %s", g.Class)
	}
}
