package failure

import (
	"testing"
	"time"
)

// TestStatedResets checks the waits a log states in a response's dialect:
// rate-limit headers quoted in the error line, and an absolute reset time,
// judged against the run's max elapsed from the quoted Date, else from Now.
func TestStatedResets(t *testing.T) {
	now := time.Date(2026, 5, 1, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		text  string
		now   time.Time
		class Class
		code  Code
		retry time.Duration // want RetryAfter, when transient
	}{
		{"repr headers, reset hours after the quoted date", `RequestException: Response(success=False, status_code=429, content=XrpcError(error='RateLimitExceeded', message='Rate Limit Exceeded'), headers=Headers({'date': 'Wed, 18 Sep 2024 14:36:00 GMT', 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '1726684000', 'ratelimit-policy': '100;w=86400'}))`,
			now, Policy, CodeRateLimitWindow, 0},
		{"repr headers, reset a minute after the quoted date", `RequestException: Response(success=False, status_code=429, headers=Headers({'date': 'Wed, 18 Sep 2024 14:36:00 GMT', 'ratelimit-remaining': '0', 'ratelimit-reset': '1726670220'}))`,
			now, Transient, "", 0},
		{"header lines printed by a client", "HTTP 429 Too Many Requests\nDate: Fri, 01 May 2026 06:00:00 GMT\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 1777636800",
			now, Policy, CodeRateLimitWindow, 0},
		{"an RFC 3339 reset six hours away", "Error: rate limit exceeded, resets at 2026-05-01T12:00:00Z",
			now, Policy, CodeRateLimitWindow, 0},
		{"an RFC 3339 reset five minutes away", "Error: rate limit exceeded, resets at 2026-05-01T06:05:00Z",
			now, Transient, CodeRateLimited, 5 * time.Minute},
		{"a time of day, later today", "Error: rate limit exceeded. Try again at 14:00 UTC.",
			now, Policy, CodeRateLimitWindow, 0},
		{"a time of day, ten minutes away", "Error: rate limit exceeded. Try again at 06:10 UTC.",
			now, Transient, CodeRateLimited, 10 * time.Minute},
		{"a reset already past", "Error: rate limit exceeded, resets at 2026-05-01T05:00:00Z",
			now, Transient, CodeRateLimited, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Classify(Input{Text: tc.text, ExitCode: 1, Now: tc.now, MaxElapsed: DefaultMaxElapsed})
			if f.Class != tc.class || tc.code != "" && f.Code != tc.code {
				t.Fatalf("got %s/%s (%s), want %s/%s", f.Class, f.Code, f.Reason, tc.class, tc.code)
			}
			if tc.class == Transient && tc.retry > 0 && f.RetryAfter != tc.retry {
				t.Errorf("RetryAfter %s, want %s", f.RetryAfter, tc.retry)
			}
		})
	}
}

// TestQuotedHeadersBounded checks that header-looking words outside a
// rate limit's (a Date alone) give no wait.
func TestQuotedHeadersBounded(t *testing.T) {
	if _, ok := quotedHeaderWait(`{'date': 'Wed, 18 Sep 2024 14:36:00 GMT', 'content-length': '61'}`, time.Now()); ok {
		t.Fatal("a Date alone gave a wait")
	}
	if _, _, ok := absoluteResetWait("the counter resets at midnight", time.Now()); ok {
		t.Fatal("a reset with no clock time gave a wait")
	}
}

// TestRound2Meanings checks the round-2 readings of the table of meanings:
// a catch-all type yields to a specific message, an SDK's ErrorCode line,
// a reason-phrase label, an exception class inside a line, and the
// phrases of credentials, permission, existence, credits, a plan with no
// free tier and a ban.
func TestRound2Meanings(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		status int
		class  Class
		code   Code
	}{
		{"catch-all api_error with a model not found", `Error code: 404 - {'error': {'message': 'model "x" not found, try pulling it first', 'type': 'api_error', 'param': None, 'code': None}}`, 0, Structural, CodeAPIModelNotFound},
		{"catch-all api_error with a server failure", `Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, 0, Transient, ""},
		{"ErrorCode line of the .NET SDK", "An error occurred: The API deployment for this resource does not exist.\nStatus: 404 (Not Found)\nErrorCode: DeploymentNotFound", 0, Structural, CodeNotFound},
		{"a reason-phrase label", "2019/12/18 16:07:19 Bad Request: chat not found", 0, Structural, CodeNotFound},
		{"an exception class inside a line", `Left (APIError (RateLimitError 256 "you are doing that too much. try again in 4 minutes."))`, 0, Transient, CodeRateLimited},
		{"an exception class of credentials", `Failed: <AuthenticationError status=401> while listing models`, 0, Policy, CodeAuthRejected},
		{"a constructor in a raise line is not read", `raise AuthenticationError(`, 0, Unknown, ""},
		{"a token required", "FATA[0000] Cannot get user: medium: An access token is required. (6000)", 0, Policy, CodeAuthRejected},
		{"not authorized for this action", "Publishing failed\nkey not authorized for this action", 0, Policy, CodePermissionDenied},
		{"a version that exists", `Package "box2d" already has version "0.1.6".`, 0, Structural, CodeAlreadyExists},
		{"more credits", "Streaming Error: 402 This request requires more credits, or fewer max_tokens.", 0, Policy, CodeQuotaExhausted},
		{"no free tier", "Encountered ResourceExhausted: 429 Gemini Pro Preview doesn't have a free quota tier. Please use another model.", 0, Policy, CodeQuotaExhausted},
		{"a ban inside a 429", `{"code": 0, "message": "You are being blocked from accessing our API temporarily due to exceeding our rate limits frequently."}`, 429, Policy, CodePermissionDenied},
		{"a duplicate status", `[{'message': 'Status is a duplicate.', 'code': 187}]`, 0, Structural, CodeAlreadyExists},
		{"git-lfs without credentials", "batch response: Git credentials for https://gitlab.example/org/repo.git not found.", 0, Policy, CodeAuthRejected},
		{"a CLI that cannot find the app", " ▸    Couldn't find that app.", 0, Structural, CodeNotFound},
		{"a platform's refusal of writes", `tweepy.error.TweepError: [{'message': 'Application cannot perform write actions.', 'code': 261}]`, 0, Policy, CodePermissionDenied},
		{"excess requests under a 406", `{"Error":"Excessive SCM Site operation requests. Retry after 5 seconds"}`, 406, Transient, ""},
		{"a concurrency limit behind a declined hook", "remote: !\tYour account has reached its concurrent builds limit\nTo https://git.example/app.git\n ! [remote rejected] HEAD -> main (pre-receive hook declined)", 0, Transient, CodeThrottled},
		{"a message before its API code", "✘ [ERROR] A request to the API failed.\n\n  workers.api.error.bucket_not_found [code: 10085]", 0, Structural, CodeNotFound},
		{"Go's dump of a failed response", "lookup: {Ok:false User:{ID: Name:} Error:invalid_auth}", 0, Policy, CodeAuthRejected},
		{"a rate limit said to the caller, per five minutes", "batch response: We had to rate limit you, you hit the quota of 1000 api requests per 5 minutes period.", 0, Transient, ""},
		{"a rate limit said to the caller, per day", "batch response: We had to rate limit you, you hit the quota of 1000 api requests per day.", 0, Policy, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Text: tc.text, ExitCode: 1, MaxElapsed: DefaultMaxElapsed, Status: tc.status}
			if tc.status != 0 {
				in.ExitCode = NoExitCode
			}
			f := Classify(in)
			if f.Class != tc.class || tc.code != "" && f.Code != tc.code {
				t.Fatalf("got %s/%s (%s), want %s/%s", f.Class, f.Code, f.Reason, tc.class, tc.code)
			}
		})
	}
}

// TestRound2MeaningsNotRead checks what the new readers leave alone: a
// runtime's PermissionError and TimeoutError named in a line, and a label
// whose message the table does not know.
func TestRound2MeaningsNotRead(t *testing.T) {
	for _, text := range []string{
		"PermissionError occurred while writing the cache",
		"Bad Request: message text is empty",
	} {
		f := Classify(Input{Text: text, ExitCode: 1, MaxElapsed: DefaultMaxElapsed})
		if f.Code == CodePermissionDenied || f.Code == CodeNotFound {
			t.Errorf("%q: got %s/%s (%s)", text, f.Class, f.Code, f.Reason)
		}
	}
}

// TestDiscordMillis checks Discord's pre-v8 retry_after, a whole number of
// milliseconds beside "global", against a v10 wait in seconds.
func TestDiscordMillis(t *testing.T) {
	old := Classify(Input{Text: `{"global": false, "message": "You are being rate limited.", "retry_after": 6457}`, Status: 429, ExitCode: NoExitCode, MaxElapsed: DefaultMaxElapsed})
	if old.Class != Transient || old.RetryAfter != 6457*time.Millisecond {
		t.Errorf("v6 body: got %s/%s RetryAfter %s, want transient, 6.457s", old.Class, old.Code, old.RetryAfter)
	}
	cur := Classify(Input{Text: `{"global": false, "message": "You are being rate limited.", "retry_after": 64.57}`, Status: 429, ExitCode: NoExitCode, MaxElapsed: DefaultMaxElapsed})
	if d := cur.RetryAfter - 64570*time.Millisecond; cur.Class != Transient || d < -10*time.Millisecond || d > 10*time.Millisecond {
		t.Errorf("v10 body: got %s/%s RetryAfter %s, want transient, 1m4.57s", cur.Class, cur.Code, cur.RetryAfter)
	}
}
