package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

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
// and billing details.") are recognised by the core's recognize_quota.go.

// codex's own codes.
const (
	// CodeCodexStream: codex's response stream broke before the answer was
	// complete, or codex was reconnecting it.
	CodeCodexStream failure.Code = "codex-stream-disconnected"
	// CodeCodexStreamError: the stream ended on an error codex names in
	// words no recogniser knows (not a transport failure): read it.
	CodeCodexStreamError failure.Code = "codex-stream-error"
	// CodeCodexRequestFailed: codex could not send its request at all, after
	// its own reconnects (a network blip, or a proxy or firewall in the way).
	CodeCodexRequestFailed failure.Code = "codex-request-failed"
	// CodeCodexPlan: the ChatGPT plan signed in does not include Codex.
	CodeCodexPlan failure.Code = "codex-plan-not-included"
	// CodeCodexMissingEnv: a variable codex's config requires is not set.
	CodeCodexMissingEnv failure.Code = "codex-missing-env"
)

// rankCodexStream is the rank of a broken stream with no better cause: above
// the transport noise, below an answer's status (a stream error codex retried
// is not the final word when "exceeded retry limit, last status: 401" follows).
const rankCodexStream = failure.RankTransport + 5

var (
	reCodexStream    = failure.LazyRE(`(?i)stream disconnected before completion:?\s*(.*)`)
	reCodexRetry     = failure.LazyRE(`exceeded retry limit, last status: (\d{3})`)
	reCodexStatus    = failure.LazyRE(`(?i)unexpected status (\d{3})[^:]{0,40}:\s*(.*)`)
	reCodexReconnect = failure.LazyRE(`Reconnecting\.\.\. (\d+)/(\d+)`)
	// reCodexCutCause: causes that tell of a stream cut on the way or a
	// passing fault (transport errors, timeouts, "try again").
	reCodexCutCause = failure.LazyRE(`(?i)transport error|stream closed|closed before|idle timeout|time[ds]? ?out|decod|reading the server response|connection|network|reset|EOF|broken pipe|websocket|channel closed|disconnect|incomplete|server error|internal error|try again|retry|overloaded|unavailable|temporar|high demand|capacity|busy`)
	reCodexSendURL  = failure.LazyRE(`error sending request for url \(([^)\s]+)\)`)
	reCodexEnv      = failure.LazyRE("Missing environment variable: `([^`]+)`")
)

// codexStatusHit is an HTTP answer codex reports (its requests are POSTs: a
// 404 is an impossible action, not an absence), refined by the body's named
// error when it has one.
func codexStatusHit(c *failure.ScanCtx, code int, body string) (failure.Hit, bool) {
	if code < 400 || code > 599 {
		return failure.Hit{}, false
	}
	c.Facts.Status = code
	if body = strings.TrimSpace(body); body != "" {
		if h, ok := c.Phrase(body); ok && h.Rank >= failure.RankTool {
			h.Reason = "codex got " + failure.StatusName(code) + ": " + h.Reason
			return h, true
		}
	}
	vd := failure.StatusVerdict(code, "POST", c.Tool)
	reason := "codex got " + vd.Reason
	if body != "" {
		reason += ": " + failure.Clip(body)
	}
	return failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankStatus, Reason: reason, Remedy: vd.Remedy}, true
}

// codexStreamHit classifies the cause after "stream disconnected before
// completion:": a named error decides; otherwise the stream was cut.
func codexStreamHit(c *failure.ScanCtx, cause string) (failure.Hit, bool) {
	if sm := reCodexStatus.FindStringSubmatch(cause); sm != nil {
		if h, ok := codexStatusHit(c, failure.Atoi(sm[1]), sm[2]); ok {
			return h, true
		}
	}
	if cause != "" {
		if h, ok := c.Phrase(cause); ok && h.Rank >= failure.RankStatusTxt {
			h.Reason = "codex's stream disconnected: " + h.Reason
			if h.Class == failure.Transient {
				h.Rank = min(h.Rank, rankCodexStream)
			} else {
				h.Rank = max(h.Rank, failure.RankStatus)
			}
			return h, true
		}
	}
	reason := "codex's response stream disconnected before completion"
	if cause != "" && !reCodexCutCause.MatchString(cause) {
		// a message from the server, not a cut: which kind it is, the text
		// does not say
		return failure.Hit{Class: failure.Unknown, Code: CodeCodexStreamError, Rank: rankCodexStream, Reason: "codex's stream ended on an error: " + failure.Clip(cause),
			Remedy: "read the error codex relays from the API; if it is a passing fault, add --retry-on for it (or --stop-on if it never clears)"}, true
	}
	if cause != "" {
		reason += ": " + failure.Clip(cause)
	}
	return failure.Hit{Class: failure.Transient, Code: CodeCodexStream, Trace: failure.TrNet, Rank: rankCodexStream, Reason: reason,
		Remedy: "the answer's stream was cut mid-way (network or provider): retrying; if it keeps happening, check the network path to the API (proxy, VPN)"}, true
}

var codexMatchers = []failure.Matcher{
	{
		Gates: []string{"tream disconnected before completion"},
		RE:    reCodexStream,
		Frame: true,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			h, ok := codexStreamHit(c, strings.TrimSpace(m[1]))
			return failure.DuringRetry(line, h), ok
		},
	},
	{
		Gates: []string{"nexpected status "},
		RE:    reCodexStatus,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return codexStatusHit(c, failure.Atoi(m[1]), m[2])
		},
	},
	{
		Gates: []string{"xceeded retry limit, last status: "},
		RE:    reCodexRetry,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			h, ok := codexStatusHit(c, failure.Atoi(m[1]), "")
			h.Reason = "codex exceeded its retry limit: " + strings.TrimPrefix(h.Reason, "codex got ")
			return h, ok
		},
	},
	{
		Gates: []string{"onnecting... "},
		RE:    reCodexReconnect,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Transient, Code: CodeCodexStream, Trace: failure.TrNet, Rank: failure.RankAftermath, Reason: "codex was reconnecting its stream (attempt " + m[1] + " of " + m[2] + ")",
				Remedy: "codex's stream kept breaking: retrying; if it persists, check the network path to the API"}, true
		},
	},
	{
		Gates: []string{"sending request for url ("},
		RE:    reCodexSendURL,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			c.Facts.URL = m[1]
			rank := failure.RankMention // another tool's reqwest error: its cause, when told, decides
			if c.Tool == failure.ToolCodex {
				rank = failure.RankTool // after codex's own reconnects
			}
			return failure.Hit{Class: failure.Unknown, Code: CodeCodexRequestFailed, Trace: failure.TrNet, Rank: rank,
				Reason: "could not send the request to " + failure.HostOf(m[1]) + " (a network blip, or a proxy, VPN or firewall blocking the host)",
				Remedy: "check that the runner reaches " + failure.HostOf(m[1]) + " (proxy, VPN, firewall, egress allowlist); if it is known to be a passing blip, add --retry-on for it"}, true
		},
	},
	{
		Gates: []string{"To use Codex with your ChatGPT plan"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: CodeCodexPlan, Rank: failure.RankAPICode, Reason: "the signed-in ChatGPT plan does not include Codex",
				Remedy: "upgrade the ChatGPT plan, or log codex in with an API key (codex login --with-api-key); retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"issing environment variable: `"},
		RE:    reCodexEnv,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			name := failure.Clip(m[1])
			if u := strings.ToUpper(name); strings.Contains(u, "KEY") || strings.Contains(u, "TOKEN") || strings.Contains(u, "SECRET") {
				return failure.Hit{Class: failure.Policy, Code: failure.CodeAPIAuth, Rank: failure.RankAPICode, Reason: "the API key variable " + name + " is not set",
					Remedy: "set " + name + " from the job's secrets (an unset or empty secret reads as missing); retrying cannot succeed"}, true
			}
			return failure.Hit{Class: failure.Structural, Code: CodeCodexMissingEnv, Rank: failure.RankAPICode, Reason: "the variable " + name + " that codex's config requires is not set",
				Remedy: "set " + name + " in the job's environment, or change the provider in codex's config.toml"}, true
		},
	},
}

var codexFamily = failure.Family{
	Tool:     failure.ToolCodex,
	Names:    []string{"codex"},
	Marks:    []string{"tream disconnected before completion", "exceeded retry limit, last status: ", "Reconnecting... ", "OpenAI Codex v"},
	Matchers: codexMatchers,
}
