package failure

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTP responses: the status decides, read with the method (a 404 on a lookup
// is an answer, on a POST the action is impossible); headers (X-Squid-Error,
// x-deny-reason, rate-limit headers) and the body refine it. The same status
// rules apply to statuses quoted in tool output.

// Response is an HTTP response to classify.
type Response struct {
	Method string      // "" when not known (treated as a lookup, GET)
	Status int         // 0 when not known: the body is classified as text
	Header http.Header // may be nil
	Body   []byte
	Now    time.Time // zero → time.Now()
	// MaxElapsed is the step's whole max elapsed, against which a rate
	// limit's wait is judged (JudgeWait); zero means DefaultMaxElapsed.
	MaxElapsed time.Duration
}

// FromHTTP classifies an HTTP response (status, headers, body).
func FromHTTP(r Response) *Failure {
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	if r.Status == 0 {
		return classifyText(ToolHTTP, string(r.Body), NoExitCode, r.Method)
	}
	return fromHTTP(r.Method, r.Status, r.Header, string(r.Body), now, r.MaxElapsed)
}

const (
	// RemedyRateLimit is the remedy of a rate limit, with the wait the server asked.
	RemedyRateLimit = "rate limited: waiting as the server asked (Retry-After / X-RateLimit-Reset); authenticate or slow down if it recurs"
	remedyActions   = "grant the token `contents: write` (permissions: contents: write in the workflow), or push with a token that has write access"
	remedyIntegr    = "grant the GitHub App / GITHUB_TOKEN the permission this endpoint needs (permissions: in the workflow), or use a token that has it"
)

// RemedyRateLimitOverCap is RemedyRateLimit when the wait the server asked
// is over retry-after-cap, so that the loop stopped instead.
const RemedyRateLimitOverCap = "rate limited for longer than retry-after-cap allows: run the step again after the wait the server asked (Retry-After / X-RateLimit-Reset), or raise retry-after-cap if the run may wait that long"

// fromHTTP classifies an answer; its trace is the answer's status, and a
// proxy's mark when a proxy wrote the answer (X-Squid-Error, x-deny-reason).
func fromHTTP(method string, status int, h http.Header, body string, now time.Time, budget time.Duration) *Failure {
	f := classifyAnswer(method, status, h, body, now)
	hw, ok := ReadWait(h, now)
	f = JudgeWait(f, hw, ok, budget, now)
	f.Trace = Trace{Status: status}
	if headerGet(h, "X-Squid-Error") != "" || (status == 403 && headerGet(h, "X-Deny-Reason") != "") {
		f.Trace.Proxy = true
	}
	return f
}

func classifyAnswer(method string, status int, h http.Header, body string, now time.Time) *Failure {
	method = strings.ToUpper(strings.TrimSpace(method))
	st := StatusName(status)
	ev := func(lines ...string) []string {
		out := []string{st}
		for _, l := range lines {
			if l != "" && len(out) < maxEvidenceLines {
				out = append(out, l)
			}
		}
		return out
	}

	// A Squid error page names its cause; it beats the status it rides on.
	if v := headerGet(h, "X-Squid-Error"); v != "" {
		code, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		if vd, ok := squidVerdict(code); ok {
			f := New(vd.Class, vd.Code, "Squid "+code+" ("+st+"): "+vd.Reason, vd.Remedy, ev(headerEvidence("X-Squid-Error", v))...)
			if f.Class == Transient {
				f.RetryAfter, _ = RetryAfter(h, now)
			}
			return f
		}
	}

	c := &ScanCtx{Text: body, Tool: ToolHTTP, method: method, ms: allMatchers(), keys: gateKeys(), answer: true, status: status}
	hits := c.scan()
	bodyBest, haveBody := c.resolve(hits)
	method = c.LookupMethod()
	if haveBody && hits[bestHit(hits)].Rank >= RankTool {
		// The tool's own named error decides over the bare status.
		bodyBest.Evidence = ev(bodyBest.Evidence...)
		if bodyBest.Class == Transient {
			if ra, ok := RetryAfter(h, now); ok {
				bodyBest.RetryAfter = max(bodyBest.RetryAfter, ra)
			}
		}
		return bodyBest
	}

	ra, hasRA := RetryAfter(h, now)
	rateBody := haveBody && bodyBest.Class == Transient && isRateLimitReason(bodyBest.Reason)
	remaining := headerGet(h, "X-RateLimit-Remaining")
	exhausted := remaining != "" && leadingInt(remaining) == 0
	if status == 429 || ((status == 403 || status < 300) && rateBody) ||
		(status == 403 && (exhausted || headerGet(h, "Retry-After") != "")) {
		code := CodeRateLimited
		if status == 429 {
			code = HTTPCode(429)
		}
		f := New(Transient, code, "rate limited ("+st+")", RemedyRateLimit, ev()...)
		if rateBody {
			f.Reason = "rate limited (" + st + "): " + bodyBest.Reason
			f.Evidence = ev(bodyBest.Evidence...)
		} else if exhausted {
			f.Evidence = ev(headerEvidence("X-RateLimit-Remaining", remaining))
		} else if v := headerGet(h, "Retry-After"); v != "" {
			f.Evidence = ev(headerEvidence("Retry-After", v))
		}
		if hasRA {
			f.RetryAfter = ra
		}
		return f
	}

	if status < 400 {
		// GraphQL reports errors with 200; a successful status is not a failure.
		if haveBody && bodyBest.Class != Unknown {
			bodyBest.Reason = st + ": " + bodyBest.Reason
			bodyBest.Evidence = ev(bodyBest.Evidence...)
			if bodyBest.Class == Transient && hasRA {
				bodyBest.RetryAfter = ra
			}
			return bodyBest
		}
		return New(Unknown, CodeNotErrorStatus, st+" is not an error status", "nothing failed at the HTTP level: check what the caller expected", ev()...)
	}

	if status == 403 {
		if v := headerGet(h, "X-Deny-Reason"); v != "" {
			return New(Policy, CodeProxyDenied, st+" denied by the egress proxy: "+Clip(v), "add the host to the egress allowlist", ev(headerEvidence("x-deny-reason", v))...)
		}
	}

	vd := StatusVerdict(status, method, ToolHTTP)
	f := New(vd.Class, vd.Code, vd.Reason, vd.Remedy, ev(bodyEvidence(body)...)...)
	if haveBody && bodyBest.Class == vd.Class && hitRank(hits, bodyBest) >= RankTransport {
		f.Code = bodyBest.Code
		f.Reason = st + ": " + bodyBest.Reason
		f.Remedy = bodyBest.Remedy
		f.Evidence = ev(bodyBest.Evidence...)
	}
	if f.Class == Transient && hasRA {
		f.RetryAfter = ra
	}
	return f
}

// hitRank returns the rank of the hit that produced f's first evidence line.
func hitRank(hits []Hit, f *Failure) int {
	r := 0
	for _, h := range hits {
		if h.Class == f.Class && h.Reason == f.Reason && h.Rank > r {
			r = h.Rank
		}
	}
	return r
}

func isRateLimitReason(r string) bool { return strings.Contains(r, "rate limit") }

// headerEvidence renders a header as an evidence line.
func headerEvidence(k, v string) string {
	return EvidenceLineAt(Clip(k)+": "+strings.Join(strings.Fields(v), " "), 0)
}

// headerGet is http.Header.Get that also finds non-canonical keys.
func headerGet(h http.Header, key string) string {
	if h == nil {
		return ""
	}
	if v := h.Get(key); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, key) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// leadingInt parses the integer at the start of s ("0 (per docs)" → 0); -1 if none.
func leadingInt(s string) int64 {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 18 {
		return -1
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	return n
}

// StatusName renders a status as "HTTP 503 Service Unavailable".
func StatusName(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("HTTP %d %s", code, t)
	}
	return fmt.Sprintf("HTTP %d", code)
}

// Verdict is a class and code with its reason and remedy.
type Verdict struct {
	Class          Class
	Reason, Remedy string
	Code           Code
}

// IsLookup reports whether a method only reads ("" is a lookup).
func IsLookup(method string) bool {
	switch method {
	case "", "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// StatusVerdict classifies an HTTP status for a method; tool is the client
// that reported it (git's 400 is not the server judging the request).
func StatusVerdict(code int, method string, tool Tool) Verdict {
	st := StatusName(code)
	hc := HTTPCode(code)
	v := func(c Class, remedy string) Verdict { return Verdict{c, st, remedy, hc} }
	switch code {
	case 400:
		if tool == ToolGit {
			return Verdict{Unknown, st + " from git's smart-HTTP request (neither a refusal nor a flake)",
				"usually the server refuses the chunked push: push over SSH, push in smaller pieces, or raise http.postBuffer; do not resend unchanged", hc}
		}
		return v(Structural, "the server rejected the request as malformed: fix the request")
	case 401:
		return v(Policy, "credentials missing or rejected: supply a valid token (it may be expired or revoked)")
	case 402:
		return v(Policy, "the account must change (billing or plan)")
	case 403:
		return v(Policy, "the credentials lack permission, or a proxy/firewall denies the host: grant access or add the host to the allowlist")
	case 404, 410:
		if IsLookup(method) {
			return v(Absent, "not there: treat it as not found, or fix the URL or name")
		}
		return Verdict{Structural, st + " on " + Clip(method) + ": the action is impossible",
			"the target does not exist or the feature is disabled: fix the URL or enable the feature; resending will not help", hc}
	case 407:
		return v(Policy, remedyProxy407)
	case 408, 425, 421:
		return v(Transient, "the server gave up waiting: retrying")
	case 409:
		return v(Unknown, "the resource changed or conflicts: re-read it and decide")
	case 413:
		return v(Structural, "the request is too large for the server: send less (smaller pushes, Git LFS, split the upload)")
	case 414, 431:
		return v(Structural, "the request is too large for the server: shorten the URL or headers")
	case 422:
		return v(Structural, "the server refused the content: fix the payload (see the message)")
	case 429:
		return v(Transient, RemedyRateLimit)
	case 451:
		return v(Policy, "blocked for legal reasons")
	case 470:
		return Verdict{Policy, st + ": Azure Firewall denied the request", remedyAzure, hc}
	case 500, 502, 503, 504, 509, 520, 521, 522, 523, 524, 529, 598, 599:
		return v(Transient, "the server failed: wait for the outage to end; retrying")
	case 501, 505, 510:
		return v(Structural, "the server does not support this request: change it")
	case 511:
		return v(Policy, "the network requires sign-in (captive portal): authenticate to the network")
	}
	switch {
	case code >= 400 && code < 500:
		return v(Structural, "the server rejected the request: fix it (see the message)")
	case code >= 500 && code < 600:
		return v(Unknown, "the server reported an unusual error: read the message")
	}
	return v(Unknown, "not an error status: check what the caller expected")
}

// squidVerdict classifies Squid's error page codes (X-Squid-Error).
func squidVerdict(code string) (Verdict, bool) {
	switch code {
	case "ERR_ACCESS_DENIED", "ERR_FORWARDING_DENIED", "ERR_CACHE_MGR_ACCESS_DENIED":
		return Verdict{Policy, "the proxy's access rules deny the request", "add the host to the proxy's allowlist (ask the proxy admin)", CodeProxyDenied}, true
	case "ERR_CACHE_ACCESS_DENIED":
		return Verdict{Policy, "the proxy requires authentication", remedyProxy407, CodeProxyAuth}, true
	case "ERR_CONNECT_FAIL", "ERR_DNS_FAIL", "ERR_READ_TIMEOUT", "ERR_READ_ERROR", "ERR_WRITE_ERROR",
		"ERR_ZERO_SIZE_OBJECT", "ERR_LIFETIME_EXP", "ERR_SHUTTING_DOWN", "ERR_GATEWAY_FAILURE", "ERR_SOCKET_FAILURE":
		return Verdict{Transient, "the proxy could not reach or read the upstream", "the upstream failed behind the proxy: retrying", CodeProxyUpstream}, true
	case "ERR_TOO_BIG":
		return Verdict{Structural, "the request or reply exceeds the proxy's size limit", "send less, or ask the proxy admin to raise the limit", CodeProxyRejected}, true
	case "ERR_INVALID_URL", "ERR_INVALID_REQ", "ERR_UNSUP_REQ", "ERR_UNSUP_HTTPVERSION":
		return Verdict{Structural, "the proxy rejected the request as invalid", "fix the request or URL", CodeProxyRejected}, true
	case "ERR_CANNOT_FORWARD":
		return Verdict{Unknown, "the proxy could not forward the request (uplink down, or never_direct with no parent)", "check the proxy's uplink and routing rules; this may clear or may be configuration", CodeProxyCannotFwd}, true
	case "ERR_SECURE_CONNECT_FAIL":
		return Verdict{Unknown, "the proxy could not set up TLS to the upstream", remedyEnvTLS, CodeProxyTLS}, true
	}
	return Verdict{}, false
}

var (
	reReturnedError = LazyRE(`returned error: (\d{3})`)
	reHTTPNum       = LazyRE(`(?i)\bHTTP(?:/[\d.]+)?(?:[ _-]?(?:error|status|code|status code|response))?[ :=]+([45]\d\d)\b`)
	reMethodURL     = LazyRE(`\b(GET|HEAD|POST|PUT|PATCH|DELETE) (?:https?://\S+?):? ([45]\d\d)\b`)
	reStatusWord    = LazyRE(`(?i)\bstatus(?:[ _]code)?[ :=]+([45]\d\d)\b`)
	reCodePhrase    = LazyRE(`\b([45]\d\d)(?:\s*[-:]\s*|\s+)([A-Za-z][A-Za-z' -]*[A-Za-z])`)
	// ReRateLimit matches a rate limit's words, whoever prints them.
	ReRateLimit = LazyRE(`(?i)API rate limit exceeded|secondary rate limit|rate limit exceeded|abuse detection|exceeded a (?:secondary )?rate limit|rate limit reached|reached your (?:\w+ )?rate limit|toomanyrequests|\brate[- ]limited\b|rate limit (?:surpassed|error)|consider throttling your request|ThrottlerException`)
	// reGitHubPrimary: GitHub's unauthenticated primary rate limit in its own
	// words ("API rate limit exceeded for 203.0.113.7. (But here's the good
	// news: Authenticated requests get a higher rate limit ...)"): 60
	// requests an hour per address; the fix is a token, not a wait.
	reGitHubPrimary = LazyRE(`API rate limit exceeded for (?:IP )?(?:\d{1,3}\.){3}\d{1,3}\b|Authenticated requests get a higher rate limit`)
	reGraphQLType   = LazyRE(`"type"\s*:\s*"([A-Z_]+)"`)
	reSquidCode     = LazyRE(`\bERR_[A-Z_]+\b`)
)

// StatusHit is the hit of an HTTP status quoted in tool output.
func StatusHit(c *ScanCtx, code, rank int) (Hit, bool) {
	if code < 400 || code > 599 {
		return Hit{}, false
	}
	method := ""
	if code == 404 || code == 410 {
		method = c.LookupMethod()
	}
	vd := StatusVerdict(code, method, c.Tool)
	if code == 429 {
		if h, ok := statedResetHit(c, "", vd.Reason, rank); ok && h.Class == Policy {
			return h, true // the log quotes the answer's headers: their reset outlasts the run
		}
	}
	return Hit{Class: vd.Class, Code: vd.Code, Rank: rank, Reason: vd.Reason, Remedy: vd.Remedy}, true
}

// PhraseStatus reports whether phrase starts with code's reason phrase.
func PhraseStatus(code int, phrase string) bool {
	p := strings.ToLower(phrase)
	names := []string{strings.ToLower(http.StatusText(code))}
	switch code {
	case 413:
		names = append(names, "payload too large", "content too large")
	case 422:
		names = append(names, "unprocessable content")
	case 504:
		names = append(names, "gateway time-out")
	}
	if code >= 500 {
		names = append(names, "server error")
	} else {
		names = append(names, "client error")
	}
	for _, n := range names {
		if n != "" && strings.HasPrefix(p, n) {
			return true
		}
	}
	return false
}

// httpConstRows are the HTTP texts' constant rows (GitHub's refusals,
// Squid's page), in the phrase table's form.
var httpConstRows = []phraseRow{
	{gates: []string{"Bad credentials"}, class: Policy, code: CodeBadCredentials, rank: RankRefusal, reason: "bad credentials", fixed: true, plain: true,
		remedy: "the token is wrong, expired or revoked: replace it (check the secret's name and value)"},
	{gates: []string{"Requires authentication", "Must have admin rights", "Must have push access", "Not authorized", "INSUFFICIENT_SCOPES", "has not been granted the required scopes"},
		class: Policy, code: CodeInsufficientPerm, rank: RankRefusal, reason: "insufficient permission", fixed: true, plain: true,
		remedy: "use credentials with the required access (token scopes, repository role)"},
	{gates: []string{"saml_failure", "SAML enforcement", "SAML SSO", "SAML single sign-on"},
		class: Policy, code: CodeSAML, rank: RankRefusal, reason: "token not authorised for the organisation's SAML SSO", fixed: true, plain: true,
		remedy: "authorise the token for the organisation's SSO (token settings → Configure SSO)"},
	{gates: []string{"Access control configuration prevents your request"},
		class: Policy, code: CodeProxyDenied, tr: trProxy, rank: RankRateLimit, reason: "the proxy's access rules deny the request", fixed: true, plain: true,
		remedy: "add the host to the proxy's allowlist (ask the proxy admin)"},
}

var httpTextMatchers = []Matcher{
	{
		Gates: []string{"returned error: "},
		RE:    reReturnedError,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			c.Facts.Status = Atoi(m[1])
			return StatusHit(c, c.Facts.Status, RankStatus)
		},
	},
	{
		Gates: []string{"HTTP", "http", "Http"},
		RE:    reHTTPNum,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) { return StatusHit(c, Atoi(m[1]), RankStatusTxt) },
	},
	{
		Gates: []string{"GET http", "HEAD http", "POST http", "PUT http", "PATCH http", "DELETE http"},
		RE:    reMethodURL,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			code := Atoi(m[2])
			if code < 400 || code > 599 {
				return Hit{}, false
			}
			vd := StatusVerdict(code, m[1], c.Tool)
			return Hit{Class: vd.Class, Code: vd.Code, Rank: RankStatusTxt, Reason: vd.Reason, Remedy: vd.Remedy}, true
		},
	},
	{
		Gates: []string{"status", "Status", "STATUS"},
		RE:    reStatusWord,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			ix := reStatusWord.FindStringSubmatchIndex(line)
			if ix == nil || CountAfter(line[ix[3]:]) {
				return Hit{}, false // "status: 429 items processed"
			}
			return StatusHit(c, Atoi(line[ix[2]:ix[3]]), RankStatusTxt)
		},
	},
	{
		Gates: []string{"Forbidden", "Not Found", "Unauthorized", "Bad Request", "Unprocessable", "Too Many Requests", "Server Error", "Bad Gateway", "Unavailable", "Timeout", "Time-out", "Gone", "Too Large", "Not Implemented", "Conflict", "Proxy Authentication", "Client Error", "Precondition"},
		RE:    reCodePhrase,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			// the regexp finds the first "NNN Word"; look at every one on the line
			for _, m := range reCodePhrase.FindAllStringSubmatch(line, 8) {
				if code := Atoi(m[1]); PhraseStatus(code, m[2]) {
					return StatusHit(c, code, RankStatusTxt)
				}
			}
			return Hit{}, false
		},
	},
	{
		Gates: []string{"ate limit", "RATE LIMIT", "abuse detection", "toomanyrequests", "ate-limit", "ate-Limit", "onsider throttling your request", "ThrottlerException"},
		RE:    ReRateLimit,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if !c.answer && reGitHubPrimary.MatchString(line) && !strings.Contains(line, "secondary") && time.Hour > c.waitLimit() {
				// GitHub's unauthenticated limit resets hourly: in text, with no reset
				// header, a window longer than the run (an answer's own
				// X-RateLimit-Reset is judged from the headers instead)
				return Hit{Class: Policy, Code: CodeRateLimitWindow, Rank: RankRateLimit, ResetIn: time.Hour,
					Reason: fmt.Sprintf("GitHub's unauthenticated rate limit is spent (%q): it resets within the hour, longer than the run's max elapsed of %s", Clip(m[0]), c.waitLimit()),
					Remedy: "GitHub's primary limit resets hourly: authenticate (a token has 5,000 requests an hour, not 60), or run again after the reset; retrying within this run cannot succeed"}, true
			}
			return Hit{Class: Transient, Code: CodeRateLimited, Rank: RankRateLimit, Reason: "rate limit exceeded", Remedy: RemedyRateLimit}, true
		},
	},
	{
		Gates: []string{"Resource not accessible by integration", "Resource not accessible by personal access token"},
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			if strings.Contains(line, "personal access token") {
				return Hit{Class: Policy, Code: CodeNotAccessible, Rank: RankRefusal, Reason: "resource not accessible by personal access token",
					Remedy: "grant the fine-grained token the permission this endpoint needs (and access to the repository)"}, true
			}
			return Hit{Class: Policy, Code: CodeNotAccessible, Rank: RankRefusal, Reason: "resource not accessible by integration", Remedy: remedyIntegr}, true
		},
	},
	{
		Gates: []string{`"type"`},
		RE:    reGraphQLType,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			switch m[1] {
			case "FORBIDDEN", "INSUFFICIENT_SCOPES":
				return Hit{Class: Policy, Code: CodeGraphQLForbidden, Rank: RankRefusal, Reason: "GraphQL " + m[1],
					Remedy: "grant the token access to the resource (scopes, SSO authorisation, repository role)"}, true
			case "RATE_LIMITED":
				return Hit{Class: Transient, Code: CodeRateLimited, Rank: RankRateLimit, Reason: "GraphQL rate limit exceeded", Remedy: RemedyRateLimit}, true
			case "NOT_FOUND":
				return Hit{Class: Absent, Code: CodeGraphQLNotFound, Rank: RankStatus, Reason: "GraphQL NOT_FOUND",
					Remedy: "not there: treat it as not found, or fix the name (a private resource also looks absent to a token without access)"}, true
			}
			return Hit{}, false
		},
	},
	{
		Gates: []string{"ERR_"},
		RE:    reSquidCode,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			vd, ok := squidVerdict(m[0])
			if !ok {
				return Hit{}, false
			}
			return Hit{Class: vd.Class, Code: vd.Code, Trace: trProxy, Rank: RankRateLimit, Reason: "Squid " + m[0] + ": " + vd.Reason, Remedy: vd.Remedy}, true
		},
	},
}

// inferMethod finds the method of a request quoted in the text
// ("POST https://...", Go's `Post "https://..."`, curl -v's "> POST /path");
// the first one wins; "" when there is none.
func inferMethod(text string) string {
	best, method := -1, ""
	for _, m := range []string{"GET ", "HEAD ", "POST ", "PUT ", "PATCH ", "DELETE ", "Get \"", "Head \"", "Post \"", "Put \"", "Patch \"", "Delete \""} {
		for off := 0; off < len(text); {
			i := strings.Index(text[off:], m)
			if i < 0 || (best >= 0 && off+i > best) {
				break
			}
			p := off + i
			if isRequestLine(text, p, len(m)) {
				best, method = p, strings.ToUpper(strings.TrimRight(m, " \""))
				break
			}
			off = p + 1
		}
	}
	return method
}

// isRequestLine reports whether the method at text[p:p+n] starts a request:
// a word followed by a URL, or curl -v's "> METHOD /path".
func isRequestLine(text string, p, n int) bool {
	if p > 0 && isWordByte(text[p-1]) {
		return false
	}
	rest := strings.TrimPrefix(text[p+n:], "\"")
	if strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "http://") {
		return true
	}
	return strings.HasPrefix(rest, "/") && p >= 2 && text[p-2:p] == "> "
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
