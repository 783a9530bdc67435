package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestCodexRecogniser(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "stream cut mid-answer", tool: failure.ToolAuto, class: failure.Transient, code: CodeCodexStream, reason: "stream closed before response.completed",
			text: "stream disconnected before completion: stream closed before response.completed"},
		{name: "stream cut by the provider's server error", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeAPIServerError,
			text: "stream disconnected before completion: An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists."},
		{name: "stream envelope around the context window", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIContextLength,
			text: "stream disconnected before completion: Your input exceeds the context window of this model. Please adjust your input and try again."},
		{name: "stream envelope around an unknown model", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIModelNotFound,
			text: "stream disconnected before completion: The model `gpt-5.3-codex` does not exist or you do not have access to it."},
		{name: "stream envelope around a refused key", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth,
			text: "stream disconnected before completion: Incorrect API key provided: sk-proj-***. You can find your API key at https://platform.openai.com/account/api-keys."},
		{name: "stream envelope around a status", tool: failure.ToolAuto, class: failure.Policy, code: failure.HTTPCode(401),
			text: "stream disconnected before completion: unexpected status 401 Unauthorized: {\"detail\":\"Unauthorized\"}"},
		{name: "stream envelope around a request never sent", tool: failure.ToolAuto, class: failure.Unknown, code: CodeCodexRequestFailed,
			text: "stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)"},
		{name: "stream with a rate limit and its wait", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeRateLimited,
			text: "stream disconnected before completion: Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 4000. Please try again in 6.2s.", retryAfter: 6200e6},
		{name: "retried stream errors, then the final 401", tool: failure.ToolAuto, class: failure.Policy, code: failure.HTTPCode(401),
			text: "stream error: stream disconnected before completion: idle timeout waiting for SSE; retrying 1/5 in 200ms…\nReconnecting... 2/5\nERROR: exceeded retry limit, last status: 401 Unauthorized, request id: 9a4af5870a31a58e-WAW"},
		{name: "retry limit on a 429", tool: failure.ToolAuto, class: failure.Transient, code: failure.HTTPCode(429),
			text: "ERROR: exceeded retry limit, last status: 429 Too Many Requests, request id: 9c84b52ce87fbe62-SJC"},
		{name: "retry limit on a 5xx", tool: failure.ToolAuto, class: failure.Transient, code: failure.HTTPCode(502),
			text: "exceeded retry limit, last status: 502 Bad Gateway"},
		{name: "a 404 is an impossible POST", tool: failure.ToolAuto, class: failure.Structural, code: failure.HTTPCode(404),
			text: "exceeded retry limit, last status: 404 Not Found"},
		{name: "unexpected status with a named body", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIModelNotFound,
			text: "unexpected status 404 Not Found: Model not found gpt-5.5, url: https://chatgpt.com/backend-api/codex/responses"},
		{name: "unexpected status with a usage limit body", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "resets in 6d23h25m",
			text: `unexpected status 429 Too Many Requests: {"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"free","resets_at":1775317531,"resets_in_seconds":602705}}`},
		{name: "unexpected status with a plain body", tool: failure.ToolAuto, class: failure.Transient, code: failure.HTTPCode(503),
			text: "unexpected status 503 Service Unavailable: upstream connect error"},
		{name: "reconnecting only", tool: failure.ToolAuto, class: failure.Transient, code: CodeCodexStream, reason: "reconnecting its stream",
			text: "Reconnecting... 1/5\nReconnecting... 2/5\nReconnecting... 3/5"},
		{name: "reconnects, then the request could not be sent", tool: failure.ToolAuto, class: failure.Unknown, code: CodeCodexRequestFailed,
			text: "Reconnecting... 1/5\nReconnecting... 5/5\nstream disconnected before completion\nerror sending request for url (https://chatgpt.com/backend-api/codex/responses)"},
		{name: "quota exceeded", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeQuotaExhausted,
			text: "■ Quota exceeded. Check your plan and billing details."},
		{name: "plan without codex", tool: failure.ToolAuto, class: failure.Policy, code: CodeCodexPlan,
			text: "To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing."},
		{name: "high demand", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeAPIOverloaded,
			text: "■ We're currently experiencing high demand, which may cause temporary errors."},
		{name: "context window", tool: failure.ToolAuto, class: failure.Structural, code: failure.CodeAPIContextLength,
			text: "■ Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying."},
		{name: "missing key variable", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth, reason: "OPENAI_API_KEY",
			text: "Error: Missing environment variable: `OPENAI_API_KEY`."},
		{name: "missing other variable", tool: failure.ToolAuto, class: failure.Structural, code: CodeCodexMissingEnv,
			text: "Missing environment variable: `AZURE_OPENAI_ENDPOINT`."},
		{name: "refresh token expired", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIAuth,
			text: "Your access token could not be refreshed because your refresh token has expired. Please log out and sign in again."},
		{name: "stream envelope around an unverified organization", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIPermission,
			text: "Stream disconnected before completion: Your organization must be verified to use the model `gpt-5-codex`."},
		{name: "a 400 whose pretty body needs a verified organization", tool: failure.ToolAuto, class: failure.Policy, code: failure.CodeAPIPermission,
			text: "» stream error: unexpected status 400 Bad Request: {\n    \"error\": {\n      \"message\": \"Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on\n   Verify Organization.\",\n      \"type\": \"invalid_request_error\","},
		{name: "stream envelope around an unnamed server message", tool: failure.ToolAuto, class: failure.Unknown, code: CodeCodexStreamError,
			text: "stream disconnected before completion: No tool output found for function call call_9f2a."},
		{name: "stream envelope around a plain server error", tool: failure.ToolAuto, class: failure.Transient, code: CodeCodexStream,
			text: "stream disconnected before completion: Internal server error"},
		// near-misses
		{name: "the exec banner names a model", tool: failure.ToolAuto, class: failure.Unknown, code: failure.CodeUnknown,
			text: "OpenAI Codex v0.63.0 (research preview)\n--------\nworkdir: /src\nmodel: gpt-5.1-codex-max\nprovider: openai\n--------"},
		{name: "another tool's reqwest error names its cause", tool: failure.ToolAuto, class: failure.Transient, code: failure.CodeDNS,
			text: "error: error sending request for url (https://pypi.org/simple/x/): dns error: failed to lookup address information: Name or service not known"},
	})
}

func TestCodexFamily(t *testing.T) {
	if got := failure.ToolOf("/usr/local/bin/codex"); got != failure.ToolCodex {
		t.Errorf("ToolOf(codex) = %q", got)
	}
	for _, text := range []string{"stream disconnected before completion: x", "ERROR: exceeded retry limit, last status: 401 Unauthorized", "OpenAI Codex v0.42.0 (research preview)"} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != failure.ToolCodex {
			t.Errorf("detectTool(%q) = %q, want codex", text, got)
		}
	}
}
