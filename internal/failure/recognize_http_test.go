package failure

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

var httpNow = time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)

type httpCase struct {
	name       string
	method     string
	status     int
	header     http.Header
	body       string
	class      Class
	code       Code
	reason     string
	evidence   []string
	retryAfter time.Duration
}

func TestFromHTTP(t *testing.T) {
	for _, tc := range []httpCase{
		{name: "429 with HTTP-date Retry-After", status: 429, header: http.Header{"Retry-After": {httpNow.Add(90 * time.Second).Format(http.TimeFormat)}}, class: Transient, code: "http-429", reason: "rate limited (HTTP 429 Too Many Requests)", retryAfter: 90 * time.Second},
		{name: "429 with delta Retry-After", status: 429, header: http.Header{"Retry-After": {"120"}}, body: "slow down", class: Transient, code: "http-429", retryAfter: 120 * time.Second},
		{name: "403 secondary rate limit", status: 403, header: http.Header{"Retry-After": {"60"}}, body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ABCD.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`, class: Transient, code: "rate-limited", reason: "rate limit", retryAfter: 60 * time.Second, evidence: []string{"secondary rate limit"}},
		{name: "403 primary rate limit with reset", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(httpNow.Add(10 * time.Minute).Unix())}}, body: `{"message":"API rate limit exceeded for installation ID 4242.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`, class: Transient, code: "rate-limited", retryAfter: 10 * time.Minute},
		{name: "403 exhausted quota, empty body", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"0"}}, class: Transient, code: "rate-limited", evidence: []string{"X-RateLimit-Remaining: 0"}},
		{name: "403 with quota left is a refusal", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"4999"}}, body: `{"message":"Must have admin rights to Repository."}`, class: Policy, code: "insufficient-permission", reason: "insufficient permission"},
		{name: "403 integration", status: 403, body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`, class: Policy, code: "resource-not-accessible", reason: "resource not accessible by integration"},
		{name: "403 fine-grained PAT", status: 403, body: `{"message":"Resource not accessible by personal access token"}`, class: Policy, code: "resource-not-accessible", reason: "personal access token"},
		{name: "403 x-deny-reason", status: 403, header: http.Header{"X-Deny-Reason": {"host_not_allowed"}}, body: "Forbidden", class: Policy, code: "proxy-denied", reason: "host_not_allowed", evidence: []string{"x-deny-reason: host_not_allowed"}},
		{name: "401 requires authentication", status: 401, body: `{"message":"Requires authentication"}`, class: Policy, code: "insufficient-permission"},
		{name: "407", status: 407, class: Policy, code: "http-407"},
		{name: "404 GET", method: "GET", status: 404, body: `{"message":"Not Found"}`, class: Absent, code: "http-404"},
		{name: "410 HEAD", method: "HEAD", status: 410, class: Absent, code: "http-410"},
		{name: "404 unknown method", status: 404, class: Absent, code: "http-404"},
		{name: "404 DELETE", method: "DELETE", status: 404, class: Structural, code: "http-404", reason: "on DELETE"},
		{name: "404 POST", method: "post", status: 404, class: Structural, code: "http-404", reason: "on POST"},
		{name: "410 method from the body", status: 410, body: "PATCH https://api.example.com/v1/items/7: 410 Gone", class: Structural, code: "http-410", reason: "on PATCH"},
		{name: "500", status: 500, class: Transient, code: "http-500"},
		{name: "502", status: 502, body: "<html>bad gateway</html>", class: Transient, code: "http-502"},
		{name: "503 with Retry-After", status: 503, header: http.Header{"Retry-After": {"30"}}, class: Transient, code: "http-503", retryAfter: 30 * time.Second},
		{name: "504", status: 504, class: Transient, code: "http-504"},
		{name: "408", status: 408, class: Transient, code: "http-408"},
		{name: "501", status: 501, class: Structural, code: "http-501"},
		{name: "400", status: 400, body: `{"error":"invalid json"}`, class: Structural, code: "http-400"},
		{name: "422", status: 422, body: `{"message":"Validation Failed","errors":[{"resource":"Label","code":"already_exists","field":"name"}]}`, class: Structural, code: "http-422"},
		{name: "413", status: 413, class: Structural, code: "http-413"},
		{name: "409", status: 409, class: Unknown, code: "http-409"},
		{name: "Retry-After on a 404 is not a wait", status: 404, header: http.Header{"Retry-After": {"10"}}, class: Absent, code: "http-404"},
		{name: "Squid DNS fail", status: 503, header: http.Header{"X-Squid-Error": {"ERR_DNS_FAIL 0"}}, class: Transient, code: "proxy-upstream-failed", reason: "ERR_DNS_FAIL"},
		{name: "Squid read timeout", status: 504, header: http.Header{"X-Squid-Error": {"ERR_READ_TIMEOUT 0"}}, class: Transient, code: "proxy-upstream-failed"},
		{name: "Squid connect fail", status: 503, header: http.Header{"X-Squid-Error": {"ERR_CONNECT_FAIL 111"}}, class: Transient, code: "proxy-upstream-failed"},
		{name: "Squid zero size", status: 502, header: http.Header{"X-Squid-Error": {"ERR_ZERO_SIZE_OBJECT 0"}}, class: Transient, code: "proxy-upstream-failed"},
		{name: "Squid too big", status: 413, header: http.Header{"X-Squid-Error": {"ERR_TOO_BIG 0"}}, class: Structural, code: "proxy-rejected"},
		{name: "Squid cannot forward", status: 503, header: http.Header{"X-Squid-Error": {"ERR_CANNOT_FORWARD 0"}}, class: Unknown, code: "proxy-cannot-forward"},
		{name: "Squid denied, non-canonical key", status: 403, header: http.Header{"x-squid-error": {"ERR_ACCESS_DENIED 0"}}, class: Policy, code: "proxy-denied"},
		{name: "Squid unknown code falls back to status", status: 503, header: http.Header{"X-Squid-Error": {"ERR_SOMETHING_NEW 0"}}, class: Transient, code: "http-503", reason: "HTTP 503"},
		{name: "GraphQL FORBIDDEN", status: 200, body: `{"data":null,"errors":[{"type":"FORBIDDEN","path":["createRef"],"message":"Resource not accessible by integration"}]}`, class: Policy, code: "resource-not-accessible"},
		{name: "GraphQL RATE_LIMITED", status: 200, body: `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}`, class: Transient, code: "rate-limited"},
		{name: "GraphQL NOT_FOUND", status: 200, body: `{"data":{"repository":null},"errors":[{"type":"NOT_FOUND","path":["repository"],"message":"Could not resolve to a Repository with the name 'o/nope'."}]}`, class: Absent, code: "graphql-not-found"},
		{name: "200 without errors", status: 200, body: `{"data":{"viewer":{"login":"me"}}}`, class: Unknown, code: "http-not-an-error", reason: "not an error status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Response{Method: tc.method, Status: tc.status, Header: tc.header, Body: []byte(tc.body), Now: httpNow}
			f := FromHTTP(r)
			checkFailure(t, f, tc.class, tc.code, tc.reason, "", tc.evidence)
			if f.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, tc.retryAfter)
			}
			if err := httpInvariants(f, r); err != nil {
				t.Error(err)
			}
		})
	}
}

// httpInvariants adds: evidence lines are the status, a header, or a
// substring of the body (its controls escaped, Printable).
func httpInvariants(f *Failure, r Response) error {
	if err := invariants(f); err != nil {
		return err
	}
	for _, e := range f.Evidence {
		if e == statusName(r.Status) || strings.Contains(string(r.Body), uncut(e)) || strings.Contains(Printable(string(r.Body)), uncut(e)) || e == ExitEvidence(NoExitCode) {
			continue
		}
		ok := false
		for k, vs := range r.Header {
			for _, v := range vs {
				ok = ok || strings.EqualFold(e, headerEvidence(k, v))
			}
		}
		if !ok {
			return fmt.Errorf("evidence %q is not in the response", e)
		}
	}
	return nil
}

func TestFromHTTPWithoutStatusClassifiesBody(t *testing.T) {
	f := FromHTTP(Response{Body: []byte("dial tcp 10.0.0.9:443: i/o timeout")})
	checkFailure(t, f, Transient, "timeout", "timed out", "", nil)
}

func TestStatusVerdict(t *testing.T) {
	want := map[Class][]int{
		Transient:  {408, 425, 429, 500, 502, 503, 504, 520, 522, 524},
		Policy:     {401, 402, 403, 407, 451, 511},
		Structural: {400, 405, 413, 414, 415, 422, 431, 501, 505},
		Absent:     {404, 410},
		Unknown:    {200, 302, 409, 507},
	}
	for class, codes := range want {
		for _, code := range codes {
			if got := statusVerdict(code, "GET", ToolHTTP).class; got != class {
				t.Errorf("statusVerdict(%d) = %v, want %v", code, got, class)
			}
		}
	}
	if got := statusVerdict(400, "", ToolGit).class; got != Unknown {
		t.Errorf("git 400 = %v, want unknown", got)
	}
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if got := statusVerdict(404, m, ToolHTTP).class; got != Structural {
			t.Errorf("404 on %s = %v, want structural", m, got)
		}
	}
}

// Statuses quoted in the output of other programs.
func TestStatusInText(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "python requests", tool: ToolAuto, exit: 1, text: "requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: https://pypi.example/simple/\n", class: Transient, code: "http-503"},
		{name: "octokit", tool: ToolAuto, exit: 1, text: "Octokit::NotFound: GET https://api.github.com/repos/o/r/releases/tags/v9: 404 - Not Found\n", class: Absent, code: "http-404"},
		{name: "go-github POST 404", tool: ToolAuto, exit: 1, text: "POST https://api.github.com/repos/o/r/pulls: 404 Not Found []\n", class: Structural, code: "http-404"},
		{name: "urllib", tool: ToolAuto, exit: 1, text: "urllib.error.HTTPError: HTTP Error 502: Bad Gateway\n", class: Transient, code: "http-502"},
		{name: "nix", tool: ToolAuto, exit: 1, text: "error: unable to download 'https://cache.example/x.narinfo': HTTP error 504\n", class: Transient, code: "http-504"},
		{name: "status code", tool: ToolAuto, exit: 1, text: "Error: Request failed with status code 401\n", class: Policy, code: "http-401"},
		{name: "payload too large", tool: ToolAuto, exit: 1, text: "upload failed: 413 Payload Too Large\n", class: Structural, code: "http-413"},
		{name: "progress counters are not statuses", tool: ToolAuto, exit: 1, text: "Receiving objects: 100% (404/404), done.\nTotal 500 (delta 403)\n", class: Unknown, code: "unknown"},
		{name: "GitHub API rate limit in a CLI", tool: ToolAuto, exit: 1, text: "gh: API rate limit exceeded for user ID 12345. (HTTP 403)\n", class: Transient, code: "rate-limited"},
		{name: "Squid page text", tool: ToolAuto, exit: 1, text: "<p>Access control configuration prevents your request from being allowed at this time.</p>\n", class: Policy, code: "proxy-denied"},
		{name: "Squid code in a page", tool: ToolAuto, exit: 1, text: "Generated Mon, 02 Jun 2025 by proxy (squid/5.7)\n<!-- ERR_READ_TIMEOUT -->\n", class: Transient, code: "proxy-upstream-failed"},
		{name: "bad credentials in a CLI", tool: ToolAuto, exit: 1, text: "HttpError: Bad credentials - https://docs.github.com/rest\n", class: Policy, code: "bad-credentials"},
	})
}

func TestInferMethod(t *testing.T) {
	for text, want := range map[string]string{
		"":                                    "",
		"GET https://x/ then POST https://y/": "GET",
		`Post "https://api/x": EOF`:           "POST",
		"> DELETE /v1/x HTTP/1.1":             "DELETE",
		"FORGET https://x/":                   "",
		"please GET it":                       "",
		"PUT http://x/: 404":                  "PUT",
	} {
		if got := inferMethod(text); got != want {
			t.Errorf("inferMethod(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestFromHTTPQuotesTheMessageTheRemedyPointsTo: "see the message" must
// have a message to see: the answer's own lines, verbatim.
func TestFromHTTPQuotesTheMessageTheRemedyPointsTo(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		want       []string
	}{
		{"422 JSON", `{"error":"Title has already been published","status":422}`, 422, []string{"HTTP 422 Unprocessable Entity", `{"error":"Title has already been published","status":422}`}},
		{"400 text", "bad request\n\n  missing field: title  \nthird\nfourth", 400, []string{"HTTP 400 Bad Request", "bad request", "missing field: title", "third"}},
		{"HTML title only", "<html><head><title>418 I'm a teapot</title></head><body>...</body></html>", 418, []string{"HTTP 418 I'm a teapot", "418 I'm a teapot"}},
		{"empty body", "", 422, []string{"HTTP 422 Unprocessable Entity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Response{Method: "POST", Status: tc.status, Body: []byte(tc.body), Now: httpNow}
			f := FromHTTP(r)
			if !slices.Equal(f.Evidence, tc.want) {
				t.Errorf("evidence = %q, want %q", f.Evidence, tc.want)
			}
			if err := httpInvariants(f, r); err != nil {
				t.Error(err)
			}
		})
	}
}
