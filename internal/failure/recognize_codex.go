package failure

import "strings"

// OpenAI's Codex CLI (codex, codex exec). Its errors are envelopes around a
// cause, and the cause decides: "stream disconnected before completion:
// <cause>" is a stream cut mid-answer (transient) unless the cause is the
// context window, an unknown model, a bad key or a spent quota; "exceeded
// retry limit, last status: N" and "unexpected status N: <body>" are the
// API's answer N, refined by the body's named error. "Reconnecting... N/M"
// is codex retrying a broken stream. "error sending request for url" after
// codex's own reconnects cannot tell a network blip from a proxy or firewall
// that blocks the host: unknown. The model API's error types and the quota
// messages ("You've hit your usage limit", "Quota exceeded. Check your plan
// and billing details.") are recognised by recognize_quota.go.

// codex's own codes.
const (
	// CodeCodexStream: codex's response stream broke before the answer was
	// complete, or codex was reconnecting it.
	CodeCodexStream Code = "codex-stream-disconnected"
	// CodeCodexStreamError: the stream ended on an error codex names in
	// words no recogniser knows (not a transport failure): read it.
	CodeCodexStreamError Code = "codex-stream-error"
	// CodeCodexRequestFailed: codex could not send its request at all, after
	// its own reconnects (a network blip, or a proxy or firewall in the way).
	CodeCodexRequestFailed Code = "codex-request-failed"
	// CodeCodexPlan: the ChatGPT plan signed in does not include Codex.
	CodeCodexPlan Code = "codex-plan-not-included"
	// CodeCodexMissingEnv: a variable codex's config requires is not set.
	CodeCodexMissingEnv Code = "codex-missing-env"
)

// rankCodexStream is the rank of a broken stream with no better cause: above
// the transport noise, below an answer's status (a stream error codex retried
// is not the final word when "exceeded retry limit, last status: 401" follows).
const rankCodexStream = rankTransport + 5

var (
	reCodexStream    = lazyRE(`(?i)stream disconnected before completion:?\s*(.*)`)
	reCodexRetry     = lazyRE(`exceeded retry limit, last status: (\d{3})`)
	reCodexStatus    = lazyRE(`(?i)unexpected status (\d{3})[^:]{0,40}:\s*(.*)`)
	reCodexReconnect = lazyRE(`Reconnecting\.\.\. (\d+)/(\d+)`)
	// reCodexCutCause: causes that tell of a stream cut on the way or a
	// passing fault (transport errors, timeouts, "try again").
	reCodexCutCause = lazyRE(`(?i)transport error|stream closed|closed before|idle timeout|time[ds]? ?out|decod|reading the server response|connection|network|reset|EOF|broken pipe|websocket|channel closed|disconnect|incomplete|server error|internal error|try again|retry|overloaded|unavailable|temporar|high demand|capacity|busy`)
	reCodexSendURL  = lazyRE(`error sending request for url \(([^)\s]+)\)`)
	reCodexEnv      = lazyRE("Missing environment variable: `([^`]+)`")
)

// codexStatusHit is an HTTP answer codex reports (its requests are POSTs: a
// 404 is an impossible action, not an absence), refined by the body's named
// error when it has one.
func codexStatusHit(c *scanCtx, code int, body string) (hit, bool) {
	if code < 400 || code > 599 {
		return hit{}, false
	}
	c.facts.status = code
	if body = strings.TrimSpace(body); body != "" {
		if h, ok := c.phrase(body); ok && h.rank >= rankTool {
			h.reason = "codex got " + statusName(code) + ": " + h.reason
			return h, true
		}
	}
	vd := statusVerdict(code, "POST", c.tool)
	reason := "codex got " + vd.reason
	if body != "" {
		reason += ": " + clip(body)
	}
	return hit{class: vd.class, code: vd.code, rank: rankStatus, reason: reason, remedy: vd.remedy}, true
}

// codexStreamHit classifies the cause after "stream disconnected before
// completion:": a named error decides; otherwise the stream was cut.
func codexStreamHit(c *scanCtx, cause string) (hit, bool) {
	if sm := reCodexStatus.FindStringSubmatch(cause); sm != nil {
		if h, ok := codexStatusHit(c, atoi(sm[1]), sm[2]); ok {
			return h, true
		}
	}
	if cause != "" {
		if h, ok := c.phrase(cause); ok && h.rank >= rankStatusTxt {
			h.reason = "codex's stream disconnected: " + h.reason
			if h.class == Transient {
				h.rank = min(h.rank, rankCodexStream)
			} else {
				h.rank = max(h.rank, rankStatus)
			}
			return h, true
		}
	}
	reason := "codex's response stream disconnected before completion"
	if cause != "" && !reCodexCutCause.MatchString(cause) {
		// a message from the server, not a cut: which kind it is, the text
		// does not say
		return hit{class: Unknown, code: CodeCodexStreamError, rank: rankCodexStream, reason: "codex's stream ended on an error: " + clip(cause),
			remedy: "read the error codex relays from the API; if it is a passing fault, add --retry-on for it (or --stop-on if it never clears)"}, true
	}
	if cause != "" {
		reason += ": " + clip(cause)
	}
	return hit{class: Transient, code: CodeCodexStream, tr: trNet, rank: rankCodexStream, reason: reason,
		remedy: "the answer's stream was cut mid-way (network or provider): retrying; if it keeps happening, check the network path to the API (proxy, VPN)"}, true
}

var codexMatchers = []matcher{
	{
		gates: []string{"tream disconnected before completion"},
		re:    reCodexStream,
		frame: true,
		build: func(c *scanCtx, line string, m []string) (hit, bool) {
			h, ok := codexStreamHit(c, strings.TrimSpace(m[1]))
			return duringRetry(line, h), ok
		},
	},
	{
		gates: []string{"nexpected status "},
		re:    reCodexStatus,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			return codexStatusHit(c, atoi(m[1]), m[2])
		},
	},
	{
		gates: []string{"xceeded retry limit, last status: "},
		re:    reCodexRetry,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			h, ok := codexStatusHit(c, atoi(m[1]), "")
			h.reason = "codex exceeded its retry limit: " + strings.TrimPrefix(h.reason, "codex got ")
			return h, ok
		},
	},
	{
		gates: []string{"onnecting... "},
		re:    reCodexReconnect,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Transient, code: CodeCodexStream, tr: trNet, rank: rankAftermath, reason: "codex was reconnecting its stream (attempt " + m[1] + " of " + m[2] + ")",
				remedy: "codex's stream kept breaking: retrying; if it persists, check the network path to the API"}, true
		},
	},
	{
		gates: []string{"sending request for url ("},
		re:    reCodexSendURL,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			c.facts.url = m[1]
			rank := rankMention // another tool's reqwest error: its cause, when told, decides
			if c.tool == ToolCodex {
				rank = rankTool // after codex's own reconnects
			}
			return hit{class: Unknown, code: CodeCodexRequestFailed, tr: trNet, rank: rank,
				reason: "could not send the request to " + hostOf(m[1]) + " (a network blip, or a proxy, VPN or firewall blocking the host)",
				remedy: "check that the runner reaches " + hostOf(m[1]) + " (proxy, VPN, firewall, egress allowlist); if it is known to be a passing blip, add --retry-on for it"}, true
		},
	},
	{
		gates: []string{"To use Codex with your ChatGPT plan"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeCodexPlan, rank: rankAPICode, reason: "the signed-in ChatGPT plan does not include Codex",
				remedy: "upgrade the ChatGPT plan, or log codex in with an API key (codex login --with-api-key); retrying cannot succeed"}, true
		},
	},
	{
		gates: []string{"issing environment variable: `"},
		re:    reCodexEnv,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			name := clip(m[1])
			if u := strings.ToUpper(name); strings.Contains(u, "KEY") || strings.Contains(u, "TOKEN") || strings.Contains(u, "SECRET") {
				return hit{class: Policy, code: CodeAPIAuth, rank: rankAPICode, reason: "the API key variable " + name + " is not set",
					remedy: "set " + name + " from the job's secrets (an unset or empty secret reads as missing); retrying cannot succeed"}, true
			}
			return hit{class: Structural, code: CodeCodexMissingEnv, rank: rankAPICode, reason: "the variable " + name + " that codex's config requires is not set",
				remedy: "set " + name + " in the job's environment, or change the provider in codex's config.toml"}, true
		},
	},
}

var codexFamily = family{
	tool:     ToolCodex,
	names:    []string{"codex"},
	marks:    []string{"tream disconnected before completion", "exceeded retry limit, last status: ", "Reconnecting... ", "OpenAI Codex v"},
	matchers: codexMatchers,
}
