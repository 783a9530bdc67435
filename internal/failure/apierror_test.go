package failure

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// bodyCase is an API's error body, classified twice: as the body of an
// HTTP answer with status (when status is set), and quoted in a log line
// (logText, which may be the body as printed by a Python or JS client).
// A body that agrees with its status leaves the status's code (http-NNN):
// those cases check the class only.
type bodyCase struct {
	name    string
	method  string
	status  int
	body    string
	logText string
	class   Class
	code    Code
	wait    time.Duration // RetryAfter of the answer (0: not checked)
}

func runBodyCases(t *testing.T, cases []bodyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.status != 0 {
				f := Classify(Input{Status: tc.status, Method: tc.method, Text: tc.body, Header: http.Header{}, Now: time.Unix(1e9, 0)})
				// a body that agrees with its status leaves the status's code
				if f.Class != tc.class || tc.code != "" && f.Code != tc.code && f.Code != HTTPCode(tc.status) {
					t.Errorf("answer %d: got %s %s (%s), want %s %s", tc.status, f.Class, f.Code, f.Reason, tc.class, tc.code)
				}
				if tc.wait != 0 && f.RetryAfter != tc.wait {
					t.Errorf("answer: RetryAfter = %v, want %v", f.RetryAfter, tc.wait)
				}
				if err := invariants(f); err != nil {
					t.Error(err)
				}
			}
			text := tc.logText
			if text == "" {
				text = "Error: request failed: " + tc.body
			}
			f := classifyText(ToolAuto, text, 1, tc.method)
			if f.Class != tc.class || tc.code != "" && f.Code != tc.code {
				t.Errorf("log: got %s %s (%s), want %s %s", f.Class, f.Code, f.Reason, tc.class, tc.code)
			}
			if err := textInvariants(f, text, 1); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestAPIErrorGoogleStatus: {"error": {"code", "status", "message"}} with
// gRPC's canonical status names, from Google APIs and gRPC gateways.
func TestAPIErrorGoogleStatus(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "vertex permission denied", status: 403, method: "POST",
			body:  `{"error": {"code": 403, "message": "Permission 'aiplatform.endpoints.predict' denied on resource", "status": "PERMISSION_DENIED"}}`,
			class: Policy},
		{name: "gmail unauthenticated, python repr", status: 401,
			body:    `{"error": {"code": 401, "message": "Request had invalid authentication credentials.", "status": "UNAUTHENTICATED"}}`,
			logText: `googleapiclient.errors.HttpError: {'error': {'code': 401, 'message': 'Request had invalid authentication credentials.', 'status': 'UNAUTHENTICATED'}}`,
			class:   Policy},
		{name: "gemini unavailable", status: 503,
			body:  `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			class: Transient},
		{name: "gateway deadline exceeded", status: 504,
			body:  `{"code": 4, "message": "context deadline exceeded", "status": "DEADLINE_EXCEEDED"}`,
			class: Transient},
		{name: "spanner aborted", status: 409, method: "POST",
			body:  `{"error": {"code": 409, "message": "Transaction was aborted.", "status": "ABORTED"}}`,
			class: Transient, code: CodeServiceUnavailable},
		{name: "failed precondition, lower case", status: 400, method: "POST",
			body:  `{"error": {"code": "failed_precondition", "message": "The query requires an index."}}`,
			class: Structural},
		{name: "pubsub already exists", status: 409, method: "PUT",
			body:  `{"error": {"code": 409, "message": "Resource already exists in the project (resource=topic).", "status": "ALREADY_EXISTS"}}`,
			class: Structural},
		{name: "storage not found on a lookup", status: 404, method: "GET",
			body:  `{"error": {"code": 404, "message": "No such object: b/o", "status": "NOT_FOUND"}}`,
			class: Absent},
		{name: "json inside a message inside json", logText: `✕ [API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 403,\n    \"message\": \"The caller does not have permission\",\n    \"status\": \"PERMISSION_DENIED\"\n  }\n}\n","code":403,"status":"Forbidden"}}]`,
			class: Policy},
	})
}

// TestAPIErrorSlack: {"ok": false, "error": "<word>"} with Slack's
// documented words; Slack answers 200.
func TestAPIErrorSlack(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "invalid_auth", status: 200, body: `{"ok":false,"error":"invalid_auth"}`, class: Policy, code: CodeAuthRejected},
		{name: "not_authed, python repr", status: 200, body: `{"ok":false,"error":"not_authed"}`,
			logText: `slack_sdk.errors.SlackApiError: The request to the Slack API failed.\nThe server responded with: {'ok': False, 'error': 'not_authed'}`, class: Policy, code: CodeAuthRejected},
		{name: "account_inactive", status: 200, body: `{"ok":false,"error":"account_inactive"}`, class: Policy, code: CodeAuthRejected},
		{name: "token_revoked", status: 200, body: `{"ok":false,"error":"token_revoked"}`, class: Policy, code: CodeAuthRejected},
		{name: "missing_scope, js literal", status: 200, method: "POST", body: `{"ok":false,"error":"missing_scope","needed":"chat:write","provided":"identify"}`,
			logText: "Error: An API error occurred: missing_scope\n  data: {\n    ok: false,\n    error: 'missing_scope',\n    needed: 'chat:write',\n  }", class: Policy, code: CodePermissionDenied},
		{name: "channel_not_found on a post", status: 200, method: "POST", body: `{"ok":false,"error":"channel_not_found"}`, class: Structural, code: CodeNotFound},
		{name: "ratelimited", status: 200, body: `{"ok":false,"error":"ratelimited"}`, class: Transient, code: CodeRateLimited},
		{name: "invalid_blocks", status: 200, method: "POST", body: `{"ok":false,"error":"invalid_blocks"}`, class: Structural, code: CodeValidation},
	})
}

// TestAPIErrorTelegram: {"ok": false, "error_code", "description",
// "parameters": {"retry_after"}}: the wait it states is judged as a wait
// stated in text is.
func TestAPIErrorTelegram(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "flood wait within the run", status: 429,
			body:  `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 35","parameters":{"retry_after":35}}`,
			class: Transient, wait: 35 * time.Second},
		{name: "flood wait past the run", status: 429,
			body:  `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7200","parameters":{"retry_after":7200}}`,
			class: Policy, code: CodeQuotaExhausted},
		{name: "chat not found on a send", status: 400, method: "POST",
			body:    `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`,
			logText: `telebot.apihelper.ApiTelegramException: A request to the Telegram API was unsuccessful. Error code: 400. Description: {'ok': False, 'error_code': 400, 'description': 'Bad Request: chat not found'}`,
			class:   Structural},
		{name: "bot blocked", status: 403, method: "POST",
			body:  `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`,
			class: Policy},
		{name: "bad token", status: 401, body: `{"ok":false,"error_code":401,"description":"Unauthorized"}`, class: Policy},
	})
}

// TestAPIErrorDiscord: {"message", "code", "retry_after"}, the numeric
// codes read by family.
func TestAPIErrorDiscord(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "missing permissions", status: 403, method: "POST", body: `{"message": "Missing Permissions", "code": 50013}`, class: Policy},
		{name: "unknown channel on a send", status: 404, method: "POST", body: `{"message": "Unknown Channel", "code": 10003}`, class: Structural},
		{name: "invalid form body", status: 400, method: "POST", body: `{"code": 50035, "errors": {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}}, "message": "Invalid Form Body"}`, class: Structural},
		{name: "rate limited with retry_after", status: 429, method: "POST", body: `{"message": "You are being rate limited.", "retry_after": 0.5, "global": false}`, class: Transient, wait: 500 * time.Millisecond},
		{name: "maximum reached", status: 400, method: "POST", body: `{"message": "Maximum number of webhooks reached (15)", "code": 30007}`, class: Policy},
	})
}

// TestAPIErrorXRPCAndMastodon: {"error", "message"}.
func TestAPIErrorXRPCAndMastodon(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "bluesky expired token", status: 400, method: "POST", body: `{"error":"ExpiredToken","message":"Token has expired"}`, class: Policy, code: CodeAuthRejected},
		{name: "bluesky rate limit", status: 429, method: "POST", body: `{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}`, class: Transient},
		{name: "bluesky invalid request", status: 400, method: "POST", body: `{"error":"InvalidRequest","message":"Input/text must not be longer than 300 graphemes"}`, class: Structural},
		{name: "bluesky auth required, php dump", status: 401, body: `{"error":"AuthRequired","message":"Authentication Required"}`,
			logText: "object(stdClass)#2 (2) { [\"error\"]=> string(12) \"AuthRequired\" }\n{'error': 'AuthRequired', 'message': 'Authentication Required'}", class: Policy, code: CodeAuthRejected},
		{name: "mastodon record not found on a lookup", status: 404, method: "GET", body: `{"error":"Record not found"}`, class: Absent},
	})
}

// TestAPIErrorModelAPIs: Anthropic's {"type": "error", "error": {"type"}}
// and OpenAI's {"error": {"type", "code"}}.
func TestAPIErrorModelAPIs(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "anthropic overloaded", status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, class: Transient},
		{name: "anthropic authentication", status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, class: Policy},
		{name: "anthropic not found on a post", status: 404, method: "POST", body: `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, class: Structural},
		{name: "openai model not found", status: 404, method: "POST", body: `{"error":{"message":"The model gpt-9 does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, class: Structural},
		{name: "openai insufficient quota on a 429", status: 429, method: "POST", body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, class: Policy, code: CodeQuotaExhausted},
		{name: "azure deployment not found on a post", status: 404, method: "POST", body: `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`, class: Structural, code: CodeNotFound},
		{name: "openrouter credits", status: 402, method: "POST", body: `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/credits","code":402}}`, class: Policy},
	})
}

// TestAPIErrorAWS: {"__type"} and XML <Code>.
func TestAPIErrorAWS(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "throttling __type", status: 400, method: "POST", body: `{"__type":"com.amazon.coral.availability#ThrottlingException","message":"Rate exceeded"}`, class: Transient},
		{name: "access denied __type", status: 400, method: "POST", body: `{"__type":"AccessDeniedException","Message":"User is not authorized to perform: ecr:GetAuthorizationToken"}`, class: Policy},
		{name: "s3 no such bucket on a lookup", status: 404, method: "GET", body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>", class: Absent},
		{name: "s3 signature", status: 403, method: "PUT", body: "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>", class: Policy, code: CodeAuthRejected},
	})
}

// TestAPIErrorProblemJSON: RFC 9457 (type, title, status, detail).
func TestAPIErrorProblemJSON(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "twitter client forbidden", status: 403, method: "POST", body: `{"title":"Client Forbidden","detail":"When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens from a Project.","reason":"client-not-enrolled","type":"https://api.twitter.com/2/problems/client-forbidden"}`, class: Policy, code: CodePermissionDenied},
		{name: "about:blank forbidden, js literal", status: 403, method: "GET", body: `{"title":"Forbidden","type":"about:blank","status":403,"detail":"Forbidden"}`,
			logText: "Request failed with code 403, data: {\n  title: 'Forbidden',\n  type: 'about:blank',\n  status: 403,\n  detail: 'Forbidden'\n}", class: Policy},
		{name: "validation problem", status: 422, method: "POST", body: `{"type":"https://example.net/validation-error","title":"Your request is not valid.","status":422,"detail":"age must be a positive integer"}`, class: Structural},
		{name: "rate limit problem", status: 429, method: "POST", body: `{"type":"https://api.example.com/problems/rate-limited","title":"Too Many Requests","status":429}`, class: Transient},
	})
}

// TestAPIErrorEnvelopes: {"success": false, "errors": [{"code",
// "message"}]} (Cloudflare and APIs like it), {"errors": [...]} (Ghost,
// Medium, GitHub) and WordPress's {"code", "message", "data": {"status"}}.
func TestAPIErrorEnvelopes(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "cloudflare authentication", status: 400, method: "PUT", body: `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"messages":[],"result":null}`, class: Policy, code: CodeAuthRejected},
		{name: "cloudflare record exists", status: 400, method: "POST", body: `{"result":null,"success":false,"errors":[{"code":81057,"message":"Record already exists."}],"messages":[]}`, class: Structural},
		{name: "cloudflare rate limited", status: 429, method: "POST", body: `{"success":false,"errors":[{"code":971,"message":"Please wait and consider throttling your request speed"},{"code":10013,"message":"Rate limited"}]}`, class: Transient},
		{name: "ghost unauthorized", status: 401, body: `{"errors":[{"message":"Access denied.","errorType":"UnauthorizedError"}]}`, class: Policy, code: CodeAuthRejected},
		{name: "wordpress cannot create", status: 401, method: "POST", body: `{"code":"rest_cannot_create","message":"Sorry, you are not allowed to create posts as this user.","data":{"status":401}}`,
			logText: "{ code: 'rest_cannot_create',\n  message: 'Sorry, you are not allowed to create posts as this user.',\n  data: { status: 401 } }", class: Policy, code: CodePermissionDenied},
		{name: "wordpress invalid id", status: 404, method: "POST", body: `{"code":"rest_post_invalid_id","message":"Invalid post ID.","data":{"status":404}}`, class: Structural},
	})
}

// TestSDKErrorWords: an API's error word in an SDK's exception, read
// through the same table; prose is not.
func TestSDKErrorWords(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "python exception", tool: ToolAuto, text: "    raise Error(response.error)\nslacker.Error: token_revoked", exit: 1, class: Policy, code: CodeAuthRejected},
		{name: "ruby exception", tool: ToolAuto, text: "raise_error.rb:9:in `on_complete': missing_scope (Slack::Web::Api::Error)", exit: 1, class: Policy, code: CodePermissionDenied},
		{name: "numbered exception", tool: ToolAuto, text: "DiscordAPIError[50013]: Missing Permissions", exit: 1, class: Policy, code: CodePermissionDenied},
		{name: "prose is not a word", tool: ToolAuto, text: "Error: Access denied: you do not own this project", exit: 1, class: Unknown, code: CodeUnknown},
		{name: "an SDK class is not a word", tool: ToolAuto, text: "sdk.APIError: APIError", exit: 1, class: Unknown, code: CodeUnknown},
		{name: "an errno is the network's", tool: ToolAuto, text: "Error: getaddrinfo EAI_AGAIN api.example.com", exit: 1, class: Transient, code: CodeDNS},
	})
}

// TestLimitsWaitingCannotPass: section 3. A request over a stated limit is
// structural even in a 429 or a rate limit's message; a quota of zero is
// policy.
func TestLimitsWaitingCannotPass(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "tokens over the TPM limit in a 429", status: 429, method: "POST",
			body:  `{"error":{"message":"Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			class: Structural, code: CodeAPIRequestTooLarge},
		{name: "requested over limit, numbers only", status: 429, method: "POST",
			body:  `{"error":{"message":"Rate limit exceeded: Limit 6000, Requested 7591","type":"requests","code":"rate_limit_exceeded"}}`,
			class: Structural, code: CodeAPIRequestTooLarge},
		{name: "payload too large in a rate limit word", status: 429, method: "POST",
			body:  `{"ok":false,"error":"ratelimited","detail":"payload too large for this method"}`,
			class: Structural, code: CodeAPIRequestTooLarge},
		{name: "file count over the limit", status: 429, method: "POST",
			body:  `{"error":{"status":"RESOURCE_EXHAUSTED","code":429,"message":"Quota exceeded: too many files in one request"}}`,
			class: Structural, code: CodeAPIRequestTooLarge},
		{name: "quota of zero", status: 429, method: "POST",
			body:  `{"error":{"code":429,"message":"Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro","status":"RESOURCE_EXHAUSTED"}}`,
			class: Policy, code: CodeQuotaExhausted},
		{name: "rate limit with a zero quota", status: 429, method: "POST",
			body:  `{"error":{"message":"Rate limit exceeded (quota value 0 for this project)","code":"rate_limit_exceeded"}}`,
			class: Policy, code: CodeQuotaExhausted},
		{name: "a fractional quota is not zero", status: 429, method: "POST",
			body:  `{"error":{"message":"Rate limit exceeded: your quota is 0.5 requests per second","code":"rate_limit_exceeded"}}`,
			class: Transient},
		{name: "under the limit stays a throttle", status: 429, method: "POST",
			body:  `{"error":{"message":"Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000, Used 18928, Requested 11159. Please try again in 174ms.","type":"tokens","code":"rate_limit_exceeded"}}`,
			class: Transient},
	})
	runTextCases(t, []textCase{
		{name: "over the limit in a 429 line", tool: ToolAuto, exit: 1, text: "Error: 429 Too Many Requests: request body too large (12 MB), the limit is 10 MB", class: Structural, code: CodeAPIRequestTooLarge},
		{name: "zero quota in a rate limit line", tool: ToolAuto, exit: 1, text: "error: rate limit exceeded for project: limit: 0 requests per day", class: Policy, code: CodeQuotaExhausted},
	})
}

// TestReadValues: the lenient parser's forms and bounds.
func TestReadValues(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // the error word of the first record ("" = none)
	}{
		{"json", `x {"ok":false,"error":"invalid_auth"} y`, "invalid_auth"},
		{"python repr", `{'ok': False, 'error': 'invalid_auth', 'warning': None, 'n': 1.5e3,}`, "invalid_auth"},
		{"js literal", "{ ok: false, error: 'invalid_auth', response_metadata: { scopes: [Array] } }", "invalid_auth"},
		{"ruby hash", `{"ok"=>false, "error"=>"invalid_auth"}`, "invalid_auth"},
		{"escaped in a string", `:body "{\"ok\":false,\"error\":\"invalid_auth\"}", :status 200}`, "invalid_auth"},
		{"python bytes", `Response body: [b'{"ok":false,"error":"invalid_auth"}']`, "invalid_auth"},
		{"no json", "fatal: unable to access 'https://x/': The requested URL returned error: 403", ""},
		{"unbalanced", `{"ok":false,"error":"invalid_auth"`, ""},
		{"apostrophe in prose", "{ it's a map of {'error': 'x' and more", ""},
		{"too deep", strings.Repeat(`{"a":`, 40) + `{"ok":false,"error":"invalid_auth"}` + strings.Repeat("}", 40), "invalid_auth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := apiRecords(tc.text)
			got := ""
			if len(rs) > 0 && len(rs[0].words) > 0 {
				got = rs[0].words[0].s
			}
			if got != tc.want {
				t.Errorf("first word %q, want %q (records %+v)", got, tc.want, rs)
			}
		})
	}
}

// TestReadValuesBounded: a text full of '{' costs a bounded number of
// parse attempts, each over a bounded span.
func TestReadValuesBounded(t *testing.T) {
	text := strings.Repeat("{", 4<<20)
	if vs := readValues(text); len(vs) != 0 {
		t.Errorf("%d values from a text of braces", len(vs))
	}
	many := strings.Repeat(`{"ok":false,"error":"invalid_auth"} `, 10000)
	if rs := apiRecords(many); len(rs) > maxAPIRecords {
		t.Errorf("%d records, want at most %d", len(rs), maxAPIRecords)
	}
	wide := `{"error":"x","m":[` + strings.Repeat(`1,`, 2*maxAPIValues) + `1]}`
	if _, _, ok := parseAt(wide, 0); ok {
		t.Error("a value past maxAPIValues parsed")
	}
}

// TestMeaningTable: the words of every shape meet in one table, by their
// normalised form.
func TestMeaningTable(t *testing.T) {
	for _, tc := range []struct {
		word  string
		m     meaning
		named bool
	}{
		{"PERMISSION_DENIED", mPermission, false}, {"permission_denied", mPermission, false}, {"AccessDenied", mPermission, false},
		{"AccessDeniedException", mPermission, false}, {"forbidden", mPermission, false}, {"client-forbidden", mPermission, false},
		{"UNAUTHENTICATED", mAuth, false}, {"invalid_auth", mAuth, false}, {"ExpiredToken", mAuth, false}, {"UnauthorizedError", mAuth, false},
		{"NOT_FOUND", mNotFound, false}, {"channel_not_found", mNotFound, true}, {"DeploymentNotFound", mNotFound, true}, {"NoSuchKey", mNotFound, false},
		{"INVALID_ARGUMENT", mInvalid, false}, {"invalid_request_error", mInvalid, false}, {"FAILED_PRECONDITION", mInvalid, false},
		{"ALREADY_EXISTS", mExists, false}, {"UNAVAILABLE", mTransient, false}, {"DEADLINE_EXCEEDED", mTransient, false}, {"ABORTED", mTransient, false},
		{"overloaded_error", mTransient, false}, {"ratelimited", mRateLimited, false}, {"RateLimitExceeded", mRateLimited, false},
		{"com.amazon.coral.availability#ThrottlingException", mRateLimited, false}, {"insufficient_quota", mQuota, false},
		{"billing_error", mQuota, false}, {"request_too_large", mTooLarge, false}, {"context_length_exceeded", mTooLarge, false},
		{"urn:ietf:params:acme:error:rateLimited", mRateLimited, false}, {"rest_cannot_create", mPermission, false},
		{"ok", mNone, false}, {"", mNone, false}, {"tokens", mNone, false},
	} {
		m, named := meaningOf(normWord(tc.word))
		if m != tc.m || named != tc.named {
			t.Errorf("%q: %v named=%v, want %v named=%v", tc.word, m, named, tc.m, tc.named)
		}
	}
}

// BenchmarkAPIReaderCorpus reads the error bodies of every corpus text:
// compare with BenchmarkCorpus (the whole classification of the same
// texts).
func BenchmarkAPIReaderCorpus(b *testing.B) {
	cases := loadCorpus(b)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.input().Text
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range texts {
			apiRecords(s)
		}
	}
}

// BenchmarkAPIReaderHostile reads 4 MiB texts built to be slow for it.
func BenchmarkAPIReaderHostile(b *testing.B) {
	for name, text := range map[string]string{
		"braces":      strings.Repeat("{", 4<<20),
		"json lines":  strings.Repeat(`{"ok":false,"error":"invalid_auth","n":[1,2,3]}`+"\n", 4<<20/48),
		"push log":    pushLog(4 << 20),
		"open quotes": strings.Repeat(`{"a":"`, 4<<20/6),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				apiRecords(text)
			}
		})
	}
}

// FuzzAPIRecords: the reader never panics, and keeps its bounds, on any
// text.
func FuzzAPIRecords(f *testing.F) {
	for _, s := range []string{
		`{"ok":false,"error":"invalid_auth"}`,
		`{'error': {'code': 429, 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': 'x'}]}}`,
		"{ code: 'rest_cannot_create', data: { status: 401 } }",
		`:body "{\"ok\":false,\"error_code\":429,\"parameters\":{\"retry_after\":3}}"`,
		"<Error><Code>AccessDenied</Code></Error>",
		`{"error":{"message":"{\n \"error\": {\"status\": \"UNAVAILABLE\"}}"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs := apiRecords(s)
		if len(rs) > maxAPIRecords {
			t.Fatalf("%d records", len(rs))
		}
		for _, r := range rs {
			if len(r.words) > maxRecordFields || len(r.phrases) > maxRecordFields {
				t.Fatalf("record over its bounds: %+v", r)
			}
		}
		FromText(ToolAuto, s, 1)
	})
}

// TestMeaningTableDocumentedWords: the documented error words of more API
// families (the OCI distribution spec's codes, AWS's and Azure's
// credential and permission codes, OpenAI's account codes, Heroku's error
// ids, XRPC's and Slack's words) read by the one table; a word that names
// a credential after "invalid", "expired", "missing" or "revoked" says
// the credential is bad (policy), not that the request is malformed.
func TestMeaningTableDocumentedWords(t *testing.T) {
	for _, tc := range []struct {
		word  string
		m     meaning
		named bool
	}{
		// OCI distribution spec
		{"DENIED", mPermission, false}, {"NAME_UNKNOWN", mNotFound, true}, {"MANIFEST_UNKNOWN", mNotFound, true},
		{"BLOB_UNKNOWN", mNotFound, true}, {"BLOB_UPLOAD_UNKNOWN", mNotFound, true}, {"MANIFEST_BLOB_UNKNOWN", mNotFound, true},
		{"NAME_INVALID", mInvalid, false}, {"TAG_INVALID", mInvalid, false}, {"MANIFEST_INVALID", mInvalid, false},
		{"DIGEST_INVALID", mInvalid, false}, {"SIZE_INVALID", mInvalid, false}, {"BLOB_UPLOAD_INVALID", mInvalid, false},
		{"UNSUPPORTED", mInvalid, false},
		// AWS
		{"MissingAuthenticationToken", mAuth, false}, {"MissingAuthenticationTokenException", mAuth, false},
		{"IncompleteSignature", mAuth, false}, {"AuthFailure", mAuth, false}, {"OptInRequired", mPermission, false},
		{"ConditionalCheckFailedException", mInvalid, false}, {"EC2ThrottledException", mRateLimited, false},
		// Azure
		{"InvalidAuthenticationToken", mAuth, false}, {"InvalidAuthenticationTokenTenant", mAuth, false},
		{"ExpiredAuthenticationToken", mAuth, false}, {"AuthorizationPermissionMismatch", mPermission, false},
		{"AuthorizationFailure", mPermission, false}, {"InsufficientAccountPermissions", mPermission, false},
		{"AccountIsDisabled", mPermission, false}, {"ReadOnlyDisabledSubscription", mPermission, false},
		{"ServerBusy", mTransient, false}, {"OperationTimedOut", mTransient, false},
		// OpenAI
		{"unsupported_country_region_territory", mPermission, false}, {"account_deactivated", mPermission, false},
		// Heroku
		{"verification_required", mPermission, false}, {"suspended", mPermission, false}, {"delinquent", mQuota, false},
		{"two_factor", mAuth, false},
		// XRPC
		{"AuthMissing", mAuth, false}, {"AccountTakedown", mPermission, false}, {"AccountDeactivated", mPermission, false},
		{"UpstreamFailure", mTransient, false}, {"UpstreamTimeout", mTransient, false}, {"NotEnoughResources", mTransient, false},
		// Slack
		{"posting_to_general_channel_denied", mPermission, false}, {"two_factor_setup_required", mPermission, false},
		{"org_login_required", mAuth, false}, {"no_text", mInvalid, false}, {"too_many_attachments", mTooLarge, false},
		{"invalid_refresh_token", mAuth, false},
		// credentials named after invalid, expired, missing, revoked
		{"invalid_api_key", mAuth, false}, {"expired_api_key", mAuth, false}, {"api_key_expired", mAuth, false},
		{"missing_credentials", mAuth, false}, {"revoked_token", mAuth, false}, {"invalid_password", mAuth, false},
		// still what they were
		{"invalid_parameter", mInvalid, false}, {"missing_field", mInvalid, false}, {"unsupported_value", mInvalid, false},
		{"invalid_token_count", mInvalid, false}, {"invalid_keyword", mInvalid, false},
	} {
		m, named := meaningOf(normWord(tc.word))
		if m != tc.m || named != tc.named {
			t.Errorf("%q: %v named=%v, want %v named=%v", tc.word, m, named, tc.m, tc.named)
		}
	}
}

// TestAPIErrorDocumentedShapes: the new words in their APIs' bodies.
func TestAPIErrorDocumentedShapes(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "api gateway missing token", status: 403, method: "POST", body: `{"message":"Missing Authentication Token","__type":"MissingAuthenticationTokenException"}`, class: Policy},
		{name: "azure invalid token", status: 401, method: "GET", body: `{"error":{"code":"InvalidAuthenticationToken","message":"The access token is invalid."}}`, class: Policy},
		{name: "azure expired token in a log", method: "GET", logText: `ERROR: (ExpiredAuthenticationToken) The access token expiry UTC time is earlier than current UTC time.` + "\n" + `Code: ExpiredAuthenticationToken`, class: Policy},
		{name: "oci name unknown on a push", status: 404, method: "PUT", body: `{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry","detail":{"name":"acme/app"}}]}`, class: Structural},
		{name: "oci denied", status: 403, method: "PUT", body: `{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`, class: Policy},
		{name: "openai region", status: 403, method: "POST", body: `{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}`, class: Policy},
		{name: "heroku suspended", status: 403, method: "POST", body: `{"id":"suspended","message":"This account has been suspended."}`, class: Policy},
		{name: "heroku delinquent", status: 402, method: "POST", body: `{"id":"delinquent","message":"This account is delinquent."}`, class: Policy},
		{name: "xrpc takedown", status: 400, method: "POST", body: `{"error":"AccountTakedown","message":"Account has been taken down"}`, class: Policy},
		{name: "xrpc upstream failure", status: 502, method: "GET", body: `{"error":"UpstreamFailure","message":"Upstream Failure"}`, class: Transient},
	})
}

// TestSDKExceptionClass: the clients that name one exception class per
// HTTP status or error word (python-telegram-bot, tweepy, discord.py,
// prawcore, google.api_core, Mastodon.py) print it with its module path;
// the class says the kind when nothing stronger does, and never beats a
// network failure or an explicit status.
func TestSDKExceptionClass(t *testing.T) {
	for _, tc := range []struct {
		text  string
		class Class
	}{
		{"telegram.error.BadRequest: Chat not found", Structural},
		{"telegram.error.Forbidden: bot was blocked by the user", Policy},
		{"telegram.error.InvalidToken: The token `x` was rejected by the server.", Policy},
		{"mastodon.errors.MastodonRatelimitError: Hit rate limit.", Transient},
		{"prawcore.exceptions.Forbidden: received 403 HTTP response", Policy},
		{"google.api_core.exceptions.PermissionDenied: Permission denied on resource project x.", Policy},
		{"google.api_core.exceptions.ServiceUnavailable: failed to connect to all addresses", Transient},
		// not the kind: a network failure, a status the client states
		{"java.net.UnknownHostException: api.example.com", Transient},
		{"tweepy.errors.NotFound: 404 Not Found\n50 - User not found.", Absent},
	} {
		f := classifyText(ToolAuto, tc.text, 1, "")
		if f.Class != tc.class {
			t.Errorf("%q: got %s %s (%s), want %s", tc.text, f.Class, f.Code, f.Reason, tc.class)
		}
		if err := textInvariants(f, tc.text, 1); err != nil {
			t.Error(err)
		}
	}
}

// TestAPIErrorBodyStatus: an error object that states its HTTP status
// ({"error": {"message", "code": 502}}, Google's code, Telegram's
// error_code) quoted in a log says that status when its words say
// nothing the table knows; and a throttle's message that counts its limit
// over a period longer than the run is a window, not a wait.
func TestAPIErrorBodyStatus(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "gateway 502 in a body", method: "POST", logText: `Error: {"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream connect error"}}}`, class: Transient},
		{name: "401 in a body", method: "POST", logText: `{"error":{"message":"No auth credentials found","code":401}}`, class: Policy},
		{name: "400 in a body", method: "POST", logText: `{"error":{"message":"x-ai/grok is not a valid model ID","code":400}}`, class: Structural},
		{name: "throttle per hour", method: "POST", logText: `{"errors":[{"message":"Request not allowed, maximum requests per hour exceeded","type":"TooManyRequestsError"}]}`, class: Policy, code: CodeRateLimitWindow},
		{name: "throttle per minute", method: "POST", logText: `{"errors":[{"message":"Too many requests, maximum 60 requests per minute","type":"TooManyRequestsError"}]}`, class: Transient},
	})
}
