package failure

import "strings"

// Anthropic's Claude Code (claude, claude -p, claude-code-action). It prints
// the API's failures as "API Error: <cause>" once its own retries are spent,
// and "API Error (<cause>) · Retrying in N seconds… (attempt k/10)" while it
// retries; the cause decides: a status and Anthropic's error type
// ("API Error: 529 {...overloaded_error...}", recognised with the other
// model-API types in recognize_quota.go), "Request timed out" (transient), a
// connection that could not be made at all after its retries ("Connection
// error.", "Connection refused — a firewall or proxy may be blocking it":
// a blip or a block, unknown). Its own messages: "Invalid API key · Please
// run /login", "Claude's response exceeded the N output token maximum",
// "Reached max turns", claude-code-action's OIDC token.

// Claude Code's own codes.
const (
	// CodeClaudeConnection: Claude Code could not reach the API at all after
	// its own retries (a blip, or a proxy, firewall or base URL in the way).
	CodeClaudeConnection Code = "claude-connection-failed"
	// CodeClaudeOutputLimit: the answer exceeded Claude Code's output token maximum.
	CodeClaudeOutputLimit Code = "claude-output-token-limit"
	// CodeClaudeMaxTurns: claude -p stopped at its --max-turns.
	CodeClaudeMaxTurns Code = "claude-max-turns"
	// CodeClaudeOIDC: claude-code-action could not mint its OIDC token (the
	// workflow lacks id-token: write).
	CodeClaudeOIDC Code = "claude-action-oidc-token"
)

var (
	// reClaudeStatus: "API Error: 500 {...}", "API Error (502 <html>...",
	// "API Error: Request rejected (429) · ...".
	reClaudeStatus = lazyRE(`API Error(?::\s*| \()(?:Request rejected \()?(\d{3})\b`)
	// reClaudeCause: a cause in words, "API Error: Connection error.".
	reClaudeCause   = lazyRE(`API Error(?::\s*| \()([A-Za-z][^·∙\n]{0,160})`)
	reClaudeConn    = lazyRE(`(?i)^(?:connection (?:error|refused)|unable to connect|could not connect|fetch failed|getaddrinfo|ENOTFOUND|ECONNREFUSED)`)
	reClaudeTimeout = lazyRE(`(?i)^(?:request timed out|timed out|timeout)`)
	reClaudeOutput  = lazyRE(`response exceeded the (\d+) output token maximum`)
	// reClaudeJSONStatus: claude -p --output-format json's result.
	reClaudeJSONStatus = lazyRE(`"api_error_status"\s*:\s*(\d{3})`)
	reClaudeTurns      = lazyRE(`Reached max turns \((\d+)\)|"subtype"\s*:\s*"error_max_turns"`)
)

// claudeRetrying reports whether line is Claude Code's report of a retry it
// is making ("· Retrying in 4 seconds… (attempt 4/10)"), not its last word.
func claudeRetrying(line string) bool { return strings.Contains(line, "Retrying in ") }

var claudeMatchers = []matcher{
	{
		gates: []string{"API Error"},
		re:    reClaudeStatus,
		build: func(c *scanCtx, line string, m []string) (hit, bool) {
			code := atoi(m[1])
			if code < 400 || code > 599 {
				return hit{}, false
			}
			c.facts.status = code
			vd := statusVerdict(code, "POST", c.tool)
			rank := rankStatus
			if claudeRetrying(line) {
				rank = rankAftermath
			}
			return hit{class: vd.class, code: vd.code, rank: rank, reason: "Claude Code API error: " + vd.reason, remedy: vd.remedy}, true
		},
	},
	{
		gates: []string{"API Error"},
		re:    reClaudeCause,
		build: func(_ *scanCtx, line string, m []string) (hit, bool) {
			cause := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m[1]), ")"))
			retrying := claudeRetrying(line)
			switch {
			case reClaudeConn.MatchString(cause):
				rank, tr := rankTool, traceBits(trNet)
				if retrying {
					rank = rankMention // a retry under way: the last word decides
				}
				if strings.Contains(strings.ToLower(cause), "refused") {
					tr |= trNotSent
				}
				return hit{class: Unknown, code: CodeClaudeConnection, tr: tr, rank: rank,
					reason: "Claude Code could not reach the API after its retries: " + clip(cause),
					remedy: "check the runner's way to the API (ANTHROPIC_BASE_URL, proxy settings, firewall or egress allowlist); if it is known to be a passing blip, add --retry-on for it"}, true
			case reClaudeTimeout.MatchString(cause):
				rank := rankTool
				if retrying {
					rank = rankAftermath
				}
				return hit{class: Transient, code: CodeTimeout, tr: trNet, rank: rank, reason: "Claude Code's API request timed out",
					remedy: "the API was too slow to answer: retrying (raise API_TIMEOUT_MS if it keeps happening)"}, true
			}
			return hit{}, false
		},
	},
	{
		gates: []string{"api_error_status"},
		re:    reClaudeJSONStatus,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			code := atoi(m[1])
			if code < 400 || code > 599 {
				return hit{}, false
			}
			c.facts.status = code
			vd := statusVerdict(code, "POST", c.tool)
			return hit{class: vd.class, code: vd.code, rank: rankStatus, reason: "claude -p ended on an API error: " + vd.reason, remedy: vd.remedy}, true
		},
	},
	{
		gates: []string{"Failed to authenticate"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeAPIAuth, rank: rankAPICode, reason: "Claude Code failed to authenticate to the API",
				remedy: "renew the job's ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN secret (claude setup-token) and check it is stored whole; retrying cannot succeed"}, true
		},
	},
	{
		gates: []string{"output token maximum"},
		re:    reClaudeOutput,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeClaudeOutputLimit, rank: rankTool, reason: "Claude's answer exceeded the " + m[1] + "-token output maximum",
				remedy: "ask for a smaller piece of work per call (smaller files, split the task), or raise CLAUDE_CODE_MAX_OUTPUT_TOKENS"}, true
		},
	},
	{
		gates: []string{"ached max turns", "_max_turns"},
		re:    reClaudeTurns,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			reason := "claude -p stopped at its maximum number of turns"
			if m[1] != "" {
				reason += " (" + m[1] + ")"
			}
			return hit{class: Structural, code: CodeClaudeMaxTurns, rank: rankTool, reason: reason,
				remedy: "raise --max-turns or give the task in smaller steps; the same prompt runs out of turns again"}, true
		},
	},
	{
		gates: []string{"run /login", "Run /login"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeAPIAuth, rank: rankAPICode, reason: "Claude Code has no valid credential (not logged in, or the API key is invalid)",
				remedy: "give the job a valid ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (claude setup-token) from its secrets; retrying cannot succeed"}, true
		},
	},
	{
		gates: []string{"an OIDC token"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeClaudeOIDC, rank: rankTool, reason: "claude-code-action could not fetch its OIDC token",
				remedy: "add `id-token: write` to the workflow's (or job's) permissions"}, true
		},
	},
}

var claudeFamily = family{
	tool:     ToolClaude,
	names:    []string{"claude"},
	marks:    []string{"⎿", "Please run /login", "@anthropic-ai/claude-code"},
	matchers: claudeMatchers,
}
