package failure

import "strings"

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
	CodeAiderAuthFailed        Code = "aider-authentication-failed"
	CodeAiderPermissionDenied  Code = "aider-permission-denied"
	CodeAiderBadRequest        Code = "aider-bad-request"
	CodeAiderModelNotFound     Code = "aider-model-not-found"
	CodeAiderNoProvider        Code = "aider-llm-provider-missing"
	CodeAiderContextWindow     Code = "aider-context-window-exceeded"
	CodeAiderContentPolicy     Code = "aider-content-policy"
	CodeAiderProviderDown      Code = "aider-provider-unavailable"
	CodeAiderConnection        Code = "aider-api-connection-error"
	CodeAiderMissingDependency Code = "aider-missing-dependency"
	CodeAiderUsage             Code = "aider-usage-error"
	CodeAiderCredits           Code = "aider-insufficient-credits"
)

const (
	remedyAiderKey     = "the provider refused the API key: put a valid key in the secret behind the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY ...); `aider --verbose` shows which one aider used"
	remedyAiderNoKey   = "no API key reached aider: set the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY ...) in the job's environment, or pass --api-key provider=KEY"
	remedyAiderContext = "the chat is larger than the model's context window or output limit: add fewer files, drop some (/drop), clear the history, or pick a model with a larger window"
	remedyAiderDown    = "the provider's servers are down or overloaded: retrying with backoff; switch model or provider if it persists"
)

var reLiteLLM = lazyRE(`\blitellm\.(?:[a-z_]+\.)*([A-Z][A-Za-z]+):\s*(.*)`)

// litellmClass is what a litellm exception class says when the message
// after it is not recognised.
type litellmClass struct {
	class  Class
	code   Code
	rank   int
	remedy string
	// generic classes are litellm's reading of the HTTP status alone: a
	// recognised message at rankTool (a google.rpc status, an API error
	// type) is the better answer.
	generic bool
}

var litellmClasses = map[string]litellmClass{
	"AuthenticationError":         {Policy, CodeAiderAuthFailed, rankTool, remedyAiderKey, false},
	"PermissionDeniedError":       {Policy, CodeAiderPermissionDenied, rankTool, "the key may not use this model or project: grant it access, or use a key that has it", false},
	"BudgetExceededError":         {Policy, CodeQuotaExhausted, rankTool, "the litellm budget for this key or user is spent: raise max_budget or wait for the budget period to reset", false},
	"NotFoundError":               {Structural, CodeAiderModelNotFound, rankTool, "the model (or the api_base path) does not exist at the provider: fix --model or the provider's base URL", false},
	"ContextWindowExceededError":  {Structural, CodeAiderContextWindow, rankTool, remedyAiderContext, false},
	"ContentPolicyViolationError": {Structural, CodeAiderContentPolicy, rankTool, "the provider refused the content under its safety policy: change the prompt or the files sent", false},
	"BadRequestError":             {Structural, CodeAiderBadRequest, rankTool, "the provider rejected the request (a parameter, a field, the model's settings): change the request, the model settings or the aider version; resending it unchanged fails again", true},
	"InvalidRequestError":         {Structural, CodeAiderBadRequest, rankTool, "the provider rejected the request: change it; resending it unchanged fails again", true},
	"UnsupportedParamsError":      {Structural, CodeAiderBadRequest, rankTool, "the model does not accept a parameter aider sent: drop it (litellm drop_params, the model settings) or pick another model", true},
	"UnprocessableEntityError":    {Structural, CodeAiderBadRequest, rankTool, "the provider could not process the request (422): change it", true},
	"JSONSchemaValidationError":   {Structural, CodeAiderBadRequest, rankTool, "the answer did not match the JSON schema asked for: change the request or the model", true},
	"RateLimitError":              {Transient, CodeRateLimited, rankRateLimit, remedyRateLimit, true},
	"RouterRateLimitError":        {Transient, CodeRateLimited, rankRateLimit, remedyRateLimit, true},
	"InternalServerError":         {Transient, CodeAiderProviderDown, rankRateLimit, remedyAiderDown, true},
	"ServiceUnavailableError":     {Transient, CodeAiderProviderDown, rankRateLimit, remedyAiderDown, true},
	"Timeout":                     {Transient, CodeTimeout, rankRateLimit, "the provider did not answer in time: retrying; raise --timeout or send less if it recurs", true},
	// litellm raises these for anything it could not map, credentials and
	// local setup included: only a recognised cause decides.
	"APIConnectionError": {Unknown, CodeAiderConnection, rankMention, "read the message after the class: a network failure clears, missing credentials or a missing package do not", true},
	"APIError":           {Unknown, CodeAiderConnection, rankMention, "read the message after the class: a network failure clears, missing credentials or a missing package do not", true},
}

var aiderFamily = family{
	tool:  ToolAider,
	names: []string{"aider"},
	marks: []string{"litellm."},
	matchers: []matcher{
		{
			gates: []string{"litellm."},
			re:    reLiteLLM,
			frame: true,
			build: litellmHit,
		},
		{
			gates: []string{"ExceededError"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "ContextWindowExceededError") {
					return hit{}, false
				}
				return hit{class: Structural, code: CodeAiderContextWindow, rank: rankTool,
					reason: "the request exceeds the model's context window (ContextWindowExceededError)", remedy: remedyAiderContext}, true
			},
		},
		// aider's own one-line explanation of each litellm class
		{
			gates: []string{"API provider is not able to authenticate"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Policy, code: CodeAiderAuthFailed, rank: rankTool, reason: "the API provider could not authenticate aider", remedy: remedyAiderKey}, true
			},
		},
		{
			gates: []string{"API provider has refused the request due to a safety"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeAiderContentPolicy, rank: rankTool, reason: "the API provider refused the content (safety policy)",
					remedy: "change the prompt or the files sent: the provider's content policy refuses them"}, true
			},
		},
		{
			gates: []string{"API provider has rate limited you"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Transient, code: CodeRateLimited, rank: rankRateLimit, reason: "rate limited by the API provider", remedy: remedyRateLimit}, true
			},
		},
		{
			gates: []string{"API provider's servers are down or overloaded", "API provider is down, overloaded or rate limiting"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Transient, code: CodeAiderProviderDown, rank: rankRateLimit, reason: "the API provider's servers are down or overloaded", remedy: remedyAiderDown}, true
			},
		},
		{
			gates: []string{"API provider timed out without returning"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Transient, code: CodeTimeout, rank: rankRateLimit, tr: trNet, reason: "the API provider timed out without answering",
					remedy: "the provider did not answer in time: retrying; raise --timeout or send less if it recurs"}, true
			},
		},
		{
			gates: []string{"You need to: pip install "},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				_, pkg, _ := strings.Cut(line, "pip install ")
				return hit{class: Structural, code: CodeAiderMissingDependency, rank: rankTool, reason: "a Python package the provider needs is not installed: " + clip(pkg),
					remedy: "install it into aider's environment (pip install " + clip(pkg) + ", or aider-chat[...] extras) before the step"}, true
			},
		},
		// the context window and the output limit
		{
			gates: []string{"has hit a token limit", "hat session is larger than the context window"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeAiderContextWindow, rank: rankTool, reason: "the model hit its token limit (context window or output limit)", remedy: remedyAiderContext}, true
			},
		},
		// no API key at all
		{
			gates: []string{"issing these environment variables", "To use model", "client option must be set", "no key is set either in the environment"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "no API key reached the client"
				switch {
				case strings.Contains(line, "To use model") && !strings.Contains(line, "environment variables"):
					return hit{}, false
				case strings.Contains(line, "Missing these environment variables") || strings.Contains(line, "please set these environment variables"):
					reason = "the model's environment variables are not set"
				case strings.Contains(line, "OPENAI_API_KEY"):
					reason = "no OpenAI API key: OPENAI_API_KEY is not set"
				}
				// more than an AuthenticationError around it: no key at all
				return hit{class: Policy, code: CodeAiderAPIKeyMissing, rank: rankTool + 1, reason: reason, remedy: remedyAiderNoKey}, true
			},
		},
		{
			gates: []string{"Unable to locate credentials", "NoCredentialsError"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Policy, code: CodeAiderAPIKeyMissing, rank: rankTool + 1, reason: "no AWS credentials for Bedrock (botocore)",
					remedy: "give the job AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an OIDC role) and AWS_REGION for Bedrock"}, true
			},
		},
		{
			gates: []string{"nsufficient credits"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Policy, code: CodeAiderCredits, rank: rankTool + 1, reason: "the provider account has no credits left (402 Insufficient credits)",
					remedy: "buy credits for the provider account (OpenRouter: settings → credits), or point the key at an account that has them"}, true
			},
		},
		{
			gates: []string{"Provider NOT provided"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeAiderNoProvider, rank: rankTool, reason: "litellm cannot tell the provider from the model name",
					remedy: "prefix the model with its provider (openai/…, anthropic/…, gemini/…, ollama/…) in --model"}, true
			},
		},
		{
			gates: []string{"usage: aider"},
			build: func(c *scanCtx, _ string, _ []string) (hit, bool) {
				// argparse: the usage line, then "aider: error: <why>"
				reason := "aider rejected its command line"
				for _, l := range followingLines(c.text, c.lineEnd, 4) {
					if _, msg, ok := strings.Cut(l, "aider: error: "); ok {
						reason += ": " + clip(msg)
						break
					}
				}
				return hit{class: Structural, code: CodeAiderUsage, rank: rankTool, reason: reason,
					remedy: "fix the aider arguments in the step (aider --help lists them)"}, true
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
func litellmHit(c *scanCtx, _ string, m []string) (hit, bool) {
	lc, known := litellmClasses[m[1]]
	if !known {
		return hit{}, false // a provider's own error class (AnthropicError ...): its message speaks
	}
	msg, ok := c.phrase(m[2])
	def := hit{class: lc.class, code: lc.code, rank: lc.rank, reason: "litellm." + m[1], remedy: lc.remedy}
	if lc.class == Transient && lc.code == CodeTimeout {
		def.tr = trNet
	}
	useMsg := ok && (msg.rank > def.rank ||
		(lc.generic && msg.rank >= rankTool) ||
		(msg.rank == def.rank && def.class == Transient && msg.class != Transient) ||
		(def.class == Unknown && msg.rank >= rankTransport))
	if !lc.generic && def.class != Transient && msg.class == Transient {
		useMsg = false // a wait in the message does not undo an AuthenticationError
	}
	if useMsg {
		msg.reason = "litellm." + m[1] + ": " + msg.reason
		return msg, true
	}
	if p := providerOf(m[2]); p != "" {
		def.reason += " from " + clip(p)
	}
	if !lc.generic && def.class != Transient && def.class != Unknown {
		def.rank = rankTool + 1
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
