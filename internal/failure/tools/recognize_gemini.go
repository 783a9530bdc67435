package tools

import (
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// gemini's failures: Google's API errors as the Gemini CLI (and anything
// else calling the Gemini or Vertex AI API, aider through litellm included)
// prints them. The google.rpc status of the JSON error is the kind
// (RESOURCE_EXHAUSTED, UNAVAILABLE, INVALID_ARGUMENT ...); its message and
// details refine it: an invalid API key rides on INVALID_ARGUMENT, and a 429
// says which quota was hit (a per-minute quota id, a retryDelay: wait; a
// per-day one, a zero limit: stop) or does not say (unknown: it stops). The
// CLI's own complaints about a run with no credentials are policy.
//
// The CLI wraps its terminal, so a JSON error arrives cut into lines at any
// point ("\"status\":\n  \"INVALID_ARGUMENT\""): the status codes are
// recognised bare when quoted or closing "(Status: ...)", and phrases are
// gated on short fragments.

// gemini's codes.
const (
	CodeGeminiUnavailable        failure.Code = "gemini-unavailable"
	CodeGeminiInternal           failure.Code = "gemini-internal-error"
	CodeGeminiDeadline           failure.Code = "gemini-deadline-exceeded"
	CodeGeminiInvalidArgument    failure.Code = "gemini-invalid-argument"
	CodeGeminiPermissionDenied   failure.Code = "gemini-permission-denied"
	CodeGeminiUnauthenticated    failure.Code = "gemini-unauthenticated"
	CodeGeminiNotFound           failure.Code = "gemini-not-found"
	CodeGeminiFailedPrecondition failure.Code = "gemini-failed-precondition"
	CodeGeminiResourceExhausted  failure.Code = "gemini-resource-exhausted"
	CodeGeminiAPIKeyInvalid      failure.Code = "gemini-api-key-invalid"
	CodeGeminiLocation           failure.Code = "gemini-location-unsupported"
	CodeGeminiServiceDisabled    failure.Code = "gemini-service-disabled"
	CodeGeminiQuotaZero          failure.Code = "gemini-quota-zero"
	CodeGeminiCredits            failure.Code = "gemini-insufficient-credits"
	CodeGeminiIneligible         failure.Code = "gemini-account-ineligible"
	CodeGeminiInputError         failure.Code = "gemini-input-error"
	CodeGeminiConfigError        failure.Code = "gemini-config-error"
	CodeGeminiTurnLimit          failure.Code = "gemini-turn-limit"
	CodeGeminiUntrusted          failure.Code = "gemini-untrusted-workspace"
	CodeGeminiFatal              failure.Code = "gemini-fatal-error"
)

const (
	// rankGoogleRefine is a phrase that says more than the status it rides
	// on: the API key, the location, the disabled service, Vertex's shared
	// capacity.
	rankGoogleRefine = failure.RankTool + 1
	// rankGoogleQuota says which quota a 429 hit and when it resets: it
	// beats the bare RESOURCE_EXHAUSTED and Google's stock "You exceeded your
	// current quota" sentence, which Google puts on per-minute limits too.
	// At equal rank a stop beats a wait, so a daily quota beats a retryDelay.
	rankGoogleQuota = failure.RankTool + 2
	// geminiMaxWait is the longest wait still worth a retry; a quota that
	// resets later is spent for this run.
	geminiMaxWait = time.Hour
)

const (
	remedyGeminiAuth   = "no credentials reached gemini in this run: set GEMINI_API_KEY from the job's secrets (or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), or set the auth type in .gemini/settings.json"
	remedyGeminiKey    = "the API key is wrong, revoked or of another project: put a valid key (Google AI Studio → API keys) in the secret behind GEMINI_API_KEY / GOOGLE_API_KEY"
	remedyGeminiDaily  = "a daily quota is spent (it resets at midnight Pacific time): wait for the reset, enable billing or a higher tier, or switch to a model with quota left"
	remedyGeminiMinute = "a per-minute rate limit: waiting as the API asked (retryDelay), then retrying; lower the request rate or raise the tier if it recurs"
)

// googleCodes are the google.rpc status codes of the API's errors.
const googleCodes = `RESOURCE_EXHAUSTED|UNAVAILABLE|INTERNAL|DEADLINE_EXCEEDED|INVALID_ARGUMENT|PERMISSION_DENIED|UNAUTHENTICATED|NOT_FOUND|FAILED_PRECONDITION`

// googleDuration is a duration as Google writes it: "13s", "39.84s",
// "373.80ms", "12h34m16s".
const googleDuration = `\d+(?:\.\d+)?(?:ms|h|m|s)(?:\d+(?:\.\d+)?(?:ms|h|m|s))*`

var (
	// a status after its key ("status": "X", got status: X, (Status: X)),
	// after its HTTP code (503 UNAVAILABLE), quoted bare, or closing a
	// "(Status:" cut by the terminal's wrap.
	reGoogleStatus    = failure.LazyRE(`(?i:status)\\*["']?\s*:\s*\\*["']?(` + googleCodes + `)\b|\b([45]\d\d) (` + googleCodes + `)\b|\\*["'](` + googleCodes + `)\\*["']|^\s*(` + googleCodes + `)\)`)
	reGoogleKey       = failure.LazyRE(`API_KEY_INVALID|not valid. Please pass a valid|not found. Please pass a valid|Please renew the API key`)
	reGoogleQuota     = failure.LazyRE(`\\*["']([A-Z][A-Za-z0-9]*Per(?:Day|Minute)[A-Za-z0-9]*(?:-[A-Za-z]+)?)\\*["']`)
	reRetryDelay      = failure.LazyRE(`\\*["'](?:retryDelay|quotaResetDelay)\\*["']\s*:\s*\\*["'](` + googleDuration + `)`)
	reRetryIn         = failure.LazyRE(`(?:Please retry in|Your quota will reset after)\s*(` + googleDuration + `)?`)
	reLeadingDur      = failure.LazyRE(`^\s*(` + googleDuration + `)`)
	reGeminiLimitZero = failure.LazyRE(`(?:Quota exceeded for metric: ([\w./-]+),\s*)?\blimit: 0,`)
	reAPIKeyEnv       = failure.LazyRE(`\b([A-Z][A-Z0-9_]*_API_KEY) environment variable not found`)
	reNotForAPI       = failure.LazyRE(`(models/\S+) is not found for API version`)
	reGeminiFatal     = failure.LazyRE(`\b(Fatal(?:Authentication|Input|Sandbox|Config|TurnLimited|ToolExecution|Cancellation|UntrustedWorkspace)Error|AccountSuspendedError|TerminalQuotaError|RetryableQuotaError)\b`)
)

var geminiFamily = failure.Family{
	Tool:  failure.ToolGemini,
	Names: []string{"gemini"},
	// one mark, the CLI's "[API Error: ...]" (also "✕ API Error: "): each
	// mark is a search of the whole text
	Marks: []string{"API Error: "},
	Matchers: []failure.Matcher{
		{
			// gates: a fragment of each code (UNAVAILABLE's "ABLE", NOT_FOUND's
			// "OUND" ...) that starts as other gates start, keeping the gate
			// index's prefix table small
			Gates: []string{"RESOURCE_EXHAUSTED", "ABLE", "INTERNAL", "CEEDED", "INVALID_ARGUMENT", "ERMISSION_DENIED", "UTHENTICATED", "OUND", "RECONDITION"},
			RE:    reGoogleStatus,
			Build: googleStatusHit,
		},
		{
			Gates: []string{"not valid. Please pass a valid", "not found. Please pass a valid", "Please renew the API key", "INVALID"},
			RE:    reGoogleKey,
			Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiAPIKeyInvalid, Rank: rankGoogleRefine,
					Reason: "Google API key rejected: " + failure.Clip(m[0]), Remedy: remedyGeminiKey}, true
			},
		},
		{
			Gates: []string{"location is not supported", "free tier is not available in your country"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "User location") && !strings.Contains(line, "free tier is not available") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiLocation, Rank: rankGoogleRefine,
					Reason: "the Gemini API is not available from this location (FAILED_PRECONDITION)",
					Remedy: "the runner's region is not supported (or its free tier): run the job from a supported region, or enable billing on the project"}, true
			},
		},
		{
			Gates: []string{"SERVICE_DISABLED", "is disabled. Enable it by visiting", "has not been used in project"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiServiceDisabled, Rank: rankGoogleRefine,
					Reason: "the Google API is disabled for the project (SERVICE_DISABLED)",
					Remedy: "enable the API for the project named in the message (console → APIs & Services), or point GOOGLE_CLOUD_PROJECT at a project that has it"}, true
			},
		},
		{
			Gates: []string{"is not found for API version"},
			RE:    reNotForAPI,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeGeminiNotFound, Rank: rankGoogleRefine,
					Reason: "unknown model " + failure.Clip(m[1]),
					Remedy: "the model name does not exist for this API version (or was retired): set --model / GEMINI_MODEL to a model that ListModels shows"}, true
			},
		},
		{
			Gates: []string{"Publisher Model `"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "not found") {
					if next := failure.FollowingLines(c.Text, c.LineEnd, 1); len(next) == 0 || !strings.Contains(next[0], "not found") {
						return failure.Hit{}, false
					}
				}
				return failure.Hit{Class: failure.Structural, Code: CodeGeminiNotFound, Rank: rankGoogleRefine,
					Reason: "Vertex AI: publisher model not found",
					Remedy: "the model (or its version) does not exist in this project and location: fix --model, GOOGLE_CLOUD_LOCATION, or the project's access to it"}, true
			},
		},
		{
			Gates: []string{"Please try again later"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "Resource exhausted. Please try again later") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: rankGoogleRefine,
					Reason: "Vertex AI's shared capacity is exhausted (429: Resource exhausted, try again later)",
					Remedy: "Vertex AI's dynamic shared quota is busy: retrying with backoff; buy provisioned throughput or use another region if it recurs"}, true
			},
		},
		// no credentials at all in a non-interactive run
		{
			Gates: []string{"Please set an Auth method", "not found. Add that to your", "When using", "load the default credentials", "DefaultCredentialsError", "GOOGLE_CLOUD_PROJECT"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "When using") && !strings.Contains(line, "must specify"),
					strings.Contains(line, "not found. Add that to your") && !strings.Contains(line, "environment variable"),
					strings.Contains(line, "GOOGLE_CLOUD_PROJECT") && !strings.Contains(line, "requires setting") && !strings.Contains(line, "When using"):
					return failure.Hit{}, false
				}
				reason := "no Gemini credentials configured"
				switch {
				case strings.Contains(line, "default credentials") || strings.Contains(line, "DefaultCredentialsError"):
					reason = "no Google application default credentials"
				case strings.Contains(line, "GOOGLE_CLOUD_PROJECT"):
					reason = "no Google Cloud project configured (GOOGLE_CLOUD_PROJECT)"
				default:
					if m := reAPIKeyEnv.FindStringSubmatch(line); m != nil {
						reason = failure.Clip(m[1]) + " is not set"
					} else if strings.Contains(line, "GEMINI_API_KEY environment variable") {
						reason = "GEMINI_API_KEY is not set"
					}
				}
				return failure.Hit{Class: failure.Policy, Code: failure.CodeGeminiAuthMissing, Rank: failure.RankTool, Reason: reason, Remedy: remedyGeminiAuth}, true
			},
		},
		{
			Gates: []string{"not eligible for Gemini Code Assist", "named user on your organization"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "the Google account is not eligible for Gemini Code Assist"
				if strings.Contains(line, "location") {
					reason += " in this location"
				}
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiIneligible, Rank: failure.RankTool, Reason: reason,
					Remedy: "the logged-in account cannot use Gemini Code Assist (tier, licence or region): use GEMINI_API_KEY or Vertex AI credentials in the job, or an eligible account"}, true
			},
		},
		{
			Gates: []string{"ached credentials are not valid"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiUnauthenticated, Rank: failure.RankTool, Reason: "gemini's cached login is no longer valid",
					Remedy: "the cached OAuth login expired or was revoked, and a job cannot log in again: use GEMINI_API_KEY or a service account (Vertex AI) in CI"}, true
			},
		},
		// the CLI's own error classes (the "type" of its JSON error, the
		// name in a stack trace): each has its exit code (41 auth, 42 input,
		// 44 sandbox, 52 config, 53 turn limit, 54 tool, 130 cancelled)
		{
			Gates: []string{"Fatal", "AccountSuspendedError", "TerminalQuotaError", "RetryableQuotaError"},
			RE:    reGeminiFatal,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				v, ok := geminiFatal[m[1]]
				if !ok {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: v.class, Code: v.code, Rank: failure.RankTool, Reason: "gemini " + m[1] + ": " + v.reason, Remedy: v.remedy}, true
			},
		},
		// which quota a 429 hit, and when it resets (the waits first: at
		// equal rank the first hit of a line stands, and a per-minute quota
		// id beside a retryDelay must keep the wait)
		{
			Gates: []string{"Delay"},
			RE:    reRetryDelay,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) { return quotaWaitHit(m[1]) },
		},
		{
			Gates: []string{"Please retry in", "Your quota will reset after"},
			RE:    reRetryIn,
			Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				d := m[1]
				if d == "" { // the terminal wrapped the duration onto the next line
					if next := failure.FollowingLines(c.Text, c.LineEnd, 1); len(next) == 1 {
						if n := reLeadingDur.FindStringSubmatch(next[0]); n != nil {
							d = n[1]
						}
					}
				}
				return quotaWaitHit(d)
			},
		},
		{
			Gates: []string{"PerDay", "PerMinute"},
			RE:    reGoogleQuota,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				if strings.Contains(m[1], "PerDay") {
					return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: rankGoogleQuota,
						Reason: "daily quota spent: " + failure.Clip(m[1]), Remedy: remedyGeminiDaily}, true
				}
				return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: rankGoogleQuota,
					Reason: "per-minute rate limit: " + failure.Clip(m[1]), Remedy: remedyGeminiMinute}, true
			},
		},
		{
			Gates: []string{"and limit '"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				_, limit, _ := strings.Cut(line, "and limit '")
				limit = strings.ToLower(limit)
				switch {
				case strings.Contains(limit, "per day"):
					return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: rankGoogleQuota,
						Reason: "daily quota spent (requests per day)", Remedy: remedyGeminiDaily}, true
				case strings.Contains(limit, "per minute"):
					return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: rankGoogleQuota,
						Reason: "per-minute rate limit (requests per minute)", Remedy: remedyGeminiMinute}, true
				}
				return failure.Hit{}, false
			},
		},
		{
			Gates: []string{"limit: 0,"},
			RE:    reGeminiLimitZero,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				reason := "this model has no quota on the account's tier (limit: 0)"
				if m[1] != "" {
					reason = "no quota on the account's tier for " + failure.Clip(m[1]) + " (limit: 0)"
				}
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiQuotaZero, Rank: rankGoogleQuota, Reason: reason,
					Remedy: "the free tier has no quota for this model: enable billing on the project, or pick a model the tier includes"}, true
			},
		},
		{
			Gates: []string{"You have reached your daily", "You have exhausted your daily", "STED"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "QUOTA_EXHAUSTED") && !strings.Contains(line, " your daily") {
					return failure.Hit{}, false // "STED" is QUOTA_EXHAUSTED's gate
				}
				return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: rankGoogleQuota,
					Reason: "daily quota spent", Remedy: remedyGeminiDaily}, true
			},
		},
		{
			Gates: []string{"INSUFFICIENT_G1_CREDITS_BALANCE"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeGeminiCredits, Rank: rankGoogleQuota,
					Reason: "the account's credits are spent (INSUFFICIENT_G1_CREDITS_BALANCE)",
					Remedy: "add credits or billing to the Google account, or switch the job to an API key with quota"}, true
			},
		},
	},
}

// geminiFatal are the CLI's own error classes.
var geminiFatal = map[string]struct {
	class          failure.Class
	code           failure.Code
	reason, remedy string
}{
	"FatalAuthenticationError":     {failure.Policy, CodeGeminiUnauthenticated, "authentication failed (exit 41)", remedyGeminiAuth},
	"AccountSuspendedError":        {failure.Policy, CodeGeminiIneligible, "the account is suspended", "the Google account may not use the service: use another account or an API key"},
	"FatalInputError":              {failure.Structural, CodeGeminiInputError, "the input was rejected (exit 42)", "fix the prompt or the arguments given to gemini"},
	"FatalConfigError":             {failure.Structural, CodeGeminiConfigError, "the configuration is invalid (exit 52)", "fix .gemini/settings.json or the flags and environment the step passes"},
	"FatalTurnLimitedError":        {failure.Structural, CodeGeminiTurnLimit, "the session reached its turn limit (exit 53)", "raise model.maxSessionTurns in settings.json or give the run a smaller task"},
	"FatalUntrustedWorkspaceError": {failure.Policy, CodeGeminiUntrusted, "the workspace is not trusted", "trust the folder for the run (GEMINI_CLI_TRUST_WORKSPACE=true, or the trusted folders setting)"},
	"FatalSandboxError":            {failure.Unknown, CodeGeminiFatal, "the sandbox failed (exit 44)", "check the sandbox the step asks for (docker or podman present, the image pullable)"},
	"FatalToolExecutionError":      {failure.Unknown, CodeGeminiFatal, "a tool failed (exit 54)", "read the tool's error above: whether it clears depends on the tool"},
	"FatalCancellationError":       {failure.Unknown, CodeGeminiFatal, "the run was cancelled (exit 130)", "a prompt or a signal ended the run: run it non-interactively with credentials that need no browser login"},
	"TerminalQuotaError":           {failure.Policy, failure.CodeQuotaExhausted, "a quota that does not reset soon is spent", remedyGeminiDaily},
	"RetryableQuotaError":          {failure.Transient, failure.CodeRateLimited, "a short-term rate limit", remedyGeminiMinute},
}

// googleVerdicts are the google.rpc status codes: HTTP status, class, code, remedy.
var googleVerdicts = map[string]struct {
	status int
	class  failure.Class
	code   failure.Code
	remedy string
}{
	"UNAVAILABLE": {503, failure.Transient, CodeGeminiUnavailable,
		"the model is overloaded or the service briefly unavailable: retrying with backoff; switch to another model if it persists"},
	"INTERNAL": {500, failure.Transient, CodeGeminiInternal,
		"a server-side error at Google: retrying; if every attempt fails the same way, shorten the input or switch model"},
	"DEADLINE_EXCEEDED": {504, failure.Transient, CodeGeminiDeadline,
		"the answer took longer than the API's deadline: retrying; send a smaller prompt or raise the client timeout if it recurs"},
	"INVALID_ARGUMENT": {400, failure.Structural, CodeGeminiInvalidArgument,
		"the API rejected the request itself (a field, a parameter, the input size): fix the request or update the CLI; resending it unchanged fails again"},
	"PERMISSION_DENIED": {403, failure.Policy, CodeGeminiPermissionDenied,
		"the credentials may not use this model or project: grant access or enable the API for the project (GOOGLE_CLOUD_PROJECT), or use credentials that have it"},
	"UNAUTHENTICATED": {401, failure.Policy, CodeGeminiUnauthenticated,
		"the credentials are missing, expired or invalid: re-authenticate (gcloud auth application-default login, a fresh OAuth login) or set a valid GEMINI_API_KEY"},
	"NOT_FOUND": {404, failure.Structural, CodeGeminiNotFound,
		"the model or resource does not exist for this account: fix the model name (--model / GEMINI_MODEL), the project or the location"},
	"FAILED_PRECONDITION": {400, failure.Policy, CodeGeminiFailedPrecondition,
		"the account cannot use the API as it stands (unsupported region, no free tier, billing disabled): enable billing or run from a supported region"},
	"RESOURCE_EXHAUSTED": {429, failure.Unknown, CodeGeminiResourceExhausted,
		"the answer does not say which limit was hit (per-minute, daily, or none at all): check the project's quotas; add --retry-on RESOURCE_EXHAUSTED only if its limits are per-minute"},
}

// googleStatusHit classifies a google.rpc status code found on a line.
func googleStatusHit(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
	code := m[1] + m[3]
	if code == "" {
		code = m[4] + m[5]
		// bare, the generic words are Google's only in a Google client's output
		switch code {
		case "UNAVAILABLE", "INTERNAL", "NOT_FOUND":
			if c.Tool != failure.ToolGemini && c.Tool != failure.ToolAider {
				return failure.Hit{}, false
			}
		}
		if m[5] != "" && c.Tool != failure.ToolGemini && c.Tool != failure.ToolAider {
			return failure.Hit{}, false
		}
	}
	v, ok := googleVerdicts[code]
	if !ok {
		return failure.Hit{}, false
	}
	if code == "NOT_FOUND" && c.Tool != failure.ToolGemini && c.Tool != failure.ToolAider {
		// a model missing is the CLI's reading; any other Google API's
		// NOT_FOUND goes through the table of meanings (absent on a
		// lookup, structural on a write)
		return failure.Hit{}, false
	}
	reason := "Google API " + code + " (" + failure.StatusName(v.status) + ")"
	if msg := googleMessage(line); msg != "" {
		reason += ": " + failure.Clip(msg)
	} else if code == "RESOURCE_EXHAUSTED" {
		reason += " without saying which limit was hit"
	}
	return failure.Hit{Class: v.class, Code: v.code, Rank: failure.RankTool, Reason: reason, Remedy: v.remedy}, true
}

// googleMessage returns the first readable "message" value on a line of a
// Google JSON error (the outer one of the CLI is often the inner JSON
// itself), or "".
func googleMessage(line string) string {
	for rest := line; ; {
		i := strings.Index(rest, "message")
		if i < 0 {
			return ""
		}
		rest = rest[i+len("message"):]
		v := strings.TrimLeft(rest, `\"' `)
		if !strings.HasPrefix(v, ":") {
			continue
		}
		v = strings.TrimLeft(v[1:], `\"' `)
		if v == "" || !(v[0] >= 'A' && v[0] <= 'Z' || v[0] >= 'a' && v[0] <= 'z') {
			continue
		}
		if j := strings.IndexAny(v, `"\`); j >= 0 {
			v = v[:j]
		}
		if j := strings.Index(v, "',"); j >= 0 {
			v = v[:j]
		}
		return strings.TrimRight(strings.TrimSpace(v), ".'")
	}
}

// quotaWaitHit is the verdict of a wait the API asked for: a retry after
// it, or, when the quota resets later than a run can wait, a spent quota.
func quotaWaitHit(s string) (failure.Hit, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return failure.Hit{}, false
	}
	if d > geminiMaxWait {
		return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: rankGoogleQuota,
			Reason: "quota spent: it resets in " + failure.Clip(s), Remedy: "the quota resets in " + failure.Clip(s) + ": run the job after that, or raise the quota or tier"}, true
	}
	return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: rankGoogleQuota,
		Reason: "rate limited: the API asks to retry in " + failure.Clip(s), Remedy: remedyGeminiMinute, RetryAfter: d}, true
}
