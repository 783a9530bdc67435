package failure

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The generic layer, one table per row family: what any tool prints the
// same way is read the same way, whatever the tool.

func TestGenericStatuses(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "HTTP Error: N", tool: ToolAuto, text: "Error: HTTP Error: 500, Internal error encountered.", class: Transient, code: HTTPCode(500)},
		{name: "Return code is", tool: ToolAuto, text: "Failed to transfer file: https://r.example/x.jar. Return code is: 401, ReasonPhrase: Unauthorized.", class: Policy, code: HTTPCode(401)},
		{name: ".NET does not indicate success", tool: ToolAuto, text: "Response status code does not indicate success: 503 (Service Unavailable).", class: Transient, code: HTTPCode(503)},
		{name: "StatusCode: N", tool: ToolAuto, text: "operation error STS: GetCallerIdentity, https response error StatusCode: 400, RequestID: 6d1b, api error Weird: odd", class: Structural, code: HTTPCode(400)},
		{name: "status code N", tool: ToolAuto, text: "Failed to transfer file https://r.example/x.jar with status code 401", class: Policy, code: HTTPCode(401)},
		{name: "http.status_code=", tool: ToolAuto, text: "level=error msg=request http.status_code=429 url=https://api.example/x", class: Transient, code: HTTPCode(429)},
		{name: "received status code", tool: ToolAuto, text: "Could not PUT 'https://r.example/a.jar'. Received status code 403 from server: Forbidden", class: Policy, code: HTTPCode(403)},
		{name: "an error occurred (N)", tool: ToolAuto, text: "fatal error: An error occurred (403) when calling the HeadObject operation: Forbidden", class: Policy, code: HTTPCode(403)},
		{name: "googleapi: Error N", tool: ToolAuto, text: "googleapi: Error 403: caller lacks storage.objects.get, forbidden", class: Policy, code: HTTPCode(403)},
		{name: "arrow then the status on the next line", tool: ToolAuto, text: "POST /accounts/1/workers/scripts/x/deployments ->\n  522", class: Transient, code: HTTPCode(522)},
		{name: "arrow 404 on a lookup", tool: ToolAuto, text: "GET /accounts/1/pages/projects/x -> 404 Not Found", class: Absent, code: HTTPCode(404)},
		{name: ".NET status name before the URL", tool: ToolAuto, text: "  PUT https://nuget.example/api/v2/package/\n  Unauthorized https://nuget.example/api/v2/package/ 120ms", class: Policy, code: HTTPCode(401)},
		{name: "409 on a publish exists already", tool: ToolAuto, text: "Pushing x.1.0.0.nupkg\nResponse status code does not indicate success: 409 (Conflict).", class: Structural, code: HTTPCode(409), remedy: "bump the version"},
		{name: "409 on a lookup stays unknown", tool: ToolAuto, text: "GET /items/7\nResponse status code does not indicate success: 409 (Conflict).", class: Unknown, code: HTTPCode(409)},
		{name: "Azure Firewall 470", tool: ToolAuto, text: "HTTP/1.1 470 status code 470", class: Policy, code: HTTPCode(470), remedy: "Azure Firewall"},
	})
}

func TestGenericPhrasesCredentials(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "invalid token", tool: ToolAuto, text: "Error: invalid token provided", class: Policy, code: CodeAuthRejected},
		{name: "Error: Unauthorized", tool: ToolAuto, text: "› Error: Unauthorized", class: Policy, code: CodeAuthRejected},
		{name: "(Unauthorized)", tool: ToolAuto, text: "error: You must be logged in to the server (Unauthorized)", class: Policy, code: CodeAuthRejected},
		{name: "authentication required", tool: ToolAuto, text: "Error failed to fetch an image: Authentication required to access image \"docker.io/a/b:1\"", class: Policy, code: CodeAuthRejected},
		{name: "authentication error code", tool: ToolAuto, text: "  Authentication error [code: 10000]", class: Policy, code: CodeAuthRejected},
		{name: "aws InvalidClientTokenId", tool: ToolAuto, text: "InvalidClientTokenId: The security token included in the request is invalid.", class: Policy, code: CodeAuthRejected},
		{name: "aws ExpiredToken", tool: ToolAuto, text: "api error ExpiredToken: The security token included in the request is expired", class: Policy, code: CodeAuthRejected},
		{name: "aws SignatureDoesNotMatch", tool: ToolAuto, text: "An error occurred (SignatureDoesNotMatch) when calling the PutObject operation", class: Policy, code: CodeAuthRejected},
		{name: "aws InvalidAccessKeyId", tool: ToolAuto, text: "An error occurred (InvalidAccessKeyId) when calling the ListObjects operation", class: Policy, code: CodeAuthRejected},
		{name: "no credentials", tool: ToolAuto, text: "Error: NoCredentialProviders: no valid providers in chain", class: Policy, code: CodeAuthRejected},
		{name: "must be authenticated", tool: ToolAuto, text: "Error: failed building options: You must be authenticated to view this.", class: Policy, code: CodeAuthRejected},
		{name: "token invalid", tool: ToolAuto, text: "[!] Authentication token is invalid or unverified.", class: Policy, code: CodeAuthRejected},
		{name: "prose mentioning unauthorized", tool: ToolAuto, text: "note: the registry may say unauthorized when the token is wrong", class: Unknown, code: CodeUnknown},
	})
}

func TestGenericPhrasesPermission(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "AccessDenied", tool: ToolAuto, text: "upload failed: ./a to s3://b/a An error occurred (AccessDenied) when calling the PutObject operation: Access Denied", class: Policy, code: CodePermissionDenied},
		{name: "not authorized to perform", tool: ToolAuto, text: "User: arn:aws:iam::1:user/ci is not authorized to perform: ecr:PutImage on resource: x", class: Policy, code: CodePermissionDenied},
		{name: "insufficient scope", tool: ToolAuto, text: "error: insufficient scope for this operation", class: Policy, code: CodePermissionDenied},
		{name: "PERMISSION_DENIED", tool: ToolAuto, text: "ERROR: (gcloud.run.deploy) PERMISSION_DENIED: Permission 'run.services.get' denied on resource 'x'", class: Policy, code: CodePermissionDenied},
		{name: "Azure AuthorizationFailed", tool: ToolAuto, text: "ERROR CODE: AuthorizationFailed", class: Policy, code: CodePermissionDenied},
		{name: "not allowed to deploy", tool: ToolAuto, text: "Error: this token is not permitted to deploy to project acme", class: Policy, code: CodePermissionDenied},
		{name: "forbidden", tool: ToolAuto, text: "Error: forbidden", class: Policy, code: CodePermissionDenied},
		{name: "a local file's permission is not the service's: EACCES on the file", tool: ToolAuto, text: "open /home/runner/.docker/config.json: Permission denied: cannot read", class: Policy, code: CodeErrnoAccess},
	})
}

func TestGenericPhrasesExistenceAbsenceValidation(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "already exists", tool: ToolAuto, text: "Package 'x.1.0.0.nupkg' already exists at feed 'https://nuget.example/v3'.", class: Structural, code: CodeAlreadyExists, remedy: "bump the version"},
		{name: "re-push not allowed", tool: ToolAuto, text: "Repushing of gem versions is not allowed.", class: Structural, code: CodeAlreadyExists},
		{name: "cannot overwrite", tool: ToolAuto, text: "error: cannot overwrite the published release v1.2.0", class: Structural, code: CodeAlreadyExists},
		{name: "name in use", tool: ToolAuto, text: "Error: INSTALLATION FAILED: cannot re-use a name that is still in use", class: Structural, code: CodeAlreadyExists},
		{name: "a lock that exists is not a version", tool: ToolAuto, text: "Error: lock file already exists", class: Unknown, code: CodeUnknown},
		{name: "a cache that exists is a notice", tool: ToolAuto, text: "Cache already exists", class: Unknown, code: CodeUnknown},
		{name: "an address in use is not a name", tool: ToolAuto, text: "listen tcp :8080: bind: address already in use", class: Unknown, code: CodeUnknown},
		{name: "NoSuchKey", tool: ToolAuto, text: "An error occurred (NoSuchKey) when calling the GetObject operation: The specified key does not exist.", class: Absent, code: CodeNotFound},
		{name: "invalid argument", tool: ToolAuto, text: "ERROR: (gcloud.run.deploy) INVALID_ARGUMENT: the revision name is invalid", class: Structural, code: CodeValidation},
		{name: "validation failed", tool: ToolAuto, text: "Error: Validation Failed: the field 'name' is required", class: Structural, code: CodeValidation},
		{name: "too large", tool: ToolAuto, text: "✘ [ERROR] Your Worker script is too large: 12 MiB over the 10 MiB limit", class: Structural, code: CodeValidation},
		{name: "checksum mismatch", tool: ToolAuto, text: "verifying github.com/x/y@v1.2.3: checksum mismatch", class: Structural, code: CodeValidation},
	})
}

func TestGenericPhrasesQuotaAndServer(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "over data quota", tool: ToolAuto, text: "batch response: This repository is over its data quota. Purchase more data packs to restore access.", class: Policy, code: CodeQuotaExhausted},
		{name: "payment required", tool: ToolAuto, text: "Error: Payment Required: your trial has ended", class: Policy, code: CodeQuotaExhausted},
		{name: "upgrade your plan", tool: ToolAuto, text: "Logs from deployments of your account are rate limited. Please upgrade your plan.", class: Policy, code: CodeQuotaExhausted},
		{name: "service limit exceeded", tool: ToolAuto, text: "An error occurred (LimitExceededException) when calling the CreateFunction operation: code storage limit exceeded", class: Policy, code: CodeQuotaExhausted},
		{name: "trial ended", tool: ToolAuto, text: "Error: Your free trial has ended. Upgrade to continue deploying.", class: Policy, code: CodeQuotaExhausted},
		{name: "minutes used up", tool: ToolAuto, text: "Error: You have used all of your included build minutes for this month.", class: Policy, code: CodeQuotaExhausted},
		{name: "maximum number reached", tool: ToolAuto, text: "✘ [ERROR] You have reached the maximum number of Workers allowed on your plan", class: Policy, code: CodeQuotaExhausted},
		{name: "maximum retries is not a plan", tool: ToolAuto, text: "Error: maximum number of retries reached", class: Unknown, code: CodeUnknown},
		{name: "a billing page in prose", tool: ToolAuto, text: "See the plan and billing details page for your usage.", class: Unknown, code: CodeUnknown},
		{name: "AWS throttling is transient", tool: ToolAuto, text: "An error occurred (ThrottlingException) when calling the DescribeStacks operation: Rate exceeded", class: Transient, code: CodeThrottled},
		{name: "RequestLimitExceeded is throttling", tool: ToolAuto, text: "Error: RequestLimitExceeded: Request limit exceeded.", class: Transient, code: CodeThrottled},
		{name: "SERVICE_UNAVAILABLE", tool: ToolAuto, text: `"code": "SERVICE_UNAVAILABLE", "message": "This service is currently unavailable."`, class: Transient, code: CodeServiceUnavailable},
		{name: "envoy upstream", tool: ToolAuto, text: "upstream connect error or disconnect/reset before headers. reset reason: connection timeout", class: Transient, code: CodeServiceUnavailable},
		{name: "server's unexpected condition", tool: ToolAuto, text: "The server encountered an unexpected condition which prevented it from fulfilling the request.", class: Transient, code: CodeServiceUnavailable},
		{name: "a quoted UNAVAILABLE is not a status", tool: ToolAuto, text: `node pool "UNAVAILABLE" while draining`, class: Unknown, code: CodeUnknown},
	})
}

func TestGenericPhrasesNetwork(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "EAI_AGAIN", tool: ToolAuto, text: "Error: getaddrinfo EAI_AGAIN api.example.com", class: Transient, code: CodeDNS},
		{name: "UnknownHostException", tool: ToolAuto, text: "java.net.UnknownHostException: repo.maven.apache.org", class: Transient, code: CodeDNS},
		{name: "ECONNRESET", tool: ToolAuto, text: "FetchError: request to https://api.example.com/x failed, reason: socket hang up\nCode: ECONNRESET", class: Transient, code: CodeReset},
		{name: "undici connect timeout", tool: ToolAuto, text: "cause: ConnectTimeoutError: Connect Timeout Error", class: Transient, code: CodeTimeout},
		{name: "java handshake", tool: ToolAuto, text: "javax.net.ssl.SSLHandshakeException: Remote host terminated the handshake", class: Transient, code: CodeReset},
		{name: "python remote disconnected", tool: ToolAuto, text: "urllib3.exceptions.ProtocolError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", class: Transient, code: CodeReset},
		{name: "too many requests in words", tool: ToolAuto, text: "Error: Too many requests, please retry after 30 seconds", class: Transient, code: CodeThrottled},
		{name: "too many requests for days", tool: ToolAuto, text: "Error: Too many requests, please retry after 2 days", class: Policy, code: CodeQuotaExhausted},
		{name: "ruby open timeout", tool: ToolAuto, text: "Net::OpenTimeout: Failed to open TCP connection to rubygems.org:443 (execution expired)", class: Transient, code: CodeTimeout},
		{name: "conda HTTP 000", tool: ToolAuto, text: "CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://conda.anaconda.org/x/repodata.json>", class: Transient, code: CodeConnectFailed},
		{name: "urllib3 new connection", tool: ToolAuto, text: "NewConnectionError: Failed to establish a new connection: [Errno 113] No route to host", class: Transient, code: CodeUnreachable},
	})
}

// TestGenericPolicyRefusals: a sandbox's or a firewall's own refusal, and
// connect() refused with EPERM, are policy in any tool's words; other
// EPERMs are not read as the network's.
func TestGenericPolicyRefusals(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "not allowed in this sandbox", tool: ToolAuto, text: "Error: Network access to example.com is not allowed in this sandbox", class: Policy, code: CodeEgressBlocked},
		{name: "not on the allowlist", tool: ToolAuto, text: "request to pypi.org refused: host is not on the allowlist", class: Policy, code: CodeEgressBlocked},
		{name: "blocked by egress policy", tool: ToolAuto, text: "error: connection to 10.0.0.5:5432 blocked by egress policy", class: Policy, code: CodeEgressBlocked},
		{name: "go EPERM", tool: ToolAuto, text: "dial tcp 140.82.114.4:443: connect: operation not permitted", class: Policy, code: CodeEgressBlocked},
		{name: "node EPERM", tool: ToolAuto, text: "request to https://x failed, reason: connect EPERM 1.2.3.4:443", class: Policy, code: CodeEgressBlocked},
		{name: "telnet EPERM", tool: ToolAuto, text: "telnet: connect to address 142.250.179.132: Operation not permitted", class: Policy, code: CodeEgressBlocked},
		{name: "a file's EPERM is the errno layer's", tool: ToolAuto, text: "rm: cannot remove 'x': Operation not permitted", class: Policy, code: CodeErrnoAccess},
	})
}

func TestGenericWaits(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "days", tool: ToolAuto, text: "Error! Rate limit exceeded error. Try again in 11 days", class: Policy, code: CodeQuotaExhausted, reason: "11d"},
		{name: "24h", tool: ToolAuto, text: "Error! Builds rate limit exceeded (0 of 100 remaining). Try again in 24h", class: Policy, code: CodeQuotaExhausted, reason: "in 1d"},
		{name: "after in minutes", tool: ToolAuto, text: `Resource is limited - try again after in 54 minutes (more than 100, code: "api-deployments-free-per-day").`, class: Policy, code: CodeQuotaExhausted, reason: "54m"},
		{name: "availability in seconds", tool: ToolAuto, text: "Rate limit reached. Expected time to availability: 2846s.", class: Policy, code: CodeQuotaExhausted},
		{name: "next month", tool: ToolAuto, text: "You have used all build minutes. Try again next month.", class: Policy, code: CodeQuotaExhausted, reason: "next month"},
		{name: "billing cycle", tool: ToolAuto, text: "Bandwidth exhausted: access will reset after the billing cycle", class: Policy, code: CodeQuotaExhausted},
		{name: "a short wait is a rate limit", tool: ToolAuto, text: "Error! Rate limit exceeded. Try again in 30s", class: Transient, code: CodeRateLimited},
		{name: "a rollout's own timeout is not a wait", tool: ToolAuto, text: "Waiting for 30m0s for deployment \"web\" rollout to finish", class: Unknown, code: CodeUnknown},
		{name: "a retry limit is not a quota", tool: ToolAuto, text: "Error: exceeded the maximum retry limit of 5", class: Unknown, code: CodeUnknown},
		{name: "a connection limit is not a quota", tool: ToolAuto, text: "FATAL: reached the connection limit for role ci", class: Unknown, code: CodeUnknown},
		{name: "the client's own backoff is not a wait", tool: ToolAuto, text: "Request failed. Retrying in 2 hours", class: Unknown, code: CodeUnknown},
	})
}

// TestGenericWaitAgainstMaxElapsed: the run's --max-elapsed decides what
// a wait the run can make is.
func TestGenericWaitAgainstMaxElapsed(t *testing.T) {
	text := "Error! Builds rate limit exceeded. Try again in 20m"
	for _, tc := range []struct {
		max  time.Duration
		want Class
	}{
		{0, Policy}, // the default, 15m
		{10 * time.Minute, Policy},
		{time.Hour, Transient},
	} {
		f := Classify(Input{Text: text, ExitCode: 1, MaxElapsed: tc.max})
		if f.Class != tc.want {
			t.Errorf("max elapsed %v: %s %s (%s), want %s", tc.max, f.Class, f.Code, f.Reason, tc.want)
		}
	}
	// a quota recogniser's own reset is measured against it too, when given
	text = "You've hit your usage limit. Try again in 20 minutes."
	if f := Classify(Input{Text: text, ExitCode: 1, MaxElapsed: 10 * time.Minute}); f.Class != Policy {
		t.Errorf("a 20m reset in a 10m run: %s %s, want policy", f.Class, f.Code)
	}
	if f := Classify(Input{Text: text, ExitCode: 1}); f.Class != Transient {
		t.Errorf("a 20m reset by default: %s %s, want transient", f.Class, f.Code)
	}
}

func TestGenericPushAndIdentity(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "GitHub pack limit", tool: ToolGit, exit: 1, text: "remote: fatal: pack exceeds maximum allowed size (2.00 GiB)\nerror: RPC failed; curl 55 Send failure: Connection was aborted\nTo https://github.com/o/r.git", class: Structural, code: CodePushTooLarge, reason: "2 GiB per push"},
		{name: "a pack of GiB then hung up", tool: ToolGit, exit: 1, text: "Writing objects: 100% (9/9), 3.10 GiB | 20 MiB/s, done.\nerror: RPC failed; curl 92 HTTP/2 stream 0 was not closed cleanly: CANCEL (err 8)\nfatal: the remote end hung up unexpectedly", class: Structural, code: CodePushTooLarge, reason: "3.10 GiB"},
		{name: "a small pack then hung up stays transient", tool: ToolGit, exit: 1, text: "Writing objects: 100% (9/9), 310 MiB | 20 MiB/s, done.\nerror: RPC failed; curl 92 HTTP/2 stream 0 was not closed cleanly: CANCEL (err 8)\nfatal: the remote end hung up unexpectedly", class: Transient, code: CodeHTTP2Closed},
		{name: "author identity unknown", tool: ToolAuto, exit: 128, text: "Author identity unknown\n\n*** Please tell me who you are.\n\nfatal: unable to auto-detect email address (got 'runner@fv-az.(none)')", class: Structural, code: CodeGitIdentity, remedy: "git-user-email"},
		{name: "empty ident name", tool: ToolAuto, exit: 128, text: "fatal: empty ident name (for <runner@host>) not allowed", class: Structural, code: CodeGitIdentity, remedy: "git config user.email"},
	})
}

func TestSandboxesFromText(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "srt header and body", tool: ToolAuto, text: "HTTP/1.1 403 Forbidden\nX-Proxy-Error: blocked-by-allowlist\n\nConnection blocked by network allowlist", class: Policy, code: CodeSandboxDenied, remedy: "allowedDomains"},
		{name: "codex proxy decision", tool: ToolAuto, text: `CODEX_NETWORK_POLICY_DECISION {"decision":"deny","reason":"not_allowed","host":"api.example.com","port":443}`, class: Policy, code: CodeSandboxDenied, reason: "api.example.com", remedy: "[network_proxy.policy] allowed_domains"},
		{name: "codex proxy header", tool: ToolAuto, text: "< x-proxy-error: blocked-by-denylist\nCodex blocked this request: domain is denied", class: Policy, code: CodeSandboxDenied, remedy: "allowed_domains"},
		{name: "AWF budget", tool: ToolAuto, text: `{"error":{"type":"ai_credits_limit_exceeded","message":"AI credits exhausted"}}`, class: Policy, code: CodeAWFBudget, remedy: "do not retry"},
		{name: "AWF credits line", tool: ToolAuto, text: "API Error: 403 Maximum AI credits exceeded (302.111025 / 300).", class: Policy, code: CodeAWFBudget},
		{name: "AWF blocked summary", tool: ToolAuto, text: "[WARN] Firewall blocked domains:\n[WARN]   - Blocked: registry.npmjs.org:443 (domain not in allowlist)", class: Policy, code: CodeAWFDenied, reason: "registry.npmjs.org", remedy: "gh aw compile"},
		{name: "AWF never names its own address", tool: ToolAuto, text: "[WARN]   - Blocked: 172.30.0.30:10002 (domain not in allowlist)", class: Policy, code: CodeAWFDenied, remedy: "not a host to allow"},
		{name: "Copilot warning", tool: ToolAuto, text: "Firewall rules blocked me from connecting to one or more addresses\nI tried to connect to the following addresses, but was blocked by firewall rules:\nfastdl.mongodb.org\nTriggering command: node ./postinstall.js (dns block)", class: Policy, code: CodeCopilotFirewall, reason: "fastdl.mongodb.org", remedy: "copilot-setup-steps.yml"},
		{name: "harden-runner sinkhole node", tool: ToolAuto, text: "npm error FetchError: request to https://registry.yarnpkg.com/x failed, reason: connect ECONNREFUSED 54.185.253.63:443", class: Policy, code: CodeHardenRunner, reason: "registry.yarnpkg.com", remedy: "allowed-endpoints"},
		{name: "harden-runner sinkhole go", tool: ToolAuto, text: `Get "https://proxy.golang.org/x/@v/list": dial tcp 54.185.253.63:443: connect: connection refused`, class: Policy, code: CodeHardenRunner, remedy: "proxy.golang.org:443"},
		{name: "a DNS filter's 0.0.0.0", tool: ToolAuto, text: "npm error request to https://registry.npmjs.org/x failed, reason: connect ECONNREFUSED 0.0.0.0:443", class: Policy, code: CodeDNSSinkhole, reason: "registry.npmjs.org"},
		{name: "a local server on 0.0.0.0 is not a sinkhole", tool: ToolAuto, text: "Error: connect ECONNREFUSED 0.0.0.0:3000", class: Transient, code: CodeRefused},
		{name: "Azure Firewall deny", tool: ToolAuto, text: "Action: Deny. Reason: No rule matched. Proceeding with default action.", class: Policy, code: CodeAzureFirewall},
		{name: "python tunnel 403", tool: ToolAuto, text: "ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 403 Forbidden'))", class: Policy, code: CodeProxyDenied},
		{name: "undici tunnel 403", tool: ToolAuto, text: "RequestAbortedError: Proxy response (403) !== 200 when HTTP Tunneling", class: Policy, code: CodeProxyDenied},
		{name: "undici tunnel 502", tool: ToolAuto, text: "RequestAbortedError: Proxy response (502) !== 200 when HTTP Tunneling", class: Transient, code: CodeProxyUpstream},
	})
}

func gzipBase64(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestSandboxesFromEnvironment(t *testing.T) {
	dns := "npm error code ENOTFOUND\nnpm error request to https://cdn.example.org/x.tgz failed, reason: getaddrinfo ENOTFOUND cdn.example.org"
	ruleset := gzipBase64(t, `{"allow":[{"domain":"cdn.example.org"},{"domain":"registry.npmjs.org"}]}`)
	for _, tc := range []struct {
		name  string
		text  string
		env   []string
		class Class
		code  Code
		in    string // substring of the remedy
	}{
		{"no environment: a DNS blip", dns, nil, Transient, CodeDNS, ""},
		{"Copilot firewall, host not allowed", dns, []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "COPILOT_AGENT_FIREWALL_ALLOW_LIST=github.com"}, Policy, CodeCopilotFirewall, "custom allowlist"},
		{"Copilot firewall, host allowed", dns, []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "COPILOT_AGENT_FIREWALL_ALLOW_LIST=example.org"}, Transient, CodeDNS, ""},
		{"Copilot firewall, host in the gzip ruleset", dns, []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "COPILOT_AGENT_FIREWALL_RULESET_ALLOW_LIST=" + ruleset}, Transient, CodeDNS, ""},
		{"Copilot firewall, only the recommended list", dns, []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "COPILOT_AGENT_FIREWALL_ENABLE_RULESET_ALLOW_LIST=true"}, Policy, CodeCopilotFirewall, "copilot-setup-steps.yml"},
		{"Copilot firewall off", dns, []string{"COPILOT_AGENT_FIREWALL_ENABLED=false"}, Transient, CodeDNS, ""},
		{"Codex sandbox EPERM", "Error: connect EPERM 104.16.3.35:443 - Local (0.0.0.0:0)", []string{"CODEX_SANDBOX_NETWORK_DISABLED=1"}, Policy, CodeCodexNoNetwork, "network_access = true"},
		{"Codex sandbox resolver", "curl: (6) Could not resolve host: pypi.org", []string{"CODEX_SANDBOX_NETWORK_DISABLED=1"}, Policy, CodeCodexNoNetwork, "[sandbox_workspace_write]"},
		{"AWF proxy denial names the frontmatter", "curl: (56) CONNECT tunnel failed, response 403", []string{"HTTPS_PROXY=http://172.30.0.10:3128"}, Policy, CodeProxyDenied, "network: allowed:"},
		{"srt proxy denial names allowedDomains", "curl: (56) CONNECT tunnel failed, response 403", []string{"SANDBOX_RUNTIME=1", "HTTPS_PROXY=http://localhost:3128"}, Policy, CodeProxyDenied, "allowedDomains"},
		{"AWF drops SSH", "ssh: connect to host github.com port 22: Connection timed out\nfatal: Could not read from remote repository.", []string{"HTTPS_PROXY=http://172.30.0.10:3128"}, Policy, CodeAWFDenied, "HTTPS remote"},
		{"AWF: a 443 timeout stays transient", "curl: (28) Failed to connect to example.com port 443 after 10002 ms: Timeout was reached", []string{"HTTPS_PROXY=http://172.30.0.10:3128"}, Transient, CodeTimeout, ""},
		{"Copilot firewall, a lookup timeout", "dial tcp: lookup cdn.example.org on 127.0.0.53:53: read udp 127.0.0.1:4->127.0.0.53:53: i/o timeout", []string{"COPILOT_AGENT_FIREWALL_ENABLED=true"}, Policy, CodeCopilotFirewall, ""},
		{"srt's bare 502 is the upstream", "curl: (56) CONNECT tunnel failed, response 502", []string{"SANDBOX_RUNTIME=1"}, Transient, CodeProxyUpstream, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Classify(Input{Text: tc.text, ExitCode: 1, Env: tc.env})
			if f.Class != tc.class || f.Code != tc.code {
				t.Fatalf("%s %s (%s), want %s %s", f.Class, f.Code, f.Reason, tc.class, tc.code)
			}
			if tc.in != "" && !bytes.Contains([]byte(f.Remedy), []byte(tc.in)) {
				t.Errorf("remedy %q lacks %q", f.Remedy, tc.in)
			}
			if tc.class == Policy && bytes.Contains([]byte(f.Remedy), []byte("172.30.")) {
				t.Errorf("remedy names AWF's internal address: %q", f.Remedy)
			}
		})
	}
}

// TestSandboxHeaders: an HTTP answer a sandbox's proxy gave is read from
// its header, whatever the status.
func TestSandboxHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, key, value, body string
		env                    []string
		code                   Code
		in                     string
	}{
		{"srt", "X-Proxy-Error", "blocked-by-allowlist", "Connection blocked by network allowlist", nil, CodeSandboxDenied, "allowedDomains"},
		{"codex", "x-proxy-error", "blocked-by-allowlist", `CODEX_NETWORK_POLICY_DECISION {"decision":"deny","host":"a.example"}`, nil, CodeSandboxDenied, "allowed_domains"},
		{"codex by environment", "X-Proxy-Error", "blocked-by-policy", "", []string{"CODEX_SANDBOX=seatbelt"}, CodeSandboxDenied, "[network_proxy.policy]"},
		{"claude web", "X-Deny-Reason", "host_not_allowed", "", nil, CodeProxyDenied, "allowlist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Set(tc.key, tc.value)
			f := Classify(Input{Status: 403, Header: h, Text: tc.body, Env: tc.env})
			if f.Class != Policy || f.Code != tc.code {
				t.Fatalf("%s %s (%s), want policy %s", f.Class, f.Code, f.Reason, tc.code)
			}
			if !bytes.Contains([]byte(f.Remedy), []byte(tc.in)) {
				t.Errorf("remedy %q lacks %q", f.Remedy, tc.in)
			}
		})
	}
}

// TestProcessCarriesEnvironment: exec's verdict reads the child's environment.
func TestProcessCarriesEnvironment(t *testing.T) {
	p := Process{Name: "npm", Text: "npm error request to https://cdn.example.org/x failed, reason: getaddrinfo ENOTFOUND cdn.example.org", ExitCode: 1,
		Env: []string{"COPILOT_AGENT_FIREWALL_ENABLED=true", "COPILOT_AGENT_FIREWALL_ALLOW_LIST=github.com"}}
	if f := FromProcess(p); f.Code != CodeCopilotFirewall {
		t.Errorf("%s %s (%s), want %s", f.Class, f.Code, f.Reason, CodeCopilotFirewall)
	}
	p.Text, p.Env, p.MaxElapsed = "Error! Builds rate limit exceeded. Try again in 20m", nil, time.Hour
	if f := FromProcess(p); f.Class != Transient {
		t.Errorf("a 20m wait in an hour's run: %s %s, want transient", f.Class, f.Code)
	}
}

// TestNoFalseStatuses: a number that looks like a status (a count of bytes
// or objects, a size, a line number, a port, a version) is never read as
// one; a status needs HTTP context (a status line, "HTTP", "status" or
// "code" beside it, or a client's known shape).
func TestNoFalseStatuses(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		exit       int
		class      Class // Unknown: anything but an http-NNN code
	}{
		{"git: bytes of body still expected", "error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nerror: 413 bytes of body are still expected\nfetch-pack: unexpected disconnect while reading sideband packet\nfatal: early EOF", 128, Transient},
		{"git: 404 bytes still expected", "error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nerror: 404 bytes of body are still expected\nfatal: early EOF", 128, Transient},
		{"curl: bytes remaining", "error: RPC failed; curl 18 transfer closed with 404 bytes remaining to read\nfatal: the remote end hung up unexpectedly", 128, Transient},
		{"fetch-pack: objects", "fetch-pack: unexpected disconnect while reading sideband packet\nerror: 500 objects were not received\nfatal: early EOF", 128, Transient},
		{"error: N objects", "Error: 502 objects failed to upload", 1, Unknown},
		{"ERROR: N files", "ERROR: 404 files were skipped", 1, Unknown},
		{"RESPONSE N bytes", "RESPONSE 404 bytes read", 1, Unknown},
		{"error: N lines", "error: 503 lines exceed the limit", 1, Unknown},
		{"size in KiB", "Error: 413 KiB written before the reset", 1, Unknown},
		{"a line number", "error: main.go:429: undefined: foo", 1, Unknown},
		{"a port", "Error: dial tcp 10.0.0.1:500: i/o timeout", 1, Transient},
		{"a version", "Error: version 1.503.0 failed to install", 1, Unknown},
		{"a tag", "Error: v4.0.3 of the action failed", 1, Unknown},
		{"code N items", "status: 429 items processed, 3 failed", 1, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := FromText(ToolAuto, tc.text, tc.exit)
			if strings.HasPrefix(string(f.Code), "http-") && f.Code != CodeNotErrorStatus {
				t.Fatalf("read a count as a status: %s %s (%s)", f.Class, f.Code, f.Reason)
			}
			if tc.class != Unknown && f.Class != tc.class {
				t.Errorf("class = %s (%s: %s), want %s", f.Class, f.Code, f.Reason, tc.class)
			}
		})
	}
	// the same shapes with a status beside a word of HTTP still read it
	runTextCases(t, []textCase{
		{name: "Error: N reason", tool: ToolAuto, text: "Error: 500 Internal error", class: Transient, code: HTTPCode(500)},
		{name: "Error: N:", tool: ToolAuto, text: "Error: 403: the token lacks a scope", class: Policy, code: HTTPCode(403)},
		{name: "RESPONSE N: reason", tool: ToolAuto, text: "RESPONSE 404: 404 Not Found\nERROR CODE: ResourceNotFound", class: Absent, code: HTTPCode(404)},
		{name: "Error code: N (reason)", tool: ToolAuto, text: "Error code: 429 (Too Many Requests)", class: Transient, code: HTTPCode(429)},
		{name: "HTTP N curl 22", tool: ToolAuto, text: "error: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413\nfatal: the remote end hung up unexpectedly", class: Structural, code: HTTPCode(413)},
	})
}

// TestGenericRatePeriods: a rate limit's period or wait in words ("per six
// hours", "per day", "try again in thirteen hours", "retry after 7200") is
// judged against the run's max elapsed like any stated wait.
func TestGenericRatePeriods(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "per six hours", tool: ToolAuto, text: "Error: rate limit exceeded: you can publish 5 packages per six hours", class: Policy, code: CodeRateLimitWindow, reason: "6h"},
		{name: "per day", tool: ToolAuto, text: "Error: rate limit exceeded: 10 uploads per day", class: Policy, code: CodeRateLimitWindow, reason: "1d"},
		{name: "per 6 hours", tool: ToolAuto, text: "Error: Too many requests: the limit is 3 releases per 6 hours", class: Policy, code: CodeRateLimitWindow, reason: "6h"},
		{name: "per minute stays a throttle", tool: ToolAuto, text: "Error: rate limit exceeded: 60 requests per minute", class: Transient, code: CodeRateLimited},
		{name: "per second stays a throttle", tool: ToolAuto, text: "Error: rate limit exceeded (5 per second)", class: Transient, code: CodeRateLimited},
		{name: "a period without a limit is not one", tool: ToolAuto, text: "Error: the backup runs twice per day and failed", class: Unknown, code: CodeUnknown},
		{name: "try again in thirteen hours", tool: ToolAuto, text: "Rate limit exceeded. Try again in thirteen hours.", class: Policy, code: CodeQuotaExhausted, reason: "13h"},
		{name: "try again in a day", tool: ToolAuto, text: "Too many uploads. Please try again in a day.", class: Policy, code: CodeQuotaExhausted, reason: "1d"},
		{name: "try again in two minutes", tool: ToolAuto, text: "Rate limit exceeded. Try again in two minutes.", class: Transient, code: CodeRateLimited},
		{name: "retry after N seconds", tool: ToolAuto, text: "Error: Too Many Requests. Please retry after 7200", class: Policy, code: CodeQuotaExhausted, reason: "2h"},
	})
	// with a longer run, six hours is a wait it can make
	f := Classify(Input{Tool: ToolAuto, Text: "Error: rate limit exceeded: you can publish 5 packages per six hours", ExitCode: 1, MaxElapsed: 8 * time.Hour})
	if f.Class != Transient {
		t.Errorf("six hours within an 8h run: %s %s (%s)", f.Class, f.Code, f.Reason)
	}
}

// TestGenericThrottleWords: a throttle in any service's words (Cloudflare's
// "Rate limited. Please wait and consider throttling your request speed",
// a ThrottlerException, "rate limit surpassed", "a ... rate limit error")
// is transient; GitHub's primary limit ("API rate limit exceeded for IP",
// counted per hour) is a window the default run cannot wait for.
func TestGenericThrottleWords(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "Cloudflare throttle", tool: ToolAuto, text: "  Rate limited. Please wait and consider throttling your request speed [code: 10000]", class: Transient, code: CodeRateLimited},
		{name: "Cloudflare throttle without the words rate limited", tool: ToolAuto, text: "  Please wait and consider throttling your request speed [code: 971]", class: Transient, code: CodeRateLimited},
		{name: "ThrottlerException", tool: ToolAuto, text: "Failed to create function: Too Many Requests (429): ThrottlerException: Too Many Requests", class: Transient, code: CodeRateLimited},
		{name: "rate limit surpassed", tool: ToolAuto, text: " ›   Error: API Request rate limit surpassed for application", class: Transient, code: CodeRateLimited},
		{name: "a rate limit error", tool: ToolAuto, text: "We ran into a Netlify rate limit error, please try again in a bit.", class: Transient, code: CodeRateLimited},
		{name: "GitHub's unauthenticated hourly limit", tool: ToolAuto, text: "batch response: API rate limit exceeded for 203.0.113.7. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)", class: Policy, code: CodeRateLimitWindow, remedy: "authenticate"},
		{name: "GitHub's secondary limit stays a wait", tool: ToolAuto, text: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", class: Transient, code: CodeRateLimited},
	})
	f := Classify(Input{Tool: ToolAuto, Text: "API rate limit exceeded for 203.0.113.7.", ExitCode: 1, MaxElapsed: 2 * time.Hour})
	if f.Class != Transient {
		t.Errorf("an hour's window within a 2h run: %s %s", f.Class, f.Code)
	}
}

// TestGenericPhraseCase: a period or a credential's failure reads the
// same in any case and wording the gates let through ("Monthly product
// cap", "token is not valid").
func TestGenericPhraseCase(t *testing.T) {
	for _, tc := range []struct {
		text  string
		class Class
		code  Code
	}{
		{"Error: 429 Too Many Requests\nUsage cap exceeded: Monthly product cap", Policy, CodeRateLimitWindow},
		{"Error: Weekly limit exceeded for this account", Policy, ""},
		{"Error: The specified token is not valid. Use `tool login` to generate a new token.", Policy, CodeAuthRejected},
		{"error: API key is not valid", Policy, CodeAuthRejected},
		{"Error: Your API key has been revoked.", Policy, CodeAuthRejected},
		{"Error: the access key has expired", Policy, CodeAuthRejected},
		{`Unexpected error retrieving remote project status: {"message":"Your account does not have the necessary privileges to access this endpoint."}`, Policy, ""},
		{`{"error":"This action is not allowed"}`, Policy, ""},
	} {
		f := classifyText(ToolAuto, tc.text, 1, "")
		if f.Class != tc.class || tc.code != "" && f.Code != tc.code {
			t.Errorf("%q: got %s %s (%s), want %s %s", tc.text, f.Class, f.Code, f.Reason, tc.class, tc.code)
		}
	}
}

// TestClientErrorEnumStatus checks that a client library's error variant
// carrying a status (a Rust enum's Client(StatusCode) or Server(StatusCode),
// printed inline or pretty-printed over lines) is read as that status, and
// that a number in another variant, or one outside the variant's range, is not.
func TestClientErrorEnumStatus(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "pretty-printed Client(429)", tool: ToolAuto, class: Transient, code: HTTPCode(429),
			text: "Error posting toot to Mastodon: Client(\n    429,\n)"},
		{name: "inline Client(429)", tool: ToolAuto, class: Transient, code: HTTPCode(429),
			text: "Error: Client(429)"},
		{name: "Client(401) is a credential refusal", tool: ToolAuto, class: Policy, code: HTTPCode(401),
			text: "Failed to post: Client(401)"},
		{name: "Server(503) is transient", tool: ToolAuto, class: Transient, code: HTTPCode(503),
			text: "Error fetching timeline: Server(\n    503,\n)"},
		{name: "ClientError(422) is structural", tool: ToolAuto, class: Structural, code: HTTPCode(422),
			text: "request failed: ClientError(422)"},
		// near-misses
		{name: "a server-range number in Client() is no status", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Error: Client(503)"},
		{name: "a count in another variant", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Error: Retries(429)"},
		{name: "a client id", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Error: unknown Client(\n    4291,\n)"},
	})
}

// TestGenericMissingSetup checks the deploy CLIs' prose for a project that is
// not set up for the step (nothing configured to build from, an image that is
// not there): structural, whatever the tool's wording.
func TestGenericMissingSetup(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "flyctl: no Dockerfile or buildpacks", tool: ToolAuto, class: Structural, code: CodeValidation,
			text: "==> Building image\nError failed to fetch an image or build from source: app does not have a Dockerfile or buildpacks configured. See https://fly.io/docs/reference/configuration/#the-build-section"},
		{name: "a project with no environments configured", tool: ToolAuto, class: Structural, code: CodeValidation,
			text: "Error: this project doesn't have any environments configured"},
		{name: "a site that has no build command configured", tool: ToolAuto, class: Structural, code: CodeValidation,
			text: "Error: the site has no build command configured"},
		{name: "flyctl: could not find the image", tool: ToolAuto, class: Structural, code: CodeNotFound,
			text: "Error failed to fetch an image or build from source: Could not find image \"registry.fly.io/app:main-33ec569\""},
		{name: "couldn't find image", tool: ToolAuto, class: Structural, code: CodeNotFound,
			text: "Error: couldn't find image ghcr.io/org/app:v1.2.3"},
		// near-misses: credentials not configured are not a build setup
		{name: "no token configured is credentials", tool: ToolAuto, class: Policy, code: CodeAuthRejected,
			text: "Error: the CLI does not have an API token configured; please log in"},
		{name: "docker pulls an image it did not find locally", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Unable to find image 'alpine:3.20' locally\nexit status 1"},
	})
}

// TestFailedParenStatus checks that "... failed (NNN)" reads NNN as a status
// when it is in the 4xx/5xx range and alone in the parentheses (an exit
// status is at most 255), and that a count or an exit code is not.
func TestFailedParenStatus(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "hex: updating a package failed (401)", tool: ToolAuto, class: Policy, code: HTTPCode(401),
			text: "Updating package calliope failed (401)"},
		{name: "an upload failed (413)", tool: ToolAuto, class: Structural, code: HTTPCode(413),
			text: "Upload of release asset failed (413)"},
		{name: "a request failed (503)", tool: ToolAuto, class: Transient, code: HTTPCode(503),
			text: "Error: request failed (503)"},
		// near-misses
		{name: "a count in the parentheses", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Sync failed (404 files)"},
		{name: "an exit code", tool: ToolAuto, class: Unknown, code: CodeUnknown,
			text: "Build failed (127)"},
	})
}
