package tools

import (
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestAiderRecognisers(t *testing.T) {
	runTextCases(t, []textCase{
		// litellm's classes, when the message after them says nothing more
		{name: "AuthenticationError", tool: failure.ToolAuto,
			text:  `litellm.AuthenticationError: AnthropicException - {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			class: failure.Policy, code: failure.CodeAPIAuth},
		{name: "PermissionDeniedError", tool: failure.ToolAuto,
			text:  `litellm.PermissionDeniedError: BedrockException - {"message":"You don't have access to the model with the specified model ID."}`,
			class: failure.Policy, code: CodeAiderPermissionDenied},
		{name: "BadRequestError", tool: failure.ToolAuto,
			text:  `litellm.BadRequestError: OpenAIException - Error code: 400 - {'error': {'message': "Unsupported value: 'stream' does not support true with this model.", 'type': 'invalid_request_error', 'param': 'stream', 'code': 'unsupported_value'}}`,
			class: failure.Structural, code: failure.CodeAPIInvalidRequest},
		{name: "NotFoundError over a quoted 404 Not Found", tool: failure.ToolAuto,
			text:  "Unexpected error: litellm.NotFoundError: AnthropicException -\nb'{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-x\"}}'\nhttpx.HTTPStatusError: Client error '404 Not Found' for url 'https://api.anthropic.com/v1/messages'",
			class: failure.Structural, code: failure.CodeAPIModelNotFound},
		{name: "ContextWindowExceededError chained", tool: failure.ToolAuto,
			text:  `litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicError - b'{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 205668 tokens > 200000 maximum"}}'`,
			class: failure.Structural, code: failure.CodeAPIContextLength},
		{name: "ContextWindowExceededError without the litellm prefix", tool: failure.ToolAuto,
			text:  "ContextWindowExceededError: OpenAIException - Input tokens exceed the configured limit of 272000 tokens.",
			class: failure.Structural, code: CodeAiderContextWindow},
		{name: "BudgetExceededError", tool: failure.ToolAuto,
			text:  "litellm.BudgetExceededError: Budget has been exceeded! Current cost: 10.2, Max budget: 10.0",
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "RateLimitError waits", tool: failure.ToolAuto,
			text:  "litellm.RateLimitError: RateLimitError: OpenrouterException - Rate limit exceeded: free-models-per-min.\nThe API provider has rate limited you. Try again later or check your quotas.\nRetrying in 0.2 seconds...",
			class: failure.Transient, code: failure.CodeRateLimited},
		{name: "InternalServerError overloaded", tool: failure.ToolAuto,
			text:  "Unexpected error: litellm.InternalServerError: AnthropicException - Overloaded. Handle with `litellm.InternalServerError`.",
			class: failure.Transient, code: CodeAiderProviderDown},
		{name: "ServiceUnavailableError", tool: failure.ToolAuto,
			text:  "litellm.ServiceUnavailableError: BedrockException - Bedrock is unable to process your request.\nThe API provider's servers are down or overloaded.",
			class: failure.Transient, code: CodeAiderProviderDown},
		{name: "Timeout", tool: failure.ToolAuto,
			text:  "litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out.\nThe API provider timed out without returning a response. They may be down or overloaded.",
			class: failure.Transient, code: failure.CodeTimeout},

		// the message decides
		{name: "a 500 wrapper around a missing key", tool: failure.ToolAuto,
			text:  "litellm.InternalServerError: OpenAIException - The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable",
			class: failure.Policy, code: failure.CodeAPIAuth},
		{name: "a rate-limit wrapper around a bare RESOURCE_EXHAUSTED stops", tool: failure.ToolAuto,
			text:  "Unexpected error: litellm.RateLimitError: litellm.RateLimitError: VertexAIException - b'[{\\n  \"error\": {\\n    \"code\": 429,\\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\\n    \"status\": \"RESOURCE_EXHAUSTED\"\\n  }\\n}\\n]'",
			class: failure.Unknown, code: failure.CodeQuotaUnclear},
		{name: "a rate-limit wrapper around a daily quota", tool: failure.ToolAuto,
			text:  `litellm.RateLimitError: VertexAIException - {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`,
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "a bad-request wrapper around the location", tool: failure.ToolAuto,
			text:  `litellm.BadRequestError: GeminiException - {"error": {"code": 400, "message": "User location is not supported for the API use.", "status": "FAILED_PRECONDITION"}}`,
			class: failure.Policy, code: CodeGeminiLocation},
		{name: "an authentication class over its INVALID_ARGUMENT", tool: failure.ToolAuto,
			text:  `litellm.AuthenticationError: GeminiException - {"error": {"code": 400, "message": "API  key not valid.", "status": "INVALID_ARGUMENT"}}`,
			class: failure.Policy, code: CodeAiderAuthFailed},
		{name: "a connection class around a reset", tool: failure.ToolAuto,
			text:  "litellm.APIConnectionError: APIConnectionError: OpenAIException - [Errno 104] Connection reset by peer",
			class: failure.Transient, code: failure.CodeReset},
		{name: "a bare Connection error stops", tool: failure.ToolAuto,
			text:  "litellm.APIError: APIError: OpenAIException - Connection error.\nRetrying in 0.2 seconds...",
			class: failure.Unknown, code: CodeAiderConnection},
		{name: "a provider error class: its message speaks", tool: failure.ToolAuto,
			text:  `litellm.llms.vertex_httpx.VertexAIError: {"error": {"code": 404, "message": "models/gemini-1.5 is not found for API version v1beta", "status": "NOT_FOUND"}}`,
			class: failure.Structural, code: CodeGeminiNotFound},

		// aider's own lines
		{name: "not able to authenticate you", tool: failure.ToolAuto,
			text:  "The API provider is not able to authenticate you. Check your API key.",
			class: failure.Policy, code: CodeAiderAuthFailed},
		{name: "safety policy", tool: failure.ToolAuto,
			text:  "The API provider has refused the request due to a safety policy about the content.",
			class: failure.Structural, code: CodeAiderContentPolicy},
		{name: "missing package", tool: failure.ToolAuto,
			text:  "You need to: pip install boto3",
			class: failure.Structural, code: CodeAiderMissingDependency, reason: "boto3"},
		{name: "token limit", tool: failure.ToolAuto,
			text:  "Model deepseek/deepseek-coder has hit a token limit!\nToken counts below are approximate.\n\nInput tokens: ~60,895 of 128,000",
			class: failure.Structural, code: CodeAiderContextWindow},
		{name: "chat larger than the context window", tool: failure.ToolAuto,
			text:  "The chat session is larger than the context window!\n\nTo reduce token usage:",
			class: failure.Structural, code: CodeAiderContextWindow},
		{name: "missing environment variables", tool: failure.ToolAuto,
			text:  "Model azure/gpt-4o: Missing these environment variables:\n- AZURE_API_BASE\n- AZURE_API_KEY",
			class: failure.Policy, code: failure.CodeAiderAPIKeyMissing},
		{name: "litellm's missing key", tool: failure.ToolAuto,
			text:  "litellm.AuthenticationError: Missing Anthropic API Key - A call is being made to anthropic but no key is set either in the environment variables or via params. Please set `ANTHROPIC_API_KEY` in your environment vars",
			class: failure.Policy, code: failure.CodeAiderAPIKeyMissing},
		{name: "no AWS credentials behind an APIConnectionError", tool: failure.ToolAuto,
			text:  "litellm.APIConnectionError: BedrockException - Unable to locate credentials",
			class: failure.Policy, code: failure.CodeAiderAPIKeyMissing, reason: "AWS"},
		{name: "no credits behind an APIError", tool: failure.ToolAuto,
			text:  `litellm.APIError: APIError: OpenrouterException - {"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}`,
			class: failure.Policy, code: failure.CodeQuotaExhausted},
		{name: "no provider in the model name", tool: failure.ToolAuto,
			text:  "litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=glm-4-plus",
			class: failure.Structural, code: CodeAiderNoProvider},
		{name: "command line", tool: failure.ToolAuto,
			text:  "usage: aider [-h] [--model MODEL] [--openai-api-key OPENAI_API_KEY]\n             [FILE ...]\naider: error: unrecognized arguments: --4o-mini",
			class: failure.Structural, code: CodeAiderUsage, reason: "--4o-mini"},

		// near-misses: litellm's names outside an error line
		{name: "an except clause is not an error", tool: failure.ToolAuto,
			text:  "    except litellm.RateLimitError as err:\n        retry_delay *= 2",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "a traceback's raise line is not the error", tool: failure.ToolAuto,
			text:  "    raise litellm.exceptions.AuthenticationError(\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "a litellm attribute is not a class", tool: failure.ToolAuto,
			text:  "LiteLLM.Info: If you need to debug this error, use `litellm.set_verbose=True'.",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "retrying line alone", tool: failure.ToolAuto,
			text:  "Retrying in 0.5 seconds...",
			class: failure.Unknown, code: failure.CodeUnknown},
	})
}

// In an HTTP answer litellm's named class decides over the bare status: a
// NotFoundError is a model the request must stop naming, not an absent lookup.
func TestAiderOverStatus(t *testing.T) {
	cases := []struct {
		status int
		body   string
		class  failure.Class
		code   failure.Code
	}{
		{404, `{"error":{"message":"litellm.NotFoundError: NotFoundError: OpenAIException - Error code: 404 - Not Found. Received Model Group=DeepSeek-R1"}}`, failure.Structural, CodeAiderModelNotFound},
		{500, "openai.OpenAIError: The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable", failure.Policy, failure.CodeAPIAuth},
		{429, "litellm.RateLimitError: litellm.RateLimitError: VertexAIException - b'[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource\nhas been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]'", failure.Unknown, CodeGeminiResourceExhausted},
	}
	for _, tc := range cases {
		f := failure.Classify(failure.Input{Tool: failure.ToolHTTP, Status: tc.status, Text: tc.body, Now: time.Unix(0, 0)})
		checkFailure(t, f, tc.class, tc.code, "", "", nil)
		if err := invariants(f); err != nil {
			t.Error(err)
		}
	}
}

// The families are found by their program names and their marks.
func TestGeminiAiderDetection(t *testing.T) {
	for text, want := range map[string]failure.Tool{
		"✕ [API Error: read ETIMEDOUT]":                                          failure.ToolGemini,
		"litellm.APIError: APIError: OpenAIException - Connection error.":        failure.ToolAider,
		"Error when talking to Gemini API Full report available at: /tmp/x.json": failure.ToolAuto,
	} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != want {
			t.Errorf("detectTool(%q) = %s, want %s", text, got, want)
		}
	}
	for _, f := range []*failure.Family{&geminiFamily, &aiderFamily} {
		if len(f.Names) == 0 || len(f.Marks) == 0 {
			t.Errorf("%s: no names or marks", f.Tool)
		}
	}
}
