package tools

import (
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestGeminiRecognisers(t *testing.T) {
	runTextCases(t, []textCase{
		// the google.rpc status of the JSON error
		{name: "503 UNAVAILABLE overloaded", tool: failure.ToolAuto,
			text:  `[API Error: got status: UNAVAILABLE. {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]`,
			class: failure.Transient, code: failure.CodeAPIOverloaded},
		{name: "500 INTERNAL, the CLI's nested JSON", tool: failure.ToolAuto,
			text:  `[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 500,\n    \"message\": \"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting\",\n    \"status\": \"INTERNAL\"\n  }\n}\n","code":500,"status":"Internal Server Error"}}]`,
			class: failure.Transient, code: CodeGeminiInternal, reason: "An internal error has occurred"},
		{name: "python genai 504 DEADLINE_EXCEEDED", tool: failure.ToolAuto,
			text:  `google.genai.errors.ServerError: 504 DEADLINE_EXCEEDED. {'error': {'code': 504, 'message': 'Deadline expired before operation could complete.', 'status': 'DEADLINE_EXCEEDED'}}`,
			class: failure.Transient, code: CodeGeminiDeadline, reason: "Deadline expired"},
		{name: "400 INVALID_ARGUMENT unknown field", tool: failure.ToolAuto,
			text:  "✕ [API Error: [{\n    \"error\": {\n      \"code\": 400,\n      \"message\": \"Invalid JSON payload received. Unknown name \\\"user_prompt_id\\\": Cannot find field.\",\n      \"status\": \"INVALID_ARGUMENT\"\n    }\n  }\n  ]]",
			class: failure.Structural, code: CodeGeminiInvalidArgument, remedy: "fix the request"},
		{name: "PERMISSION_DENIED in a JS dump", tool: failure.ToolAuto,
			text:  "    data: '[{\\n' +\n      '    \"code\": 403,\\n' +\n      '    \"message\": \"The caller does not have permission\",\\n' +\n      '    \"status\": \"PERMISSION_DENIED\"\\n' +",
			class: failure.Policy, code: CodeGeminiPermissionDenied, evidence: []string{"PERMISSION_DENIED"}},
		{name: "UNAUTHENTICATED quoted bare after the wrap", tool: failure.ToolAuto,
			text:  "✕ [API Error: {\"error\":{\"message\":\"{\\n  \\\"error\\\": {\\n    \\\"code\\\": 401,\\n    \\\"status\\\":\n  \\\"UNAUTHENTICATED\\\",\\n    \\\"details\\\": []",
			class: failure.Policy, code: CodeGeminiUnauthenticated, evidence: []string{"UNAUTHENTICATED"}},
		{name: "NOT_FOUND closing a wrapped (Status:", tool: failure.ToolGemini,
			text:  "✕ [API Error: Requested entity was not found. (Status:\n  NOT_FOUND)]",
			class: failure.Structural, code: CodeGeminiNotFound},
		{name: "FAILED_PRECONDITION billing", tool: failure.ToolAuto,
			text:  `400 FAILED_PRECONDITION. {'error': {'code': 400, 'message': 'Precondition check failed.', 'status': 'FAILED_PRECONDITION'}}`,
			class: failure.Policy, code: CodeGeminiFailedPrecondition, remedy: "enable billing"},
		{name: "bare RESOURCE_EXHAUSTED stops", tool: failure.ToolAuto,
			text:  "Attempt 1 failed with status 429. Retrying with backoff... ApiError: {\"error\":{\"message\":\"{\\n  \\\"error\\\": {\\n    \\\"code\\\": 429,\\n    \\\"message\\\": \\\"Resource has been exhausted (e.g. check quota).\\\",\\n    \\\"status\\\": \\\"RESOURCE_EXHAUSTED\\\"\\n  }\\n}\\n\",\"code\":429,\"status\":\"Too Many Requests\"}}",
			class: failure.Unknown, code: failure.CodeQuotaUnclear},

		// phrases that say more than the status
		{name: "API key not valid beats INVALID_ARGUMENT", tool: failure.ToolAuto,
			text:  `✕ [API Error: API key not valid. Please pass a valid API key. (Status: INVALID_ARGUMENT)]`,
			class: failure.Policy, code: CodeGeminiAPIKeyInvalid, remedy: "GEMINI_API_KEY"},
		{name: "API_KEY_INVALID reason alone", tool: failure.ToolAuto,
			text:  "\"reason\": \"API_KEY_INVALID\",\n\"status\": \"INVALID_ARGUMENT\"",
			class: failure.Policy, code: CodeGeminiAPIKeyInvalid},
		{name: "user location", tool: failure.ToolAuto,
			text:  "✕ [API Error: User location is not supported for the API use. (Status: \n  FAILED_PRECONDITION)]",
			class: failure.Policy, code: CodeGeminiLocation},
		{name: "service disabled", tool: failure.ToolAuto,
			text:  `{"error": {"code": 403, "message": "Gemini for Google Cloud API has not been used in project 1234 before or it is disabled.", "status": "PERMISSION_DENIED", "details": [{"reason": "SERVICE_DISABLED"}]}}`,
			class: failure.Policy, code: CodeGeminiServiceDisabled},
		{name: "unknown model for the API version", tool: failure.ToolAuto,
			text:  `[API Error: models/gemini-3.1-pro is not found for API version v1beta, or is not supported for generateContent.]`,
			class: failure.Structural, code: CodeGeminiNotFound, reason: "models/gemini-3.1-pro"},
		{name: "publisher model not found on the next line", tool: failure.ToolAuto,
			text:  "✕ API Error: Publisher Model `projects/p/locations/us-central1/pub\n  lishers/google/models/gemini-x` not found. (Status:\n  NOT_FOUND)",
			class: failure.Structural, code: CodeGeminiNotFound, reason: "publisher model"},

		// no credentials in a non-interactive run
		{name: "no auth method", tool: failure.ToolAuto,
			text:  "Please set an Auth method in your /root/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA",
			class: failure.Policy, code: failure.CodeGeminiAuthMissing, remedy: "GEMINI_API_KEY"},
		{name: "key variable not found", tool: failure.ToolAuto,
			text:  "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!",
			class: failure.Policy, code: failure.CodeGeminiAuthMissing, reason: "GEMINI_API_KEY is not set"},
		{name: "vertex needs a project", tool: failure.ToolAuto,
			text:  "When using Vertex AI, you must specify either:\n• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.",
			class: failure.Policy, code: failure.CodeGeminiAuthMissing},
		{name: "no application default credentials", tool: failure.ToolAuto,
			text:  "Error: Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication/getting-started for more information.",
			class: failure.Policy, code: failure.CodeGeminiAuthMissing, reason: "application default credentials"},
		{name: "account not eligible", tool: failure.ToolAuto,
			text:  "Failed to login. Message: Your current account is not eligible for Gemini Code Assist for individuals because it is not currently available in your location.",
			class: failure.Policy, code: CodeGeminiIneligible, reason: "location"},
		{name: "cached login expired", tool: failure.ToolAuto,
			text:  "Cached credentials are not valid: invalid_grant",
			class: failure.Policy, code: CodeGeminiUnauthenticated},

		// the CLI's own error classes
		{name: "JSON error of a failed login", tool: failure.ToolAuto,
			text:  `{"error":{"type":"FatalAuthenticationError","message":"Failed to login. Message: Request had invalid authentication credentials.","code":41}}`,
			class: failure.Policy, code: CodeGeminiUnauthenticated, reason: "FatalAuthenticationError"},
		{name: "turn limit", tool: failure.ToolAuto,
			text:  `{"error":{"type":"FatalTurnLimitedError","message":"Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.","code":53}}`,
			class: failure.Structural, code: CodeGeminiTurnLimit},
		{name: "terminal quota error", tool: failure.ToolAuto,
			text:  "TerminalQuotaError: You have exhausted your daily quota on this model.",
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "a Fatal word that is not a class", tool: failure.ToolAuto,
			text:  "FatalErrorHandler installed",
			class: failure.Unknown, code: failure.CodeUnknown},

		// which quota a 429 hit, and when it resets
		{name: "per-minute quota with retryDelay waits", tool: failure.ToolAuto,
			text:  `got status: 429 Too Many Requests. {"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current quota, please check your plan and billing details.\",\n    \"status\": \"RESOURCE_EXHAUSTED\",\n    \"details\": [\n      {\n        \"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\",\n        \"violations\": [\n          {\n            \"quotaId\": \"GenerateContentInputTokensPerModelPerMinute-FreeTier\"\n          }\n        ]\n      },\n      {\n        \"@type\": \"type.googleapis.com/google.rpc.RetryInfo\",\n        \"retryDelay\": \"26s\"\n      }\n    ]\n  }\n}\n","code":429,"status":"Too Many Requests"}}`,
			class: failure.Transient, code: failure.CodeRateLimited, retryAfter: 26 * time.Second},
		{name: "Please retry in, fractional seconds", tool: failure.ToolAuto,
			text:  "429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.0-flash\\nPlease retry in 13.5s.', 'status': 'RESOURCE_EXHAUSTED'}}",
			class: failure.Transient, code: failure.CodeRateLimited, retryAfter: 13500 * time.Millisecond},
		{name: "Please retry in, duration wrapped to the next line", tool: failure.ToolAuto,
			text:  "limit: 250000, model: gemini-2.5-flash\\nPlease retry in\n  39.5s.\",\"status\":\"RESOURCE_EXHAUSTED\"",
			class: failure.Transient, code: failure.CodeRateLimited, retryAfter: 39500 * time.Millisecond},
		{name: "daily quota id beats the retryDelay beside it", tool: failure.ToolAuto,
			text:  "'quotaId': 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'\n'retryDelay': '47s'\n'status': 'RESOURCE_EXHAUSTED'",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "GenerateRequestsPerDayPerProjectPerModel-FreeTier"},
		{name: "daily limit in the message", tool: failure.ToolAuto,
			text:  `"message": "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit 'Gemini 2.5 Pro Requests per day per user per tier' of service 'cloudcode-pa.googleapis.com'", "status": "RESOURCE_EXHAUSTED"`,
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "zero limit beats its retry delay", tool: failure.ToolAuto,
			text:  "* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-3.1-pro\nPlease retry in 25.4s.",
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "a reset hours away is a spent quota", tool: failure.ToolAuto,
			text:  "Cloud Code Assist API error (429): You have exhausted your capacity on this model. Your quota will reset after 12h34m16s.",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "12h34m16s"},
		{name: "a reset in milliseconds waits", tool: failure.ToolAuto,
			text:  `"metadata": {"quotaResetDelay": "373.801628ms"}`,
			class: failure.Transient, code: failure.CodeRateLimited, retryAfter: 373801628 * time.Nanosecond},
		{name: "daily quota message of the CLI", tool: failure.ToolAuto,
			text:  "You have reached your daily gemini-2.5-pro quota limit. You will be switched to the gemini-2.5-flash model for the rest of this session.",
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "vertex shared capacity", tool: failure.ToolAuto,
			text:  "\"message\": \"Resource exhausted. Please try again later. Please refer to \nhttps://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.\",\n\"status\": \"RESOURCE_EXHAUSTED\"",
			class: failure.Transient, code: failure.CodeRateLimited},

		// near-misses: Google's words outside a Google error
		{name: "GraphQL NOT_FOUND is not Google's", tool: failure.ToolAuto,
			text:  `{"errors":[{"type": "NOT_FOUND","path":["repository"],"message":"Could not resolve to a Repository with the name 'o/r'."}]}`,
			class: failure.Absent, code: failure.CodeGraphQLNotFound},
		{name: "INTERNAL_SERVER_ERROR is not INTERNAL", tool: failure.ToolAuto,
			text:  "state: INTERNAL_SERVER_ERROR_HANDLER registered",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "a quoted UNAVAILABLE outside a Google client", tool: failure.ToolAuto,
			text:  `node pool "UNAVAILABLE" while draining`,
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "a per-day setting is not a quota id", tool: failure.ToolAuto,
			text:  "config: MaxRequestsPerDay=100 retryDelay: \"5s\"",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "another service's location", tool: failure.ToolAuto,
			text:  "The requested location is not supported by this bucket.",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "RESOURCE_EXHAUSTED with the word daily is not QUOTA_EXHAUSTED", tool: failure.ToolAuto,
			text:  `"status": "RESOURCE_EXHAUSTED", "hint": "daily builds are throttled"`,
			class: failure.Unknown, code: CodeGeminiResourceExhausted},
		{name: "retry in, no duration", tool: failure.ToolAuto,
			text:  "Service busy. Please retry in a few minutes.",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "the CLI's own report line alone", tool: failure.ToolAuto,
			text:  "Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2025-08-13T07-58-41-285Z.json",
			class: failure.Unknown, code: failure.CodeUnknown},
	})
}

// A Gemini error in an HTTP answer decides over the bare status: a 429
// that does not say which limit stops, a 400 with an invalid key is policy.
func TestGeminiOverStatus(t *testing.T) {
	cases := []struct {
		status int
		body   string
		class  failure.Class
		code   failure.Code
	}{
		{429, `{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}`, failure.Unknown, failure.CodeQuotaUnclear},
		{429, `{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]}}`, failure.Transient, failure.CodeRateLimited},
		{400, `{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}`, failure.Policy, CodeGeminiAPIKeyInvalid},
		{404, `{"error": {"code": 404, "message": "models/gemini-x is not found for API version v1beta", "status": "NOT_FOUND"}}`, failure.Structural, CodeGeminiNotFound},
	}
	for _, tc := range cases {
		f := failure.Classify(failure.Input{Tool: failure.ToolHTTP, Status: tc.status, Text: tc.body, Now: time.Unix(0, 0)})
		checkFailure(t, f, tc.class, tc.code, "", "", nil)
		if err := invariants(f); err != nil {
			t.Error(err)
		}
		if tc.code == failure.CodeRateLimited && f.RetryAfter != 13*time.Second {
			t.Errorf("RetryAfter = %v, want 13s", f.RetryAfter)
		}
	}
}

func TestGeminiMessage(t *testing.T) {
	for line, want := range map[string]string{
		`{"error":{"message":"{\n  \"error\": {\n    \"message\": \"The model is overloaded.\",`:         "The model is overloaded",
		`{'code': 403, 'message': 'The caller does not have permission', 'status': 'PERMISSION_DENIED'}`: "The caller does not have permission",
		`"status": "INTERNAL"`: "",
	} {
		if got := googleMessage(line); got != want {
			t.Errorf("googleMessage(%q) = %q, want %q", line, got, want)
		}
	}
}
