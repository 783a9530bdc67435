package tools

import (
	"net/http"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestNPMFailures(t *testing.T) {
	runTextCases(t, []textCase{
		// publishing a version that exists: the request must change
		{name: "E403 publish over, npm 10", tool: failure.ToolNPM, exit: 1,
			text:  "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access\nnpm error code E403\nnpm error 403 403 Forbidden - PUT https://registry.npmjs.org/@acme%2fwidgets - You cannot publish over the previously published versions: 3.4.0.\nnpm error 403 In most cases, you or one of your dependencies are requesting\nnpm error 403 a package version that is forbidden by your security policy, or\nnpm error 403 on a server you do not have access to.\n",
			class: failure.Structural, code: CodeNPMPublishConflict, reason: "3.4.0 of @acme/widgets", remedy: "bump the version in package.json: 3.4.0 is already on the registry",
			evidence: []string{"npm error code E403", "You cannot publish over"}},
		{name: "EPUBLISHCONFLICT", tool: failure.ToolAuto,
			text:  "npm ERR! code EPUBLISHCONFLICT\nnpm ERR! publish fail Cannot publish over existing version.\nnpm ERR! publish fail Update the 'version' field in package.json and try again.\n",
			class: failure.Structural, code: CodeNPMPublishConflict, remedy: "bump the version in package.json"},
		{name: "lerna relays a publish conflict", tool: failure.ToolAuto,
			text:  "lerna ERR! E403 You cannot publish over the previously published versions: 1.2.3.\n",
			class: failure.Structural, code: CodeNPMPublishConflict, reason: "1.2.3"},
		// EOTP: not a timeout, whatever its last line says
		{name: "EOTP is policy", tool: failure.ToolAuto, exit: 1,
			text:  "npm error code EOTP\nnpm error This operation requires a one-time password from your authenticator.\nnpm error You can provide a one-time password by passing --otp=<code> to the command you ran.\nnpm error If you already provided a one-time password then it is likely that you either typoed\nnpm error it, or it timed out. Please try again.\n",
			class: failure.Policy, code: CodeNPMOTPRequired, remedy: "the token needs 2FA automation or a granular token: EOTP cannot be answered in CI"},
		{name: "E403 two-factor required", tool: failure.ToolNPM,
			text:  "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/axios - Two-factor authentication is required to publish this package but an automation token was specified\n",
			class: failure.Policy, code: CodeNPMOTPRequired, reason: "axios requires two-factor authentication"},
		// credentials
		{name: "ENEEDAUTH", tool: failure.ToolAuto,
			text:  "npm error code ENEEDAUTH\nnpm error need auth This command requires you to be logged in to https://registry.npmjs.org/\nnpm error need auth You need to authorize this machine using `npm adduser`\n",
			class: failure.Policy, code: failure.CodeNPMNeedAuth, remedy: "NODE_AUTH_TOKEN"},
		{name: "E401 bearer", tool: failure.ToolAuto,
			text:  "npm ERR! code E401\nnpm ERR! Unable to authenticate, your authentication token seems to be invalid.\nnpm ERR! To correct this please try logging in again with:\nnpm ERR!     npm login\n",
			class: failure.Policy, code: CodeNPMUnauthorized},
		{name: "debug log E401", tool: failure.ToolAuto,
			text:  "41 error npm  v2.7.0\n42 error code E401\n43 error Request was not authorized : pipeline-routing\n",
			class: failure.Policy, code: CodeNPMUnauthorized},
		{name: "E403 no permission to publish", tool: failure.ToolAuto,
			text:  "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/left-pad - You do not have permission to publish \"left-pad\". Are you logged in as the correct user?\n",
			class: failure.Policy, code: CodeNPMForbidden, reason: "on PUT left-pad", remedy: "publish rights"},
		{name: "E403 on install", tool: failure.ToolAuto,
			text:  "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - GET https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz\n",
			class: failure.Policy, code: CodeNPMForbidden, reason: "on GET lodash"},
		// a 404: no access on a publish, absence on a lookup
		{name: "E404 on PUT", tool: failure.ToolAuto,
			text:  "npm error code E404\nnpm error 404 Not Found - PUT https://registry.npmjs.org/@acme%2fwidgets - Not found\nnpm error 404\nnpm error 404  '@acme/widgets@1.0.4' is not in this registry.\n",
			class: failure.Policy, code: CodeNPMPublishNoAccess, reason: "on PUT @acme/widgets"},
		{name: "E404 on PUT, npm 5", tool: failure.ToolAuto,
			text:  "npm ERR! publish Failed PUT 404\nnpm ERR! code E404\nnpm ERR! 404 Not found : @acme/widgets\nnpm ERR! 404\n",
			class: failure.Policy, code: CodeNPMPublishNoAccess},
		{name: "E404 on GET", tool: failure.ToolAuto,
			text:  "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found\nnpm ERR! 404\nnpm ERR! 404  '@acme/nope@latest' is not in this registry.\n",
			class: failure.Absent, code: CodeNPMNotFound, reason: "@acme/nope"},
		{name: "E404 bare, npm 5 install", tool: failure.ToolAuto,
			text:  "npm ERR! code E404\nnpm ERR! 404 Not Found: yargs@latest\n",
			class: failure.Absent, code: CodeNPMNotFound, reason: "yargs@latest"},
		{name: "ETARGET", tool: failure.ToolAuto,
			text:  "npm error code ETARGET\nnpm error notarget No matching version found for left-pad@^9.0.0.\n",
			class: failure.Absent, code: CodeNPMNoMatchingVersion},
		// E402: restricted by default on a publish, billing on a fetch
		{name: "E402 on publish", tool: failure.ToolAuto,
			text:  "npm ERR! code E402\nnpm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@acme%2fwidgets - You must sign up for private packages\n",
			class: failure.Structural, code: CodeNPMRestrictedScope, remedy: "publishConfig.access=public"},
		{name: "E402 on a fetch", tool: failure.ToolAuto,
			text:  "npm ERR! code E402\nnpm ERR! 402 Payment Required: @ckeditor/ckeditor5-vue@latest\n",
			class: failure.Policy, code: failure.HTTPCode(402)},
		// E422 provenance: the manifest or the runner must change; the registry's own TUF failure is not known
		{name: "E422 provenance", tool: failure.ToolAuto,
			text:  "npm error code E422\nnpm error 422 Unprocessable Entity - PUT https://registry.npmjs.org/@acme%2fwidgets - Error verifying sigstore provenance bundle: Failed to validate repository information: package.json: \"repository.url\" is \"\", expected to match \"https://github.com/acme/widgets\" from provenance\n",
			class: failure.Structural, code: CodeNPMProvenance, remedy: "repository.url"},
		{name: "E422 TUF", tool: failure.ToolAuto,
			text:  "npm error code E422\nnpm error 422 Unprocessable Entity - PUT https://registry.npmjs.org/@acme%2fwidgets - Error verifying sigstore provenance bundle: error refreshing TUF metadata\n",
			class: failure.Unknown, code: CodeNPMProvenance},
		// E409: a packument still being saved passes; a bare conflict is not known
		{name: "E409 packument", tool: failure.ToolAuto,
			text:  "npm ERR! code E409\nnpm ERR! 409 Conflict - PUT https://registry.npmjs.org/@acme%2fwidgets - Failed to save packument. A common cause is if you try to publish a new package before the previous package has been fully processed.\n",
			class: failure.Transient, code: CodeNPMPackumentConflict},
		{name: "lerna E409 packument", tool: failure.ToolAuto,
			text:  "lerna ERR! E409 Failed to save packument. A common cause is if you try to publish a new package before the previous package has been fully processed.\n",
			class: failure.Transient, code: CodeNPMPackumentConflict},
		{name: "E409 bare", tool: failure.ToolAuto,
			text:  "npm ERR! code E409\nnpm ERR! 409 Conflict - PUT https://registry.npmjs.org/@acme%2fwidgets - Conflict\n",
			class: failure.Unknown, code: failure.HTTPCode(409)},
		// caps for a period are policy; rate limits and 5xx pass
		{name: "republish wait", tool: failure.ToolAuto,
			text:  "npm error 403 403 Forbidden - PUT https://registry.npmjs.org/widgets - widgets cannot be republished until 24 hours have passed.\n",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "24 hours"},
		{name: "yarn relays the republish wait", tool: failure.ToolAuto,
			text:  "error Couldn't publish package: \"https://registry.yarnpkg.com/widgets: widgets cannot be republished until 24 hours have passed.\"\n",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "24 hours"},
		{name: "versions cap", tool: failure.ToolAuto,
			text:  "npm error code E429\nnpm error 429 Too Many Requests - PUT https://registry.npmjs.org/widgets - too many versions published in the last 24 hours\n",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "resets after 24 hours"},
		{name: "E429", tool: failure.ToolAuto,
			text:  "npm ERR! code E429\nnpm ERR! 429 Too Many Requests - GET https://registry.npmjs.org/aws4\n",
			class: failure.Transient, code: failure.HTTPCode(429)},
		{name: "E503 on publish", tool: failure.ToolAuto,
			text:  "npm ERR! code E503\nnpm ERR! 503 Service Unavailable - PUT https://registry.npmjs.org/widgets - Service Unavailable\n",
			class: failure.Transient, code: failure.HTTPCode(503), remedy: "check whether the version landed"},
		{name: "E500 on install", tool: failure.ToolAuto,
			text:  "npm error code E500\nnpm error 500 Internal Server Error - GET https://registry.npmjs.org/react\n",
			class: failure.Transient, code: failure.HTTPCode(500)},
		// network codes
		{name: "ETIMEDOUT", tool: failure.ToolAuto,
			text:  "npm ERR! code ETIMEDOUT\nnpm ERR! errno ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/react failed, reason: connect ETIMEDOUT 104.16.1.35:443\n",
			class: failure.Transient, code: failure.CodeTimeout},
		{name: "ECONNRESET", tool: failure.ToolAuto,
			text:  "npm error code ECONNRESET\nnpm error network aborted\n",
			class: failure.Transient, code: failure.CodeReset},
		{name: "ENOTFOUND", tool: failure.ToolAuto,
			text:  "npm ERR! code ENOTFOUND\nnpm ERR! syscall getaddrinfo\nnpm ERR! errno ENOTFOUND\nnpm ERR! network request to https://registry.npmjs.org/react failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org\n",
			class: failure.Transient, code: failure.CodeDNS},
		{name: "ECONNREFUSED", tool: failure.ToolAuto,
			text:  "npm ERR! code ECONNREFUSED\nnpm ERR! errno ECONNREFUSED\nnpm ERR! FetchError: request to http://localhost:4873/react failed, reason: connect ECONNREFUSED 127.0.0.1:4873\n",
			class: failure.Transient, code: failure.CodeRefused},
		{name: "self-signed certificate", tool: failure.ToolAuto,
			text:  "npm ERR! code SELF_SIGNED_CERT_IN_CHAIN\nnpm ERR! errno SELF_SIGNED_CERT_IN_CHAIN\nnpm ERR! request to https://registry.npmjs.org/react failed, reason: self signed certificate in certificate chain\n",
			class: failure.Unknown, code: failure.CodeTLSCertificate},
		// the project must change
		{name: "ERESOLVE", tool: failure.ToolAuto,
			text:  "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR!\nnpm ERR! Fix the upstream dependency conflict, or retry\nnpm ERR! this command with --force, or --legacy-peer-deps\n",
			class: failure.Structural, code: CodeNPMDependencyConflict},
		{name: "npm ci out of sync", tool: failure.ToolAuto,
			text:  "npm ERR! code EUSAGE\nnpm ERR!\nnpm ERR! `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with `npm install` before continuing.\n",
			class: failure.Structural, code: CodeNPMLockfile},
		{name: "npm ci without lockfile", tool: failure.ToolAuto,
			text:  "npm error code EUSAGE\nnpm error\nnpm error The `npm ci` command can only install with an existing package-lock.json or\nnpm error npm-shrinkwrap.json with lockfileVersion >= 1.\n",
			class: failure.Structural, code: CodeNPMLockfile, reason: "there is none"},
		{name: "EJSONPARSE", tool: failure.ToolAuto,
			text:  "npm ERR! code EJSONPARSE\nnpm ERR! JSON.parse Failed to parse json\n",
			class: failure.Structural, code: CodeNPMUsage},
		{name: "EINTEGRITY", tool: failure.ToolAuto,
			text:  "npm ERR! code EINTEGRITY\nnpm ERR! sha512-abc integrity checksum failed when using sha512: wanted sha512-abc but got sha512-def. (1234 bytes)\n",
			class: failure.Unknown, code: CodeNPMIntegrity},
		{name: "GitHub Packages conflict", tool: failure.ToolAuto,
			text:  "npm ERR! code E409\nnpm ERR! 409 Conflict - PUT https://npm.pkg.github.com/@acme%2fwidgets - Cannot publish over existing version\n",
			class: failure.Structural, code: CodeNPMPublishConflict},
		{name: "cut answer", tool: failure.ToolAuto,
			text:  "npm ERR! code FETCH_ERROR\nnpm ERR! errno FETCH_ERROR\nnpm ERR! invalid json response body at https://registry.npmjs.org/react reason: Unexpected end of JSON input\n",
			class: failure.Transient, code: failure.CodeTransferCut},
		{name: "semantic-release invalid token", tool: failure.ToolAuto,
			text:  "[semantic-release] › ✘  EINVALIDNPMTOKEN Invalid npm token.\nThe npm token configured in the NPM_TOKEN environment variable must be a valid token allowing to publish to the registry https://registry.npmjs.org/.\n",
			class: failure.Policy, code: CodeNPMUnauthorized},
		// pnpm's own registry errors
		{name: "pnpm 401", tool: failure.ToolNPM,
			text:  " ERR_PNPM_FETCH_401  GET https://npm.pkg.github.com/@acme%2fwidgets: Unauthorized - 401\n\nNo authorization header was set for the request.\n",
			class: failure.Policy, code: CodeNPMUnauthorized, reason: "pnpm ERR_PNPM_FETCH_401"},
		{name: "pnpm 503", tool: failure.ToolAuto,
			text:  " ERR_PNPM_FETCH_503  GET https://registry.npmjs.org/react: Service Unavailable - 503\n",
			class: failure.Transient, code: failure.HTTPCode(503)},
		{name: "pnpm frozen lockfile", tool: failure.ToolAuto,
			text:  " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because pnpm-lock.yaml is not up to date with package.json\n",
			class: failure.Structural, code: CodeNPMLockfile},
	})
}

// TestNPMNearMisses: npm's words where they are not npm's error.
func TestNPMNearMisses(t *testing.T) {
	runTextCases(t, []textCase{
		// a lifecycle script's failure says nothing by itself
		{name: "ELIFECYCLE", tool: failure.ToolAuto, exit: 1,
			text:  "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\nnpm ERR! widgets@1.0.0 test: `jest`\nnpm ERR! Exit status 1\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		{name: "npm 7 script failure", tool: failure.ToolAuto, exit: 1,
			text:  "npm error code 1\nnpm error path /work/widgets\nnpm error command failed\nnpm error command sh -c node build.js\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		// a code named in prose, not on npm's code line
		{name: "code in prose", tool: failure.ToolAuto,
			text:  "the job stopped with error code E403 from the proxy\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		// npm's boilerplate lines of a 404 block alone
		{name: "404 boilerplate", tool: failure.ToolAuto,
			text:  "npm ERR! 404 You should bug the author to publish it (or use the name yourself!)\nnpm ERR! 404 Note that you can also install from a\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		// the registry-fetch format from a client of another service: the HTTP rule applies, not npm's
		{name: "404 on PUT elsewhere", tool: failure.ToolAuto,
			text:  "404 Not Found - PUT https://api.example.com/items/1 - Not found\n",
			class: failure.Structural, code: failure.HTTPCode(404)},
		// an HTML answer where JSON was expected: a misconfigured registry or proxy, not a cut answer
		{name: "HTML for JSON", tool: failure.ToolAuto,
			text:  "npm ERR! code FETCH_ERROR\nnpm ERR! invalid json response body at https://proxy.example.com/react reason: Unexpected token < in JSON at position 0\n",
			class: failure.Unknown, code: failure.CodeUnknown},
		// pnpm retries by itself: a retry warning is not the failure
		{name: "pnpm retry warning", tool: failure.ToolAuto,
			text:  " WARN  GET https://registry.npmjs.org/widgets/-/widgets-1.0.0.tgz error (ERR_PNPM_FETCH_404). Will retry in 10 seconds. 2 retries left.\n",
			class: failure.Unknown, code: failure.CodeUnknown},
	})
}

// TestNPMStatusAnswer: npm's named error decides over a bare --status.
func TestNPMStatusAnswer(t *testing.T) {
	text := "npm ERR! 404 Not Found - PUT https://registry.npmjs.org/@acme%2fwidgets - Not found\nnpm ERR! 404  '@acme/widgets@1.0.4' is not in the npm registry.\n"
	f := failure.Classify(failure.Input{Tool: failure.ToolAuto, Text: text, Status: 404, Header: http.Header{}, ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Policy, CodeNPMPublishNoAccess, "on PUT @acme/widgets", "", []string{"HTTP 404 Not Found"})
	if f.Trace.Network {
		t.Errorf("a registry answer is not a network failure: %+v", f.Trace)
	}
	f = failure.Classify(failure.Input{Tool: failure.ToolAuto, Text: "npm ERR! code E503\nnpm ERR! 503 Service Unavailable - PUT https://registry.npmjs.org/widgets - Service Unavailable\n", Status: 503, ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Transient, failure.HTTPCode(503), "", "", nil)
}

func TestNPMTrace(t *testing.T) {
	f := failure.FromText(failure.ToolAuto, "npm ERR! code EAI_AGAIN\nnpm ERR! errno EAI_AGAIN\nnpm ERR! getaddrinfo EAI_AGAIN registry.npmjs.org:443\n", 1)
	if !f.Trace.Network || !f.Trace.NotSent {
		t.Errorf("EAI_AGAIN: trace %+v, want a network failure before sending", f.Trace)
	}
	f = failure.FromText(failure.ToolAuto, "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/widgets - You cannot publish over the previously published versions: 1.0.0.\n", 1)
	if f.Trace.Network || f.Trace.Status != 403 || f.Trace.URL == "" {
		t.Errorf("E403: trace %+v, want the registry's answer with its status and URL", f.Trace)
	}
}

func TestNPMToolNames(t *testing.T) {
	for _, p := range []string{"npm", "/usr/local/bin/npx", "pnpm"} {
		if got := failure.ToolOf(p); got != failure.ToolNPM {
			t.Errorf("ToolOf(%q) = %q, want npm", p, got)
		}
	}
	for text, want := range map[string]failure.Tool{
		"npm ERR! code E401\n":       failure.ToolNPM,
		"npm error code ENEEDAUTH\n": failure.ToolNPM,
		// pnpm has no mark: its ERR_PNPM_ lines are read whatever the tool
		" ERR_PNPM_FETCH_404  GET https://x":                     failure.ToolAuto,
		"npm notice Publishing to https://registry.npmjs.org/\n": failure.ToolAuto,
	} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != want {
			t.Errorf("detectTool(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestNPMPackageOf(t *testing.T) {
	for u, want := range map[string]string{
		"https://registry.npmjs.org/@outreach%2fhoneycomb-beeline":                  "@outreach/honeycomb-beeline",
		"https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz":                    "lodash",
		"https://nexus.example.com/repository/npm-internal/@acme%2Fwidgets":         "@acme/widgets",
		"https://registry.npmjs.org/":                                               "",
		"https://registry.npmjs.org/@types/webappsec-credential-management/-/x.tgz": "@types/webappsec-credential-management",
	} {
		if got := npmPackageOf(u); got != want {
			t.Errorf("npmPackageOf(%q) = %q, want %q", u, got, want)
		}
	}
}
