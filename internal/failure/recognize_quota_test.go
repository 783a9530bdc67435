package failure

import (
	"testing"
	"time"
)

func TestQuotaRecogniser(t *testing.T) {
	geminiMinute := `{"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\\nPlease retry in 24.580001s.\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}`
	runTextCases(t, []textCase{
		{name: "openai insufficient_quota", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "quota exhausted",
			text: `openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota', 'param': None, 'code': 'insufficient_quota'}}`},
		{name: "gemini billing quota without a reset", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `_ApiError: {"error":{"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}`},
		{name: "gemini per-minute quota resets in seconds", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "resets in 24.58s",
			text: geminiMinute, retryAfter: 24580 * time.Millisecond},
		{name: "gemini quota of zero", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "the quota is 0",
			text: `"message": "You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-3.1-pro\nPlease retry in 11.665902715s."`},
		{name: "gemini daily quota with a short retry is still spent", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: "You exceeded your current quota, please check your plan and billing details.\n\"quotaId\": \"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\nPlease retry in 40s."},
		{name: "google per-minute quota metric", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "per-minute",
			text: `Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region'`},
		{name: "usage limit days away", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "resets in 2d17h14m",
			text: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes."},
		{name: "usage limit minutes away is a wait", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "resets in 20m",
			text: "You've hit your usage limit. Try again in 20 minutes.", retryAfter: 20 * time.Minute},
		{name: "usage limit at a clock time", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "resets 3:45 PM",
			text: "You've hit your usage limit. Try again at 3:45 PM."},
		{name: "claude usage limit with a unix reset", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "resets 2025-11-12 13:00 UTC",
			text: "Claude AI usage limit reached|1762952400"},
		{name: "claude weekly limit", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "resets Oct 9 at 1am",
			text: "You've hit your weekly limit · resets Oct 9 at 1am (Europe/Berlin)"},
		{name: "codex usage_limit_reached hours away", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, reason: "resets in 3h51m",
			text: `Error: Codex error: {"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1777936568,"resets_in_seconds":13872},"status_code":429}`},
		{name: "credit balance", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted, remedy: "add credits",
			text: `Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`},
		{name: "openrouter per-day free models", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `litellm.RateLimitError: OpenrouterException - {"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day","code":429}}`},
		{name: "openai per-day rate limit is a quota", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `Rate limit reached for gpt-4o in organization org-abc on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s.`},
		{name: "vertex resource exhausted, try again later", tool: ToolAuto, class: Transient, code: CodeRateLimited,
			text: `google.api_core.exceptions.ResourceExhausted: 429 Resource exhausted. Please try again later.`},
		{name: "resource exhausted, check quota: unclear", tool: ToolAuto, class: Unknown, code: CodeQuotaUnclear,
			text: `"message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"`},
		// near-misses
		{name: "an approaching limit is a warning", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Approaching usage limit · resets at 7pm"},
		{name: "quota shown by a status page", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "5h limit: [████░░░░] 96% left (resets 18:02)\nQuota: Unavailable"},
		{name: "billing mentioned in prose", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "See the plan and billing details page for your usage."},
	})
}

func TestQuotaThroughHTTP(t *testing.T) {
	// insufficient_quota rides on a 429: the body's named error decides.
	f := Classify(Input{Status: 429, Text: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`})
	checkFailure(t, f, Policy, CodeQuotaExhausted, "quota exhausted", "", nil)
	if f.RetryAfter != 0 {
		t.Errorf("RetryAfter = %v on a spent quota", f.RetryAfter)
	}
	f = Classify(Input{Status: 429, Text: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`})
	checkFailure(t, f, Unknown, CodeQuotaUnclear, "RESOURCE_EXHAUSTED", "", nil)
}

func TestParseWait(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"5 days 22 hours 11":  5*24*time.Hour + 22*time.Hour,
		"24.580001s":          24580 * time.Millisecond,
		"1m30s":               90 * time.Second,
		"4hr 29min":           4*time.Hour + 29*time.Minute,
		"20 seconds":          20 * time.Second,
		"2 hours and 5 mins":  2*time.Hour + 5*time.Minute,
		"250ms":               250 * time.Millisecond,
		"1 week":              7 * 24 * time.Hour,
		"6.2s, then continue": 6200 * time.Millisecond,
	} {
		if got, ok := parseWait(in); !ok || got != want {
			t.Errorf("parseWait(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "a moment", "11", "5 parsecs"} {
		if got, ok := parseWait(in); ok {
			t.Errorf("parseWait(%q) = %v, want no wait", in, got)
		}
	}
}

func TestModelAPIErrors(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "anthropic overloaded", tool: ToolAuto, class: Transient, code: CodeAPIOverloaded,
			text: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{name: "anthropic api_error", tool: ToolAuto, class: Transient, code: CodeAPIServerError,
			text: `litellm.InternalServerError: AnthropicException - {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
		{name: "openai server_error in a python repr", tool: ToolAuto, class: Transient, code: CodeAPIServerError,
			text: `openai.InternalServerError: Error code: 500 - {'error': {'message': 'The server had an error while processing your request.', 'type': 'server_error', 'param': None, 'code': None}}`},
		{name: "anthropic rate limit per minute", tool: ToolAuto, class: Transient, code: CodeRateLimited,
			text: `429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 30,000 input tokens per minute."}}`},
		{name: "openai rate limit with its wait", tool: ToolAuto, class: Transient, code: CodeRateLimited, retryAfter: 8400 * time.Millisecond,
			text: `Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000. Please try again in 8.4s.`},
		{name: "anthropic authentication_error", tool: ToolAuto, class: Policy, code: CodeAPIAuth,
			text: `API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}}`},
		{name: "openai invalid key", tool: ToolAuto, class: Policy, code: CodeAPIAuth,
			text: `openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'code': 'invalid_api_key'}}`},
		{name: "anthropic permission_error", tool: ToolAuto, class: Policy, code: CodeAPIPermission,
			text: `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`},
		{name: "organization disabled", tool: ToolAuto, class: Policy, code: CodeAPIPermission,
			text: `API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"This organization has been disabled."}}`},
		{name: "openai context_length_exceeded beats its type", tool: ToolAuto, class: Structural, code: CodeAPIContextLength,
			text: `{'message': "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens.", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}`},
		{name: "model_not_found", tool: ToolAuto, class: Structural, code: CodeAPIModelNotFound,
			text: `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`},
		{name: "anthropic not_found_error model", tool: ToolAuto, class: Structural, code: CodeAPIModelNotFound,
			text: `API Error: 404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-opus-9"}}`},
		{name: "request too large for the TPM", tool: ToolAuto, class: Structural, code: CodeAPIRequestTooLarge,
			text: `Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 52000. The input or output tokens must be reduced in order to run successfully.`},
		{name: "bedrock input too long", tool: ToolAuto, class: Structural, code: CodeAPIContextLength,
			text: `botocore.errorfactory.ValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: Input is too long for requested model.`},
		{name: "openai sdk without a key", tool: ToolAuto, class: Policy, code: CodeAPIAuth,
			text: `openai.OpenAIError: The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable`},
		// near-misses
		{name: "a JSON type that is no API error", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: `{"type":"message","role":"assistant","content":[{"type":"text","text":"done"}]}`},
		{name: "an overloaded method is a compiler's word", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: `error: call to overloaded function 'f' is ambiguous`},
		{name: "a context window shown in a status line", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "session_id: 019de8d5\ncontext window usage: 18k/258k token."},
		{name: "a file that does not exist is no model", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "cat: the file config.yaml does not exist"},
	})
}

// TestQuotaPeriodInMetricName checks that a quota's period written only in a
// metric's snake_case or dotted name counts as its period, as a spaced one.
func TestQuotaPeriodInMetricName(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "vertex per_minute metric", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "per-minute",
			text: `429 Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-pro. Please submit a quota increase request.`},
		{name: "sheets read_requests_per_minute_per_user", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "per-minute",
			text: `Quota exceeded for quota metric 'sheets.googleapis.com/read_requests' and limit 'sheets.googleapis.com/read_requests_per_minute_per_user'`},
		{name: "a per_second metric", tool: ToolAuto, class: Transient, code: CodeRateLimited, reason: "per-minute",
			text: `quota exceeded: metric api.example.com/writes_per_second_per_user`},
		{name: "a per_day metric is spent", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `Quota exceeded for quota metric 'youtube.googleapis.com/default' and limit 'youtube.googleapis.com/queries_per_day'. Retry in 30s.`},
		{name: "a per_day metric beside a per_minute one is spent", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `Quota exceeded for limit 'requests_per_day' (also tracked: requests_per_minute)`},
		// near-miss: "superminute" is no period
		{name: "no period in the metric name", tool: ToolAuto, class: Policy, code: CodeQuotaExhausted,
			text: `Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model. Please submit a quota increase request.`},
	})
}

// TestModelNamedNotFound checks that a model API's "model 'x' not found",
// with the model's name quoted between the words, is an unknown model in
// every API's wording, and that a quoted name of another thing is not.
func TestModelNamedNotFound(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "ollama, try pulling it first", tool: ToolAuto, class: Structural, code: CodeAPIModelNotFound,
			text: "    raise ResponseError(e.response.text, e.response.status_code) from None\nollama._types.ResponseError: model 'llama2' not found, try pulling it first"},
		{name: "ollama json error", tool: ToolAuto, class: Structural, code: CodeAPIModelNotFound,
			text: `Error: {"error":"model \"qwen2.5:7b\" not found, try pulling it first"}`},
		{name: "gemini models/x is not found (its own code)", tool: ToolAuto, class: Structural, code: "gemini-not-found",
			text: `google.api_core.exceptions.NotFound: 404 models/gemini-pro is not found for API version v1beta, or is not supported for generateContent.`},
		{name: "a model named in backquotes", tool: ToolAuto, class: Structural, code: CodeAPIModelNotFound,
			text: "Error: model `mistral-large` not found"},
		// near-miss: a file named in quotes is no model
		{name: "a quoted file not found", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Error: template 'model.yaml' not found"},
	})
}
