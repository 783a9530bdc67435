package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestClaudeRecogniser(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "overloaded", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeAPIOverloaded,
			text: `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CZbiHognn1znP8MCgREwD"}`},
		{name: "repeated 529", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeAPIOverloaded,
			text: "  ⎿  API Error: Repeated 529 Overloaded errors"},
		{name: "500 with its type", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeAPIServerError,
			text: `API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
		{name: "bare status", tool: failure.ToolAuto, class: failure.Transient, code: failure.HTTPCode(503),
			text: "⎿  API Error: 503 upstream connect error or disconnect/reset before headers"},
		{name: "a 404 on the messages POST", tool: failure.ToolAuto, class: failure.Structural, code: failure.HTTPCode(404),
			text: "⎿  API Error: 404 page not found"},
		{name: "request timed out, final", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeTimeout,
			text: "  ⎿  API Error: Request timed out."},
		{name: "connection errors while retrying, then a timeout", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeTimeout,
			text: "  ⎿  API Error (Connection error.) · Retrying in 1 seconds… (attempt 1/10)\n    ⎿  TypeError (fetch failed)\n  ⎿  API Error: Request timed out."},
		{name: "timeouts while retrying, then a connection error", tool: failure.ToolAuto, class: failure.Unknown, code: CodeClaudeConnection,
			text: "  ⎿  API Error (Request timed out.) · Retrying in 1 seconds… (attempt 1/10)\n  ⎿  API Error: Connection error."},
		{name: "connection refused", tool: failure.ToolAuto, class: failure.Unknown, code: CodeClaudeConnection,
			text: "API Error: Connection refused — a firewall or proxy may be blocking it (ConnectionRefused)"},
		{name: "rate limit rejected", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeRateLimited,
			text: "API Error: Request rejected (429) · This request would exceed your organization's rate limit of 10,000 input tokens per minute"},
		{name: "rate limit error type", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeRateLimited,
			text: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}`},
		{name: "usage limit beats the 429 under it", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeQuotaExhausted,
			text: "Claude AI usage limit reached|1760000400\n" + `Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}`},
		{name: "five-hour limit", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "resets 3pm",
			text: "5-hour limit reached ∙ resets 3pm"},
		{name: "credit balance", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeQuotaExhausted,
			text: "Credit balance is too low"},
		{name: "invalid key", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth,
			text: "Invalid API key · Please run /login"},
		{name: "not logged in", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth, remedy: "CLAUDE_CODE_OAUTH_TOKEN",
			text: "Not logged in · Please run /login"},
		{name: "oauth expired", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth,
			text: `API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}}`},
		{name: "prompt too long", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIContextLength,
			text: `API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212114 tokens > 200000 maximum"}}`},
		{name: "prompt too long, the TUI's words", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIContextLength,
			text: "  ⎿  Prompt is too long"},
		{name: "request too large", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIRequestTooLarge,
			text: `API Error: 413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`},
		{name: "invalid request body", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIInvalidRequest,
			text: `⎿  API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON: no low surrogate in string: line 1 column 143607 (char 143606)"}}`},
		{name: "output token maximum", tool: failure.ToolAuto, class: failure.Structural, code: CodeClaudeOutputLimit,
			text: "API Error: Claude's response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable."},
		{name: "max turns", tool: failure.ToolAuto, class: failure.Structural, code: CodeClaudeMaxTurns, reason: "(10)",
			text: "Error: Reached max turns (10)"},
		{name: "max turns in the JSON result", tool: failure.ToolAuto, class: failure.Structural, code: CodeClaudeMaxTurns,
			text: `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":11}`},
		{name: "action without id-token", tool: failure.ToolAuto, class: failure.Policy, code: CodeClaudeOIDC,
			text: "Could not fetch an OIDC token. Did you remember to add `id-token: write` to your workflow permissions?"},
		{name: "a 500 while retrying, then the final 401", tool: failure.ToolAuto, class: failure.Policy, code: failure.HTTPCode(401),
			text: "  ⎿  API Error (500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}) · Retrying in 5 seconds… (attempt 3/10)\n  ⎿  API Error: 401 Unauthorized"},
		{name: "failed to authenticate", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth,
			text: `"result": "Failed to authenticate. API Error: 401 OAuth access token is invalid."`},
		{name: "the JSON result's api_error_status", tool: failure.ToolAuto, class: failure.Transient, code: failure.HTTPCode(529),
			text: `"is_error": true, "subtype": "success", "api_error_status": 529, "terminal_reason": "api_error",`},
		{name: "organization without access", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIPermission,
			text: "Your organization does not have access to Claude. Please login again or contact your administrator."},
		// near-misses
		{name: "a success status after API Error", tool: failure.ToolAuto, class: failure.Unknown, code: failure.CodeUnknown,
			text: "API Error: 200 OK"},
		{name: "Claude Code's retry note alone", tool: failure.ToolAuto, class: failure.Unknown, code: failure.CodeUnknown,
			text: "  ⎿  API Error · Retrying in 0s · attempt 1/10"},
	})
}

func TestClaudeFamily(t *testing.T) {
	if got := failure.ToolOf("claude"); got != failure.ToolClaude {
		t.Errorf("ToolOf(claude) = %q", got)
	}
	for _, text := range []string{"  ⎿  API Error: 500", "Invalid API key · Please run /login"} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != failure.ToolClaude {
			t.Errorf("detectTool(%q) = %q, want claude", text, got)
		}
	}
	// gemini-cli's "[API Error: ...]" is not Claude Code's
	if got := failure.DetectTool(`✕ [API Error: {"error":{"message":"x"}}]`, failure.ToolAuto); got == failure.ToolClaude {
		t.Errorf("gemini's API Error detected as claude")
	}
}

// TestClaudeAuthWordsNeedClaude: "Failed to authenticate" is Claude Code's
// only beside its API error or in its own output: a mailer's words are the
// mail standard's.
func TestClaudeAuthWordsNeedClaude(t *testing.T) {
	f := failure.Classify(failure.Input{Text: `Failed to authenticate on SMTP server with username "x" using 2 possible authenticators. Authenticator LOGIN returned Expected response code 235 but got code "535", with message "535 5.7.8 Error: authentication failed".`, ExitCode: 1})
	if f.Code == failure.CodeAPIAuth || f.Class != failure.Policy {
		t.Errorf("got %s %s (%s), want policy, not Claude's api-auth", f.Class, f.Code, f.Reason)
	}
}
