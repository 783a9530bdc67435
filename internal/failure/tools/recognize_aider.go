package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// aider's failures. aider reports the provider's errors through litellm,
// whose exception classes are a stable vocabulary ("litellm.RateLimitError:
// VertexAIException - {...}"): the class is mostly litellm's reading of the
// HTTP status, the provider's message after it is the more specific answer.
// The message decides when it is recognised (a google.rpc status, a quota, an
// API error type, a missing key), the class otherwise: litellm wraps a
// missing OPENAI_API_KEY as OpenAIError(status_code=500), so the status alone
// would call a credential problem a server fault. aider's own lines (its
// one-line explanation of each class, its token-limit report, its missing
// environment variables) are recognised too.

// aider's codes.
const (
	CodeAiderAuthFailed        failure.Code = "aider-authentication-failed"
	CodeAiderPermissionDenied  failure.Code = "aider-permission-denied"
	CodeAiderBadRequest        failure.Code = "aider-bad-request"
	CodeAiderModelNotFound     failure.Code = "aider-model-not-found"
	CodeAiderNoProvider        failure.Code = "aider-llm-provider-missing"
	CodeAiderContextWindow     failure.Code = "aider-context-window-exceeded"
	CodeAiderContentPolicy     failure.Code = "aider-content-policy"
	CodeAiderProviderDown      failure.Code = "aider-provider-unavailable"
	CodeAiderConnection        failure.Code = "aider-api-connection-error"
	CodeAiderMissingDependency failure.Code = "aider-missing-dependency"
	CodeAiderUsage             failure.Code = "aider-usage-error"
	CodeAiderCredits           failure.Code = "aider-insufficient-credits"
)

const (
	remedyAiderKey     = "the provider refused the API key: put a valid key in the secret behind the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY ...); `aider --verbose` shows which one aider used"
	remedyAiderNoKey   = "no API key reached aider: set the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY ...) in the job's environment, or pass --api-key provider=KEY"
	remedyAiderContext = "the chat is larger than the model's context window or output limit: add fewer files, drop some (/drop), clear the history, or pick a model with a larger window"
	remedyAiderDown    = "the provider's servers are down or overloaded: retrying with backoff; switch model or provider if it persists"
)

var reLiteLLM = failure.LazyRE(`\blitellm\.(?:[a-z_]+\.)*([A-Z][A-Za-z]+):\s*(.*)`)

// litellmClass is what a litellm exception class says when the message
// after it is not recognised.
type litellmClass struct {
	class  failure.Class
	code   failure.Code
	rank   int
	remedy string
	// generic classes are litellm's reading of the HTTP status alone: a
	// recognised message at rankTool (a google.rpc status, an API error
	// type) is the better answer.
	generic bool
}

var litellmClasses = map[string]litellmClass{
	"AuthenticationError":         {failure.Policy, CodeAiderAuthFailed, failure.RankTool, remedyAiderKey, false},
	"PermissionDeniedError":       {failure.Policy, CodeAiderPermissionDenied, failure.RankTool, "the key may not use this model or project: grant it access, or use a key that has it", false},
	"BudgetExceededError":         {failure.Policy, failure.CodeQuotaExhausted, failure.RankTool, "the litellm budget for this key or user is spent: raise max_budget or wait for the budget period to reset", false},
	"NotFoundError":               {failure.Structural, CodeAiderModelNotFound, failure.RankTool, "the model (or the api_base path) does not exist at the provider: fix --model or the provider's base URL", false},
	"ContextWindowExceededError":  {failure.Structural, CodeAiderContextWindow, failure.RankTool, remedyAiderContext, false},
	"ContentPolicyViolationError": {failure.Structural, CodeAiderContentPolicy, failure.RankTool, "the provider refused the content under its safety policy: change the prompt or the files sent", false},
	"BadRequestError":             {failure.Structural, CodeAiderBadRequest, failure.RankTool, "the provider rejected the request (a parameter, a field, the model's settings): change the request, the model settings or the aider version; resending it unchanged fails again", true},
	"InvalidRequestError":         {failure.Structural, CodeAiderBadRequest, failure.RankTool, "the provider rejected the request: change it; resending it unchanged fails again", true},
	"UnsupportedParamsError":      {failure.Structural, CodeAiderBadRequest, failure.RankTool, "the model does not accept a parameter aider sent: drop it (litellm drop_params, the model settings) or pick another model", true},
	"UnprocessableEntityError":    {failure.Structural, CodeAiderBadRequest, failure.RankTool, "the provider could not process the request (422): change it", true},
	"JSONSchemaValidationError":   {failure.Structural, CodeAiderBadRequest, failure.RankTool, "the answer did not match the JSON schema asked for: change the request or the model", true},
	"RateLimitError":              {failure.Transient, failure.CodeRateLimited, failure.RankRateLimit, failure.RemedyRateLimit, true},
	"RouterRateLimitError":        {failure.Transient, failure.CodeRateLimited, failure.RankRateLimit, failure.RemedyRateLimit, true},
	"InternalServerError":         {failure.Transient, CodeAiderProviderDown, failure.RankRateLimit, remedyAiderDown, true},
	"ServiceUnavailableError":     {failure.Transient, CodeAiderProviderDown, failure.RankRateLimit, remedyAiderDown, true},
	"Timeout":                     {failure.Transient, failure.CodeTimeout, failure.RankRateLimit, "the provider did not answer in time: retrying; raise --timeout or send less if it recurs", true},
	// litellm raises these for anything it could not map, credentials and
	// local setup included: only a recognised cause decides.
	"APIConnectionError": {failure.Unknown, CodeAiderConnection, failure.RankMention, "read the message after the class: a network failure clears, missing credentials or a missing package do not", true},
	"APIError":           {failure.Unknown, CodeAiderConnection, failure.RankMention, "read the message after the class: a network failure clears, missing credentials or a missing package do not", true},
}

var aiderFamily = failure.Family{
	Tool:  failure.ToolAider,
	Names: []string{"aider"},
	Marks: []string{"litellm."},
	Matchers: []failure.Matcher{
		{
			Gates: []string{"litellm."},
			RE:    reLiteLLM,
			Frame: true,
			Build: litellmHit,
		},
		{
			Gates: []string{"ExceededError"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "ContextWindowExceededError") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Structural, Code: CodeAiderContextWindow, Rank: failure.RankTool,
					Reason: "the request exceeds the model's context window (ContextWindowExceededError)", Remedy: remedyAiderContext}, true
			},
		},
		// aider's own one-line explanation of each litellm class
		{
			Gates: []string{"API provider is not able to authenticate"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeAiderAuthFailed, Rank: failure.RankTool, Reason: "the API provider could not authenticate aider", Remedy: remedyAiderKey}, true
			},
		},
		{
			Gates: []string{"API provider has refused the request due to a safety"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeAiderContentPolicy, Rank: failure.RankTool, Reason: "the API provider refused the content (safety policy)",
					Remedy: "change the prompt or the files sent: the provider's content policy refuses them"}, true
			},
		},
		{
			Gates: []string{"API provider has rate limited you"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: failure.RankRateLimit, Reason: "rate limited by the API provider", Remedy: failure.RemedyRateLimit}, true
			},
		},
		{
			Gates: []string{"API provider's servers are down or overloaded", "API provider is down, overloaded or rate limiting"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Transient, Code: CodeAiderProviderDown, Rank: failure.RankRateLimit, Reason: "the API provider's servers are down or overloaded", Remedy: remedyAiderDown}, true
			},
		},
		{
			Gates: []string{"API provider timed out without returning"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Transient, Code: failure.CodeTimeout, Rank: failure.RankRateLimit, Trace: failure.TrNet, Reason: "the API provider timed out without answering",
					Remedy: "the provider did not answer in time: retrying; raise --timeout or send less if it recurs"}, true
			},
		},
		{
			Gates: []string{"You need to: pip install "},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				_, pkg, _ := strings.Cut(line, "pip install ")
				return failure.Hit{Class: failure.Structural, Code: CodeAiderMissingDependency, Rank: failure.RankTool, Reason: "a Python package the provider needs is not installed: " + failure.Clip(pkg),
					Remedy: "install it into aider's environment (pip install " + failure.Clip(pkg) + ", or aider-chat[...] extras) before the step"}, true
			},
		},
		// the context window and the output limit
		{
			Gates: []string{"has hit a token limit", "hat session is larger than the context window"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeAiderContextWindow, Rank: failure.RankTool, Reason: "the model hit its token limit (context window or output limit)", Remedy: remedyAiderContext}, true
			},
		},
		// no API key at all
		{
			Gates: []string{"issing these environment variables", "To use model", "client option must be set", "no key is set either in the environment"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "no API key reached the client"
				switch {
				case strings.Contains(line, "To use model") && !strings.Contains(line, "environment variables"):
					return failure.Hit{}, false
				case strings.Contains(line, "Missing these environment variables") || strings.Contains(line, "please set these environment variables"):
					reason = "the model's environment variables are not set"
				case strings.Contains(line, "OPENAI_API_KEY"):
					reason = "no OpenAI API key: OPENAI_API_KEY is not set"
				}
				// more than an AuthenticationError around it: no key at all
				return failure.Hit{Class: failure.Policy, Code: failure.CodeAiderAPIKeyMissing, Rank: failure.RankTool + 1, Reason: reason, Remedy: remedyAiderNoKey}, true
			},
		},
		{
			Gates: []string{"Unable to locate credentials", "NoCredentialsError"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: failure.CodeAiderAPIKeyMissing, Rank: failure.RankTool + 1, Reason: "no AWS credentials for Bedrock (botocore)",
					Remedy: "give the job AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an OIDC role) and AWS_REGION for Bedrock"}, true
			},
		},
		{
			Gates: []string{"nsufficient credits"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeAiderCredits, Rank: failure.RankTool + 1, Reason: "the provider account has no credits left (402 Insufficient credits)",
					Remedy: "buy credits for the provider account (OpenRouter: settings → credits), or point the key at an account that has them"}, true
			},
		},
		{
			Gates: []string{"Provider NOT provided"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeAiderNoProvider, Rank: failure.RankTool, Reason: "litellm cannot tell the provider from the model name",
					Remedy: "prefix the model with its provider (openai/…, anthropic/…, gemini/…, ollama/…) in --model"}, true
			},
		},
		{
			Gates: []string{"usage: aider"},
			Build: func(c *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				// argparse: the usage line, then "aider: error: <why>"
				reason := "aider rejected its command line"
				for _, l := range failure.FollowingLines(c.Text, c.LineEnd, 4) {
					if _, msg, ok := strings.Cut(l, "aider: error: "); ok {
						reason += ": " + failure.Clip(msg)
						break
					}
				}
				return failure.Hit{Class: failure.Structural, Code: CodeAiderUsage, Rank: failure.RankTool, Reason: reason,
					Remedy: "fix the aider arguments in the step (aider --help lists them)"}, true
			},
		},
	},
}

// litellmHit classifies "litellm.<Class>: <message>": the message decides
// when a recogniser knows it better than the class does, the class
// otherwise. A stop verdict of a class that is more than a status
// (AuthenticationError, NotFoundError ...) ranks just above the message's
// own recognisers, which it has already weighed: litellm chose it from the
// message (an "API key not valid" INVALID_ARGUMENT is an AuthenticationError).
func litellmHit(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
	lc, known := litellmClasses[m[1]]
	if !known {
		return failure.Hit{}, false // a provider's own error class (AnthropicError ...): its message speaks
	}
	msg, ok := c.Phrase(m[2])
	def := failure.Hit{Class: lc.class, Code: lc.code, Rank: lc.rank, Reason: "litellm." + m[1], Remedy: lc.remedy}
	if lc.class == failure.Transient && lc.code == failure.CodeTimeout {
		def.Trace = failure.TrNet
	}
	useMsg := ok && (msg.Rank > def.Rank ||
		(lc.generic && msg.Rank >= failure.RankTool) ||
		(msg.Rank == def.Rank && def.Class == failure.Transient && msg.Class != failure.Transient) ||
		(def.Class == failure.Unknown && msg.Rank >= failure.RankTransport))
	if !lc.generic && def.Class != failure.Transient && msg.Class == failure.Transient {
		useMsg = false // a wait in the message does not undo an AuthenticationError
	}
	if useMsg {
		msg.Reason = "litellm." + m[1] + ": " + msg.Reason
		return msg, true
	}
	if p := providerOf(m[2]); p != "" {
		def.Reason += " from " + failure.Clip(p)
	}
	if !lc.generic && def.Class != failure.Transient && def.Class != failure.Unknown {
		def.Rank = failure.RankTool + 1
	}
	return def, true
}

// providerOf returns litellm's provider exception named in a message
// ("VertexAIException", "AnthropicError"), or "".
func providerOf(msg string) string {
	for _, w := range strings.Fields(msg) {
		w = strings.Trim(w, ":-,.'\"")
		if _, class := litellmClasses[w]; class || strings.HasPrefix(w, "litellm") {
			continue
		}
		if len(w) > 9 && (strings.HasSuffix(w, "Exception") || strings.HasSuffix(w, "Error")) {
			return w
		}
	}
	return ""
}
