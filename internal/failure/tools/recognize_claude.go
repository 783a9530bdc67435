package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// Anthropic's Claude Code (claude, claude -p, claude-code-action). It prints
// the API's failures as "API Error: <cause>" once its own retries are spent,
// and "API Error (<cause>) · Retrying in N seconds… (attempt k/10)" while it
// retries; the cause decides: a status and Anthropic's error type
// ("API Error: 529 {...overloaded_error...}", recognised with the other
// model-API types in the core's recognize_quota.go), "Request timed out" (transient), a
// connection that could not be made at all after its retries ("Connection
// error.", "Connection refused — a firewall or proxy may be blocking it":
// a blip or a block, unknown). Its own messages: "Invalid API key · Please
// run /login", "Claude's response exceeded the N output token maximum",
// "Reached max turns", claude-code-action's OIDC token.

// Claude Code's own codes.
const (
	// CodeClaudeConnection: Claude Code could not reach the API at all after
	// its own retries (a blip, or a proxy, firewall or base URL in the way).
	CodeClaudeConnection failure.Code = "claude-connection-failed"
	// CodeClaudeOutputLimit: the answer exceeded Claude Code's output token maximum.
	CodeClaudeOutputLimit failure.Code = "claude-output-token-limit"
	// CodeClaudeMaxTurns: claude -p stopped at its --max-turns.
	CodeClaudeMaxTurns failure.Code = "claude-max-turns"
	// CodeClaudeOIDC: claude-code-action could not mint its OIDC token (the
	// workflow lacks id-token: write).
	CodeClaudeOIDC failure.Code = "claude-action-oidc-token"
)

var (
	// reClaudeStatus: "API Error: 500 {...}", "API Error (502 <html>...",
	// "API Error: Request rejected (429) · ...".
	reClaudeStatus = failure.LazyRE(`API Error(?::\s*| \()(?:Request rejected \()?(\d{3})\b`)
	// reClaudeCause: a cause in words, "API Error: Connection error.".
	reClaudeCause   = failure.LazyRE(`API Error(?::\s*| \()([A-Za-z][^·∙\n]{0,160})`)
	reClaudeConn    = failure.LazyRE(`(?i)^(?:connection (?:error|refused)|unable to connect|could not connect|fetch failed|getaddrinfo|ENOTFOUND|ECONNREFUSED)`)
	reClaudeTimeout = failure.LazyRE(`(?i)^(?:request timed out|timed out|timeout)`)
	reClaudeOutput  = failure.LazyRE(`response exceeded the (\d+) output token maximum`)
	// reClaudeJSONStatus: claude -p --output-format json's result.
	reClaudeJSONStatus = failure.LazyRE(`"api_error_status"\s*:\s*(\d{3})`)
	reClaudeTurns      = failure.LazyRE(`Reached max turns \((\d+)\)|"subtype"\s*:\s*"error_max_turns"`)
)

// claudeRetrying reports whether line is Claude Code's report of a retry it
// is making ("· Retrying in 4 seconds… (attempt 4/10)"), not its last word.
func claudeRetrying(line string) bool { return strings.Contains(line, "Retrying in ") }

var claudeMatchers = []failure.Matcher{
	{
		Gates: []string{"API Error"},
		RE:    reClaudeStatus,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			code := failure.Atoi(m[1])
			if code < 400 || code > 599 {
				return failure.Hit{}, false
			}
			c.Facts.Status = code
			vd := failure.StatusVerdict(code, "POST", c.Tool)
			rank := failure.RankStatus
			if claudeRetrying(line) {
				rank = failure.RankAftermath
			}
			return failure.Hit{Class: vd.Class, Code: vd.Code, Rank: rank, Reason: "Claude Code API error: " + vd.Reason, Remedy: vd.Remedy}, true
		},
	},
	{
		Gates: []string{"API Error"},
		RE:    reClaudeCause,
		Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			cause := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m[1]), ")"))
			retrying := claudeRetrying(line)
			switch {
			case reClaudeConn.MatchString(cause):
				rank, tr := failure.RankTool, failure.TraceBits(failure.TrNet)
				if retrying {
					rank = failure.RankMention // a retry under way: the last word decides
				}
				if strings.Contains(strings.ToLower(cause), "refused") {
					tr |= failure.TrNotSent
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeClaudeConnection, Trace: tr, Rank: rank,
					Reason: "Claude Code could not reach the API after its retries: " + failure.Clip(cause),
					Remedy: "check the runner's way to the API (ANTHROPIC_BASE_URL, proxy settings, firewall or egress allowlist); if it is known to be a passing blip, add --retry-on for it"}, true
			case reClaudeTimeout.MatchString(cause):
				rank := failure.RankTool
				if retrying {
					rank = failure.RankAftermath
				}
				return failure.Hit{Class: failure.Transient, Code: failure.CodeTimeout, Trace: failure.TrNet, Rank: rank, Reason: "Claude Code's API request timed out",
					Remedy: "the API was too slow to answer: retrying (raise API_TIMEOUT_MS if it keeps happening)"}, true
			}
			return failure.Hit{}, false
		},
	},
	{
		Gates: []string{"api_error_status"},
		RE:    reClaudeJSONStatus,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			code := failure.Atoi(m[1])
			if code < 400 || code > 599 {
				return failure.Hit{}, false
			}
			c.Facts.Status = code
			vd := failure.StatusVerdict(code, "POST", c.Tool)
			return failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankStatus, Reason: "claude -p ended on an API error: " + vd.Reason, Remedy: vd.Remedy}, true
		},
	},
	{
		Gates: []string{"Failed to authenticate"},
		Build: func(c *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			if c.Tool != failure.ToolClaude && !strings.Contains(c.Text, "API Error") {
				return failure.Hit{}, false // another client's words (a mailer's "Failed to authenticate on SMTP server")
			}
			return failure.Hit{Class: failure.Policy, Code: failure.CodeAPIAuth, Rank: failure.RankAPICode, Reason: "Claude Code failed to authenticate to the API",
				Remedy: "renew the job's ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN secret (claude setup-token) and check it is stored whole; retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"output token maximum"},
		RE:    reClaudeOutput,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeClaudeOutputLimit, Rank: failure.RankTool, Reason: "Claude's answer exceeded the " + m[1] + "-token output maximum",
				Remedy: "ask for a smaller piece of work per call (smaller files, split the task), or raise CLAUDE_CODE_MAX_OUTPUT_TOKENS"}, true
		},
	},
	{
		Gates: []string{"ached max turns", "_max_turns"},
		RE:    reClaudeTurns,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			reason := "claude -p stopped at its maximum number of turns"
			if m[1] != "" {
				reason += " (" + m[1] + ")"
			}
			return failure.Hit{Class: failure.Structural, Code: CodeClaudeMaxTurns, Rank: failure.RankTool, Reason: reason,
				Remedy: "raise --max-turns or give the task in smaller steps; the same prompt runs out of turns again"}, true
		},
	},
	{
		Gates: []string{"run /login", "Run /login"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: failure.CodeAPIAuth, Rank: failure.RankAPICode, Reason: "Claude Code has no valid credential (not logged in, or the API key is invalid)",
				Remedy: "give the job a valid ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (claude setup-token) from its secrets; retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"an OIDC token"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: CodeClaudeOIDC, Rank: failure.RankTool, Reason: "claude-code-action could not fetch its OIDC token",
				Remedy: "add `id-token: write` to the workflow's (or job's) permissions"}, true
		},
	},
}

var claudeFamily = failure.Family{
	Tool:     failure.ToolClaude,
	Names:    []string{"claude"},
	Marks:    []string{"⎿", "Please run /login", "@anthropic-ai/claude-code"},
	Matchers: claudeMatchers,
}
