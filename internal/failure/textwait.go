package failure

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Waits a log states in a response's own dialect: the rate-limit headers
// a client prints inside its error line (an httpx Headers repr, a
// "'ratelimit-reset': '1726684000'" pair, a "X-RateLimit-Reset: ..."
// line), and a reset written as an absolute time ("resets at
// 2024-05-01T00:00:00Z", "try again at 14:00 UTC"). Both are judged as an
// answer's headers are: against the run's max elapsed, from the quoted
// Date when the log quotes one, else from now.

// maxQuotedHeaderScan bounds the tail of a text read for quoted headers.
const maxQuotedHeaderScan = 16 << 10

// maxQuotedHeaders bounds the header pairs read from one text.
const maxQuotedHeaders = 24

// reQuotedHeader is one rate-limit header (or the Date beside it) written
// into a log: quoted as a repr's pair ('ratelimit-reset': '1726684000',
// "Retry-After": "30") or as a header line (X-RateLimit-Reset: 1726684000).
var reQuotedHeader = LazyRE(`(?i)(?:^|[\s{(,'"\[])['"]?((?:x-)?rate-?limit-(?:reset|remaining|limit|policy)|x-rate-limit-(?:reset|remaining)|ratelimit|retry-after|date)['"]?\s*[:=]\s*(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"|([^\s,;'"{}()\[\]]{1,40}(?: \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)?))`)

// quotedHeaders returns the rate-limit headers text quotes, and whether
// one of them (not the Date alone) is a rate limit's.
func quotedHeaders(text string) (http.Header, bool) {
	if len(text) > maxQuotedHeaderScan {
		text = text[len(text)-maxQuotedHeaderScan:]
	}
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "ratelimit") && !strings.Contains(lower, "rate-limit") {
		return nil, false // Retry-After alone is read in words (reWaitStated)
	}
	h := http.Header{}
	limit := false
	for _, m := range reQuotedHeader.FindAllStringSubmatch(text, maxQuotedHeaders) {
		name, v := m[1], m[2]+m[3]+m[4]
		if v == "" {
			continue
		}
		if !strings.EqualFold(name, "date") {
			limit = true
		}
		if h.Get(name) == "" {
			h.Set(name, strings.TrimSpace(v))
		}
	}
	return h, limit
}

// quotedHeaderWait reads the wait of the rate-limit headers text quotes
// (ReadWait's dialects), measured from their quoted Date, else from now.
func quotedHeaderWait(text string, now time.Time) (HeaderWait, bool) {
	h, limit := quotedHeaders(text)
	if !limit {
		return HeaderWait{}, false
	}
	return ReadWait(h, now)
}

// reResetAbs is a reset written as an absolute time: an RFC 3339 time or a
// time of day in UTC, after "resets at", "try again at", "retry after",
// "available again at".
var reResetAbs = LazyRE(`(?i)\b(?:resets?|will reset|try again|retry|available again|renews?)(?: (?:at|on|after))\s+(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?|\d{1,2}:\d{2}(?::\d{2})? ?(?:UTC|GMT|Z)\b)`)

// absoluteResetWait returns the wait until the absolute reset line states,
// measured from now: a time of day is its next occurrence. ok is false
// when the line states none.
func absoluteResetWait(line string, now time.Time) (time.Duration, string, bool) {
	m := reResetAbs.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	v := strings.TrimSpace(m[1])
	if now.IsZero() {
		now = time.Now()
	}
	if t, ok := parseResetTime(v); ok {
		return until(t, now), v, true
	}
	if t, ok := parseTimeOfDay(v, now); ok {
		return until(t, now), v, true
	}
	return 0, "", false
}

// parseResetTime parses an RFC 3339 time, with a space for the T, no
// seconds, or "UTC" for the zone (no zone is UTC).
func parseResetTime(v string) (time.Time, bool) {
	v = strings.Replace(v, " ", "T", 1)
	v = strings.TrimSuffix(strings.TrimSuffix(v, "UTC"), "T")
	v = strings.TrimSpace(v)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// parseTimeOfDay parses "14:00 UTC" or "14:00:30Z" as its next occurrence
// at or after now.
func parseTimeOfDay(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, "UTC"), "GMT"), "Z"), " "))
	var t time.Time
	var err error
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err = time.Parse(layout, v); err == nil {
			break
		}
	}
	if err != nil {
		return time.Time{}, false
	}
	n := now.UTC()
	at := time.Date(n.Year(), n.Month(), n.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	if at.Before(n) {
		at = at.Add(24 * time.Hour)
	}
	return at, true
}

// statedResetHit judges the wait a rate-limited text states in a
// response's dialect (quoted headers, an absolute reset on line): over
// the run's max elapsed, policy (the window outlasts the run); within it,
// a transient rate limit that waits as stated. ok is false when the text
// states neither.
func statedResetHit(c *ScanCtx, line, what string, rank int) (Hit, bool) {
	now := c.run.now
	var (
		wait time.Duration
		from string
	)
	if w, ok := quotedHeaderWait(c.Text, now); ok {
		wait, from = w.Wait, w.From
	} else if d, v, ok := absoluteResetWait(line, now); ok {
		wait, from = d, "reset at "+v
	} else {
		return Hit{}, false
	}
	if wait > c.waitLimit() {
		return Hit{Class: Policy, Code: CodeRateLimitWindow, Rank: max(rank, rankGenericWait), ResetIn: wait,
			Reason: fmt.Sprintf("rate limit exceeded: %s; the log states %s: a wait of %s, longer than the run's max elapsed of %s", Clip(what), Clip(from), humanWait(wait), c.waitLimit()),
			Remedy: fmt.Sprintf("the limit resets in %s, after the run would end: run again after the reset (a later scheduled run), or authenticate or raise the limit; retrying within this run cannot succeed", humanWait(wait))}, true
	}
	return Hit{Class: Transient, Code: CodeRateLimited, Rank: rank, RetryAfter: wait,
		Reason: fmt.Sprintf("rate limit exceeded: %s (the log states %s: retry after %s)", Clip(what), Clip(from), humanWait(wait)), Remedy: RemedyRateLimit}, true
}
