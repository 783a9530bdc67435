package failure

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Two recognisers shared by every tool, whatever prints them.
//
// Quotas. A quota spent for a period ("too many versions in the last 24
// hours", "try again in 5 days", a daily or monthly cap, billing,
// insufficient_quota even when it rides on a 429) is policy: the answer is
// already decided for longer than any run lasts. Code quota-exhausted, with
// the reset in the reason when the text gives it. A reset short enough to
// wait for ("Please retry in 24s", "try again in 20 minutes") is a rate
// limit instead: transient, with the wait as RetryAfter.
//
// Model APIs. Anthropic's error types (overloaded_error, api_error,
// rate_limit_error, authentication_error, permission_error, not_found_error,
// invalid_request_error, request_too_large, billing_error) and OpenAI's
// error codes (insufficient_quota, rate_limit_exceeded,
// context_length_exceeded, invalid_api_key, model_not_found, server_error)
// are stable names that every agent CLI, SDK and proxy (Claude Code, Codex,
// aider through litellm, ...) prints, in JSON or a Python repr; their stable
// messages ("prompt is too long", "Incorrect API key provided", "The model
// `x` does not exist") too. They are recognised here, wherever they appear,
// with codes that name no tool (api-overloaded, api-auth, ...).

// The codes of the model APIs (a quota uses CodeQuotaExhausted, a rate
// limit CodeRateLimited).
const (
	// CodeQuotaUnclear: a quota or rate limit was hit, but the text does not
	// say which (per minute, per day, none at all on this plan).
	CodeQuotaUnclear Code = "quota-unclear"
	// CodeAPIOverloaded: the model API is over capacity (overloaded_error, 529).
	CodeAPIOverloaded Code = "api-overloaded"
	// CodeAPIServerError: the model API failed internally (api_error, server_error).
	CodeAPIServerError Code = "api-server-error"
	// CodeAPIAuth: the API key or token is missing, invalid or expired.
	CodeAPIAuth Code = "api-auth"
	// CodeAPIPermission: the credential is valid but may not do this.
	CodeAPIPermission Code = "api-permission"
	// CodeAPIContextLength: the input does not fit the model's context window.
	CodeAPIContextLength Code = "api-context-length"
	// CodeAPIRequestTooLarge: the request exceeds the API's size limit.
	CodeAPIRequestTooLarge Code = "api-request-too-large"
	// CodeAPIModelNotFound: the model does not exist or is not offered to
	// this account.
	CodeAPIModelNotFound Code = "api-model-not-found"
	// CodeAPIInvalidRequest: the API rejected the request as malformed.
	CodeAPIInvalidRequest Code = "api-invalid-request"
)

const (
	// RankAPICode is the rank of an API's specific error (a quota, a bad
	// key, the context window): above a generic error type on the same line
	// (invalid_request_error at rankTool says less than "credit balance is
	// too low" beside it), below GitHub's rule codes.
	RankAPICode = RankTool + 2
	// maxQuotaWait is the longest reset still waited for: a quota that
	// resets sooner is a rate limit; later, it is spent for the run.
	maxQuotaWait = time.Hour
	// quotaLookAhead bounds the lines after a quota line read for its reset
	// and period (a pretty-printed JSON error spreads them over lines).
	quotaLookAhead = 8
)

const (
	remedyQuota   = "the quota is spent for its period: raise the plan or the billing limit, use another key or account, or run again after the reset; retrying now cannot succeed"
	remedyBilling = "the account has no credit left: add credits or fix the billing details (or use another key); retrying cannot succeed"
	remedyAPIAuth = "the API key or token is missing, invalid or expired: set a valid one in the job's secrets (and the variable the CLI reads); retrying cannot succeed"
)

var (
	reQuota = LazyRE(`(?i)insufficient[_ ]quota|exceeded (?:your|the) (?:current |daily |monthly |free[- ]tier )?quota|quota (?:exceeded|has been (?:exceeded|exhausted|reached))|usage[_ ]limit[_ ]reached|usage limit (?:reached|exceeded|hit)|(?:hit|reached|exceeded) your (?:(?:usage|session|weekly|daily|monthly|message|5-hour|five-hour|opus|sonnet|plan|free[- ]tier)\s+)*limit\b|(?:5-hour|session|weekly|daily|monthly|opus|sonnet) limit (?:reached|exceeded|hit)|credit balance (?:is )?too low|insufficient (?:credits|balance|funds)|billing[_ ](?:error|hard[_ ]limit|not[_ ]active)|rate limit exceeded: [\w-]+-per-(?:day|month)`)
	// reLimitZero: a quota of zero ("limit: 0"): the plan offers none at all.
	reLimitZero = LazyRE(`\blimit: 0\b|"limit"\s*:\s*"?0\b`)
	// rePeriodLong / rePeriodShort: the period a quota counts over, spaced
	// ("per minute"), hyphenated, or only in a metric's snake_case name
	// ("generate_content_requests_per_minute_per_project").
	rePeriodLong  = LazyRE(`(?i)per[ _-]?day|PerDay|\bdaily\b|per[ _-]?month|PerMonth|\bmonthly\b|\bweekly\b|per[ _-]?week|\bRPD\b|\bTPD\b`)
	rePeriodShort = LazyRE(`(?i)per[ _-]?minute|PerMinute|per[ _-]?second|PerSecond|\bRPM\b|\bTPM\b`)
	// reWaitIn: a relative reset ("try again in 5 days 22 hours", "Please
	// retry in 24.58s", "resets in 4hr 29min"); the client's own backoff
	// ("Retrying in 1 seconds") is not the server's word.
	reWaitIn = LazyRE(`(?i)\b(?:try again|retry|resets?|available again) (?:in|after) ((?:\d[\d.]*|` + reNumberWord + `(?:[ -]` + reNumberWord + `)?\s)\s*[a-z]+(?:[ ,]+(?:and )?\d[\d.]*\s*[a-z]+)*)|resets_in_seconds\\?"?\s*:\s*(\d+)|retryDelay\\?"?\s*:\s*\\?"(\d+(?:\.\d+)?)s`)
	// reResetAt: an absolute reset ("Try again at Jul 5th, 2026 8:19 PM",
	// "resets 4:50am (Europe/Rome)", "usage limit reached|1762952400").
	reResetAt = LazyRE(`(?i)\b(?:try again at|resets? at|resets|will reset at|limit will reset at)\s+([0-9A-Za-z][^·∙\n"|]{0,60})|limit reached\|(\d{9,11})`)
	// reResourceExhausted: Google's RESOURCE_EXHAUSTED, worded alone.
	reResourceExhausted = LazyRE(`(?i)RESOURCE_EXHAUSTED|Resource (?:has been )?exhausted`)
	reCheckQuota        = LazyRE(`(?i)check quota|try again later|retry (?:in|after)`)
)

// quotaWait returns the relative reset the text gives, or false.
func quotaWait(s string) (time.Duration, bool) {
	for _, m := range reWaitIn.FindAllStringSubmatch(s, 4) {
		switch {
		case m[1] != "":
			if d, ok := parseWait(m[1]); ok {
				return d, true
			}
		case m[2] != "":
			if n := Atoi(m[2]); n >= 0 {
				return time.Duration(n) * time.Second, true
			}
		case m[3] != "":
			if d, ok := parseWait(m[3] + "s"); ok {
				return d, true
			}
		}
	}
	return 0, false
}

// quotaResetAt returns an absolute reset the text gives ("Jul 5th, 2026 8:19
// PM", a unix time rendered in UTC), or "".
func quotaResetAt(s string) string {
	m := reResetAt.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	if m[2] != "" {
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return ""
		}
		return time.Unix(n, 0).UTC().Format("2006-01-02 15:04 UTC")
	}
	v := m[1]
	if i := strings.Index(v, ". "); i >= 0 {
		v = v[:i]
	}
	if i := strings.IndexAny(v, "\\"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimRight(strings.TrimSpace(v), ".,;:")
	if v == "" || (v[0] < '0' || v[0] > '9') && !startsMonth(v) {
		return "" // "resets the counter", not a time
	}
	return Clip(v)
}

// startsMonth reports whether s starts with an English month's abbreviation.
func startsMonth(s string) bool {
	if len(s) < 3 {
		return false
	}
	switch strings.ToLower(s[:3]) {
	case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "tom":
		return true
	}
	return false
}

// parseWait parses a spoken or Go-style duration: "5 days 22 hours 11",
// "24.580001s", "1m30s", "4hr 29min", "20 seconds", "thirteen hours", "a
// day". A trailing number with no unit is ignored; ok is false when no part
// has a unit.
func parseWait(s string) (time.Duration, bool) {
	var total float64
	found := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == ',' || c == '-' {
			i++
			continue
		}
		var n float64
		j := i
		if c < '0' || c > '9' {
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			w := strings.ToLower(s[i:j])
			if w == "and" {
				i = j
				continue
			}
			v, ok := numberWords[w]
			if !ok {
				break
			}
			n = v
		} else {
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			v, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				break
			}
			n = v
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && isLetter(s[k]) {
			k++
		}
		unit := waitUnit(strings.ToLower(s[j:k]))
		if unit == 0 {
			if v, ok := numberWords[strings.ToLower(s[j:k])]; ok && n >= 20 && v < 10 {
				// "twenty four hours": the tens and the units
				n += v
				j = k
				for j < len(s) && (s[j] == ' ' || s[j] == '-') {
					j++
				}
				k = j
				for k < len(s) && isLetter(s[k]) {
					k++
				}
				unit = waitUnit(strings.ToLower(s[j:k]))
			}
			if unit == 0 {
				break
			}
		}
		total += n * float64(unit)
		found = true
		i = k
	}
	if !found || total < 0 || total > float64(maxWaitSeconds)*float64(time.Second) {
		return 0, false
	}
	return time.Duration(total).Truncate(time.Millisecond), true
}

// numberWords are the numbers a service spells out in a wait or a period
// ("try again in thirteen hours", "per six hours", "in a day").
var numberWords = map[string]float64{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90,
}

// reNumberWord is numberWords as a regular expression's alternative.
const reNumberWord = `(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|ninety)`

// humanWait renders a reset for a reason: "5d22h11m", "4h29m", "24.58s".
func humanWait(d time.Duration) string {
	if d < time.Minute {
		return d.String()
	}
	d = d.Round(time.Minute)
	var b strings.Builder
	if days := d / (24 * time.Hour); days > 0 {
		b.WriteString(strconv.Itoa(int(days)) + "d")
		d -= days * 24 * time.Hour
	}
	if h := d / time.Hour; h > 0 {
		b.WriteString(strconv.Itoa(int(h)) + "h")
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		b.WriteString(strconv.Itoa(int(m)) + "m")
	}
	return b.String()
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func waitUnit(u string) time.Duration {
	switch u {
	case "ms", "millisecond", "milliseconds":
		return time.Millisecond
	case "s", "sec", "secs", "second", "seconds":
		return time.Second
	case "m", "min", "mins", "minute", "minutes":
		return time.Minute
	case "h", "hr", "hrs", "hour", "hours":
		return time.Hour
	case "d", "day", "days":
		return 24 * time.Hour
	case "w", "week", "weeks":
		return 7 * 24 * time.Hour
	}
	return 0
}

// quotaContext returns the line and the few lines after it, where a quota's
// reset and period are told.
func (c *ScanCtx) quotaContext(line string) string {
	if c.LineEnd <= 0 || c.LineEnd > len(c.Text) || !strings.HasSuffix(c.Text[:c.LineEnd], line) {
		return line // a phrase inside a frame: only its own words
	}
	return line + "\n" + strings.Join(FollowingLines(c.Text, c.LineEnd, quotaLookAhead), "\n")
}

// quotaVerdict decides a spent quota named by what (quoted from the text):
// policy, unless it resets soon enough to wait for (a rate limit, with the
// wait as RetryAfter) or counts per minute with no reset given.
func quotaVerdict(c *ScanCtx, line, what string, rank int) Hit {
	ctx := c.quotaContext(line)
	what = Clip(what)
	remedy := remedyQuota
	if l := strings.ToLower(what); strings.Contains(l, "credit") || strings.Contains(l, "balance") || strings.Contains(l, "funds") || strings.Contains(l, "billing") {
		remedy = remedyBilling
	}
	if reLimitZero.MatchString(ctx) {
		return Hit{Class: Policy, Code: CodeQuotaExhausted, Rank: rank, Reason: "quota exhausted: " + what + " (the quota is 0: this plan or key has none)",
			Remedy: "this plan or key has no quota for the model: enable billing, use another model or key; retrying cannot succeed"}
	}
	wait, hasWait := quotaWait(ctx)
	long := rePeriodLong.MatchString(ctx)
	if !long && hasWait && wait < c.quotaLimit() {
		return Hit{Class: Transient, Code: CodeRateLimited, Rank: rank, RetryAfter: wait,
			Reason: "rate limit exceeded: " + what + " (resets in " + humanWait(wait) + ")",
			Remedy: "a short quota window is spent: waiting for its reset, then retrying"}
	}
	if !long && !hasWait && rePeriodShort.MatchString(ctx) {
		return Hit{Class: Transient, Code: CodeRateLimited, Rank: rank, Reason: "rate limit exceeded: " + what + " (a per-minute quota)", Remedy: RemedyRateLimit}
	}
	reason := "quota exhausted: " + what
	var resetIn time.Duration
	switch at := quotaResetAt(ctx); {
	case hasWait:
		reason += " (resets in " + humanWait(wait) + ")"
		resetIn = wait
	case at != "":
		reason += " (resets " + at + ")"
	}
	return Hit{Class: Policy, Code: CodeQuotaExhausted, Rank: rank, Reason: reason, Remedy: remedy, ResetIn: resetIn}
}

var quotaOwnMatchers = []Matcher{
	{
		Gates: []string{"uota", "imit", "dit balance", "nsufficient", "illing"},
		RE:    reQuota,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			return quotaVerdict(c, line, m[0], RankAPICode), true
		},
	},
	{
		// Google's RESOURCE_EXHAUSTED alone: "(e.g. check quota)" does not
		// say whether a minute's or a day's quota is spent, or none exists.
		Gates: []string{"RESOURCE_EXHAUSTED", "has been exhausted", "ource exhausted"},
		RE:    reResourceExhausted,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			ctx := c.quotaContext(line)
			if reQuota.MatchString(ctx) {
				return Hit{}, false // the quota's own words decide (above)
			}
			if wait, ok := quotaWait(ctx); ok || strings.Contains(strings.ToLower(ctx), "try again later") {
				if ok && wait >= c.quotaLimit() {
					return Hit{Class: Policy, Code: CodeQuotaExhausted, Rank: RankAPICode, Reason: "quota exhausted: RESOURCE_EXHAUSTED (resets in " + humanWait(wait) + ")", Remedy: remedyQuota}, true
				}
				return Hit{Class: Transient, Code: CodeRateLimited, Rank: RankAPICode, RetryAfter: wait, Reason: "rate limit exceeded: RESOURCE_EXHAUSTED, try again later", Remedy: RemedyRateLimit}, true
			}
			if !reCheckQuota.MatchString(ctx) {
				return Hit{}, false
			}
			return Hit{Class: Unknown, Code: CodeQuotaUnclear, Rank: RankAPICode, Reason: "RESOURCE_EXHAUSTED without saying which quota (per minute, per day, or none on this plan)",
				Remedy: "check the project's quotas: a per-minute limit clears by itself (add --retry-on for it), a daily one or none at all does not"}, true
		},
	},
}

// apiVerdicts are the model APIs' named error types and codes.
var apiVerdicts = map[string]Hit{
	"overloaded_error":        {Class: Transient, Code: CodeAPIOverloaded, Rank: RankTool, Reason: "the model API is overloaded", Remedy: remedyOverloaded},
	"api_error":               {Class: Transient, Code: CodeAPIServerError, Rank: RankTool, Reason: "the model API had an internal error", Remedy: remedyAPIServer},
	"server_error":            {Class: Transient, Code: CodeAPIServerError, Rank: RankTool, Reason: "the model API had an internal error", Remedy: remedyAPIServer},
	"timeout_error":           {Class: Transient, Code: CodeTimeout, Rank: RankTool, Reason: "the model API timed out", Remedy: remedyAPIServer},
	"rate_limit_error":        {Class: Transient, Code: CodeRateLimited, Rank: RankTool, Reason: "rate limit exceeded", Remedy: RemedyRateLimit},
	"rate_limit_exceeded":     {Class: Transient, Code: CodeRateLimited, Rank: RankTool, Reason: "rate limit exceeded", Remedy: RemedyRateLimit},
	"authentication_error":    {Class: Policy, Code: CodeAPIAuth, Rank: RankAPICode, Reason: "the API refused the credential", Remedy: remedyAPIAuth},
	"invalid_api_key":         {Class: Policy, Code: CodeAPIAuth, Rank: RankAPICode, Reason: "the API key is invalid", Remedy: remedyAPIAuth},
	"permission_error":        {Class: Policy, Code: CodeAPIPermission, Rank: RankAPICode, Reason: "the credential may not use this API or model", Remedy: remedyAPIPerm},
	"not_found_error":         {Class: Structural, Code: CodeAPIModelNotFound, Rank: RankAPICode, Reason: "the API has no such model or resource", Remedy: remedyModel},
	"model_not_found":         {Class: Structural, Code: CodeAPIModelNotFound, Rank: RankAPICode, Reason: "the model does not exist or is not available to this account", Remedy: remedyModel},
	"context_length_exceeded": {Class: Structural, Code: CodeAPIContextLength, Rank: RankAPICode, Reason: "the input exceeds the model's context window", Remedy: remedyContext},
	"request_too_large":       {Class: Structural, Code: CodeAPIRequestTooLarge, Rank: RankAPICode, Reason: "the request exceeds the API's maximum size", Remedy: remedyTooLarge},
	"invalid_request_error":   {Class: Structural, Code: CodeAPIInvalidRequest, Rank: RankTool, Reason: "the API rejected the request as invalid", Remedy: remedyInvalidReq},
	"unsupported_value":       {Class: Structural, Code: CodeAPIInvalidRequest, Rank: RankTool, Reason: "the API rejected a parameter's value", Remedy: remedyInvalidReq},
	"unsupported_parameter":   {Class: Structural, Code: CodeAPIInvalidRequest, Rank: RankTool, Reason: "the API rejected a parameter", Remedy: remedyInvalidReq},
	"invalid_value":           {Class: Structural, Code: CodeAPIInvalidRequest, Rank: RankTool, Reason: "the API rejected a parameter's value", Remedy: remedyInvalidReq},
	// quotas: decided by quotaVerdict (reset, period)
	"insufficient_quota":  {Class: Policy, Code: CodeQuotaExhausted, Rank: RankAPICode},
	"billing_error":       {Class: Policy, Code: CodeQuotaExhausted, Rank: RankAPICode},
	"usage_limit_reached": {Class: Policy, Code: CodeQuotaExhausted, Rank: RankAPICode},
	"usage_not_included":  {Class: Policy, Code: CodeQuotaExhausted, Rank: RankAPICode},
}

const (
	remedyOverloaded = "the provider is over capacity: retrying after a backoff; if it lasts, check the provider's status page"
	remedyAPIServer  = "the provider failed on its side: retrying after a backoff; if it lasts, check the provider's status page"
	remedyAPIPerm    = "the key or account may not use this model or endpoint: grant the role or scope, verify the organization, or use another model; retrying cannot succeed"
	remedyModel      = "name a model this account can use (check the model id in the job's flags or config: it may be retired or misspelt)"
	remedyContext    = "the input is larger than the model's context window: shorten the prompt or history (compact, start a new session, fewer files) or use a larger-context model"
	remedyTooLarge   = "the request body is over the API's size limit: send fewer or smaller files and attachments, or a shorter history"
	remedyInvalidReq = "the API rejects this request as it is built (see the message): change the parameters, the model or the CLI version; resending it unchanged fails the same way"
)

var (
	reAPIType = LazyRE(`\\?["'](?:type|code)\\?["']\s*:\s*\\?["']([a-z_]{6,30})\\?["']`)
	reAPIMsg  = LazyRE(`\\?["']message\\?["']\s*:\s*\\?["']([A-Za-z][^"'\\]{0,119})`)

	reContext     = LazyRE(`(?i)exceeds? the context window|out of room in the model's context window|maximum context length is \d+|context length exceeded|prompt is too long|exceed context limit|input is too long for requested model`)
	reTooLarge    = LazyRE(`(?i)request exceeds the maximum size|request too large for \S+`)
	reModelGone   = LazyRE("(?i)the model:? [`'\"]?[^\\s`'\"]*[`'\"]? does not exist|\\bmodel \\\\?[`'\"][^`'\"\\s]{1,80}\\\\?[`'\"] (?:is )?not found\\b|model [`'\"][^`'\"]{0,60}[`'\"] is not supported|model is not supported when using|model not found|invalid model name|unknown model\\b")
	reAPIAuth     = LazyRE(`(?i)invalid[_ ]api[_ ]key|incorrect api key provided|invalid x-api-key|invalid bearer token|oauth (?:access )?token (?:has expired|is invalid|(?:was |has been )?revoked)|(?:missing|no) api[_ ]key\b|api_key client option must be set|could not resolve authentication method|missing bearer (?:or basic )?authentication|authentication token (?:has been invalidated|is expired)|access token could not be refreshed|refresh token (?:has expired|was already used|was revoked|is invalid)`)
	reAPIPerm     = LazyRE(`(?i)organization has been disabled|(?:organization|account) does not have access to|insufficient permissions for this operation|organization must be verified to (?:use|stream|access)|not authorized to use this API key|(?:account|organization) (?:has been|is) (?:suspended|deactivated)`)
	reOverloaded  = LazyRE(`(?i)\b529\b[^\n]{0,40}overloaded|(?:model|server|servers|service|engine|API) (?:is |are )?(?:currently )?overloaded|currently experiencing high demand`)
	reAPIServer   = LazyRE(`(?i)an error occurred while processing your request\. you can retry`)
	reAPIRate     = LazyRE(`(?i)rate limit reached for|would exceed (?:your|the) (?:[\w-]+(?:'s|’s) )?rate limit|exceeded your (?:[\w-]+ )?rate limit`)
	reAPIRetryMsg = LazyRE(`(?i)\b(?:try again|retry) (?:in|after) (\d[\d.]*\s*[a-z]+(?:[ ,]+\d[\d.]*\s*[a-z]+)*)`)
)

// apiRetryAfter returns the wait a rate-limited answer names ("Please try
// again in 6.2s").
func apiRetryAfter(line string) time.Duration {
	if m := reAPIRetryMsg.FindStringSubmatch(line); m != nil {
		if d, ok := parseWait(m[1]); ok && d < maxQuotaWait {
			return d
		}
	}
	return 0
}

// rateHit is a rate limit named on line: transient, with the wait it names,
// unless it counts per day (a quota spent for the run).
func rateHit(c *ScanCtx, line, what string, rank int) Hit {
	if h, ok := statedResetHit(c, line, what, rank); ok {
		return h // a reset the log states in a header's or a clock's terms
	}
	if rePeriodLong.MatchString(line) {
		return quotaVerdict(c, line, what, RankAPICode)
	}
	if m := rePeriod.FindStringSubmatch(line); m != nil {
		if d := periodOf(m); d > c.waitLimit() {
			// a limit counted per hour or per six hours: its window outlasts the run
			return Hit{Class: Policy, Code: CodeRateLimitWindow, Rank: max(rank, rankGenericWait), ResetIn: d,
				Reason: fmt.Sprintf("rate limit exceeded: %s, a limit counted %s (%s), longer than the run's max elapsed of %s", Clip(what), Clip(m[0]), humanWait(d), c.waitLimit()),
				Remedy: fmt.Sprintf("the limit's window (%s) outlasts the run: run again once it has passed (a later scheduled run), or authenticate or raise the limit; retrying within this run cannot succeed", humanWait(d))}
		}
	}
	return Hit{Class: Transient, Code: CodeRateLimited, Rank: rank, Reason: "rate limit exceeded: " + Clip(what), Remedy: RemedyRateLimit, RetryAfter: apiRetryAfter(line)}
}

// DuringRetry lowers a transient verdict told while the client was still
// retrying ("API Error (500 ...) · Retrying in 5 seconds… (attempt 3/10)",
// "stream error: ...; retrying 1/5 in 208ms…"): the client's last word,
// a 401 say, decides over it.
func DuringRetry(line string, h Hit) Hit {
	if h.Class == Transient && (strings.Contains(line, "Retrying in ") || strings.Contains(line, "; retrying ")) {
		h.Rank = min(h.Rank, RankAftermath)
	}
	return h
}

var modelAPIMatchers = []Matcher{
	{
		// {"type":"error","error":{"type":"overloaded_error",...}}, OpenAI's
		// {"type":"invalid_request_error","code":"context_length_exceeded"},
		// litellm's Python repr {'type': ..., 'code': ...}: the most specific
		// name on the line decides.
		Gates: []string{`"type"`, `"type\`, `type'`, `code"`, `code\`, `code'`},
		RE:    reAPIType,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			var best Hit
			name, found := "", false
			for _, m := range reAPIType.FindAllStringSubmatch(line, 16) {
				v, ok := apiVerdicts[m[1]]
				if ok && (!found || v.Rank > best.Rank) {
					best, name, found = v, m[1], true
				}
			}
			if !found {
				return Hit{}, false
			}
			what := name
			if m := reAPIMsg.FindStringSubmatch(line); m != nil {
				what += ": " + m[1]
			}
			switch {
			case best.Code == CodeQuotaExhausted:
				return quotaVerdict(c, line, what, RankAPICode), true
			case best.Code == CodeRateLimited:
				return DuringRetry(line, rateHit(c, line, what, RankTool)), true
			}
			best.Reason += " (" + Clip(what) + ")"
			return DuringRetry(line, best), true
		},
	},
	{
		Gates: []string{"verloaded", "xperiencing high demand"},
		RE:    reOverloaded,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			return DuringRetry(line, Hit{Class: Transient, Code: CodeAPIOverloaded, Rank: RankTool, Reason: "the model API is overloaded (\"" + Clip(m[0]) + "\")", Remedy: remedyOverloaded}), true
		},
	},
	{
		Gates: []string{"rror occurred while processing your request"},
		RE:    reAPIServer,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			return DuringRetry(line, Hit{Class: Transient, Code: CodeAPIServerError, Rank: RankTool, Reason: "the model API failed processing the request", Remedy: remedyAPIServer}), true
		},
	},
	{
		Gates: []string{"ate limit"},
		RE:    reAPIRate,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			return DuringRetry(line, rateHit(c, line, m[0], RankTool)), true
		},
	},
}

// modelAPIRows are the model APIs' stable messages, constant rows in the
// phrase table's form (the regular expressions are above).
var modelAPIRows = []phraseRow{
	{gates: []string{"context window", "context length", "ontext limit", "rompt is too long", "too long for requested model"}, re: reContext.src,
		class: Structural, code: CodeAPIContextLength, rank: RankAPICode, reason: "the input exceeds the model's context window", remedy: remedyContext, plain: true},
	{gates: []string{"xceeds the maximum size", "too large for"}, re: reTooLarge.src,
		class: Structural, code: CodeAPIRequestTooLarge, rank: RankAPICode, reason: "the request exceeds the API's size limit", remedy: remedyTooLarge, plain: true},
	{gates: []string{"does not exist", "not supported", "odel not found", "' not found", "\" not found", "` not found", "nvalid model name", "Unknown model", "unknown model"}, re: reModelGone.src,
		class: Structural, code: CodeAPIModelNotFound, rank: RankAPICode, reason: "unknown or unavailable model", remedy: remedyModel, plain: true},
	{gates: []string{"pi_key", "pi key", "API key", "API Key", "invalid x-api-key", "arer token", "uth token", "uthentication method", "arer or basic authentication", "uthentication token", "could not be refreshed", "fresh token"}, re: reAPIAuth.src,
		class: Policy, code: CodeAPIAuth, rank: RankAPICode, reason: "the API credential is missing or refused", remedy: remedyAPIAuth, plain: true},
	{gates: []string{"has been disabled", "does not have access to", "nsufficient permissions for this operation", "verified to ", "not authorized to use this API key", "suspended", "deactivated"}, re: reAPIPerm.src,
		class: Policy, code: CodeAPIPermission, rank: RankAPICode, reason: "the account or key may not do this", remedy: remedyAPIPerm, plain: true},
}

// quotaMatchers are the shared recognisers this file holds: quotas, and
// the model APIs' named errors.
var quotaMatchers = concatMatchers(quotaOwnMatchers, modelAPIMatchers, phraseMatchers(modelAPIRows))
