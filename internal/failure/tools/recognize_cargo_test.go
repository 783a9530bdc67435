package tools

import (
	"net/http"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestCargo(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "version already uploaded, named from the publish line", tool: failure.ToolAuto,
			text:  "   Uploading kcl-api v0.2.167 (/w/kcl-api)\nerror: failed to publish kcl-api v0.2.167 to registry at https://crates.io\n\nCaused by:\n  the remote server responded with an error (status 400 Bad Request): crate version `0.2.167` is already uploaded\n",
			class: failure.Structural, code: CodeCargoVersionExists, reason: "already has kcl-api 0.2.167", remedy: "bump the version in Cargo.toml: kcl-api 0.2.167",
			evidence: []string{"is already uploaded"},
		},
		{
			name: "cargo's own index check", tool: failure.ToolCargo,
			text:  "    Updating crates.io index\nerror: crate demo@1.4.0 already exists on crates.io index\n",
			class: failure.Structural, code: CodeCargoVersionExists, reason: "already has demo 1.4.0",
		},
		{
			name: "an alternative registry's index", tool: failure.ToolCargo,
			text:  "error: crate demo@1.4.0 already exists on `my-registry` index\n",
			class: failure.Structural, code: CodeCargoVersionExists, reason: "demo 1.4.0",
		},
		{
			name: "a dry run's warning yields to a download timeout", tool: failure.ToolCargo,
			text:  "warning: crate demo@1.4.0 already exists on crates.io index\nerror: failed to download from `https://static.crates.io/crates/syn/syn-2.0.0.crate`\n\nCaused by:\n  [28] Timeout was reached (download of `syn v2.0.0` failed to transfer more than 10 bytes in 30s)\n",
			class: failure.Transient, code: failure.CodeTimeout,
		},
		{
			name: "new crates rate limit, with the time", tool: failure.ToolAuto,
			text:  "error: failed to publish to registry at https://crates.io\n\nCaused by:\n  the remote server responded with an error (status 429 Too Many Requests): You have published too many new crates in a short period of time. Please try again after Fri, 08 May 2026 13:02:42 GMT and see https://crates.io/docs/rate-limits for more details.\n",
			class: failure.Transient, code: failure.CodeRateLimited, reason: "try again after Fri, 08 May 2026 13:02:42 GMT",
		},
		{
			name: "daily versions quota, the message wrapped below the frame", tool: failure.ToolAuto,
			text:  "error: failed to publish htl-core v0.1.20 to registry at https://crates.io\nCaused by:\n  the remote server responded with an error (status 429 Too Many Requests):\n  You have published too many versions of this crate in the last 24 hours\n",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "daily quota",
		},
		{
			name: "authentication failed is crates.io's, not git's", tool: failure.ToolAuto,
			text:  "error: failed to publish to registry at https://crates.io\n  the remote server responded with an error (status 403 Forbidden): authentication failed\n",
			class: failure.Policy, code: failure.CodeBadCredentials, remedy: "CARGO_REGISTRY_TOKEN",
		},
		{
			name: "token without the scope", tool: failure.ToolAuto,
			text:  "Caused by:\n  the remote server responded with an error (status 403 Forbidden): this token does not have the required permissions to perform this action\n",
			class: failure.Policy, code: CodeCargoTokenScope,
		},
		{
			name: "not an owner", tool: failure.ToolAuto,
			text:  "Caused by:\n  the remote server responded with an error (status 403 Forbidden): this crate exists but you don't seem to be an owner. If you believe this is a mistake, perhaps you need to accept an invitation to be an owner before publishing.\n",
			class: failure.Policy, code: CodeCargoNotOwner,
		},
		{
			name: "unverified email", tool: failure.ToolAuto,
			text:  "Caused by:\n  the remote server responded with an error (status 400 Bad Request): A verified email address is required to publish crates to crates.io. Visit https://crates.io/settings/profile to set and verify your email address.\n",
			class: failure.Policy, code: CodeCargoEmail,
		},
		{
			name: "empty token", tool: failure.ToolCargo,
			text:  "error: failed to publish: please provide a non-empty token\n",
			class: failure.Policy, code: CodeCargoNoToken,
		},
		{
			name: "an unnamed 400 keeps crates.io's message in the reason", tool: failure.ToolAuto,
			text:  "Caused by:\n  the remote server responded with an error (status 400 Bad Request): max upload size is: 10485760\n",
			class: failure.Structural, code: failure.HTTPCode(400), reason: "HTTP 400 Bad Request: max upload size is: 10485760",
		},
		{
			name: "an unnamed 404 on publish is structural", tool: failure.ToolAuto,
			text:  "error: failed to publish to registry at https://example.com\n\nCaused by:\n  the remote server responded with an error (status 404 Not Found): Not Found\n",
			class: failure.Structural, code: failure.HTTPCode(404),
		},
		{
			name: "a 500 from the registry", tool: failure.ToolAuto,
			text:  "error: failed to publish to registry at https://crates.io\n\nCaused by:\n  the remote server responded with an error (status 500 Internal Server Error): Internal Server Error\n",
			class: failure.Transient, code: failure.HTTPCode(500),
		},
		{
			name: "missing metadata fields", tool: failure.ToolAuto,
			text:  "Caused by:\n  the remote server responded with an error (status 400 Bad Request): missing or empty metadata fields: description, license. Please see https://doc.rust-lang.org/cargo/reference/manifest.html for more information on configuring these fields\n",
			class: failure.Structural, code: CodeCargoManifest, remedy: "add description, license to [package]",
		},
		{
			name: "a path dependency without a version", tool: failure.ToolCargo,
			text:  "error: all dependencies must have a version specified when publishing.\ndependency `core` does not specify a version\n",
			class: failure.Structural, code: CodeCargoManifest,
		},
		{
			name: "trusted publishing exchange failed with a 503", tool: failure.ToolAuto,
			text:  "Error: Failed to retrieve token from Cargo registry. Status: 503. Error: Service Unavailable\n",
			class: failure.Transient, code: failure.HTTPCode(503),
		},
		{
			name: "upload timeout under cargo's publish error", tool: failure.ToolCargo,
			text:  "   Uploading big v1.0.0 (/w/big)\nerror: failed to publish to registry at https://crates.io\n\nCaused by:\n  [28] Timeout was reached (Operation timed out after 30000 milliseconds with 0 bytes received)\n",
			class: failure.Unknown, code: CodeCargoUploadTimeout, remedy: "check whether the version got published",
		},
		{
			name: "rustc's failed to resolve is no DNS failure", tool: failure.ToolAuto,
			text:  "   Compiling demo v0.1.0\nerror[E0433]: failed to resolve: use of undeclared crate or module `bar`\n --> src/lib.rs:1:5\nerror: could not compile `demo` (lib) due to 1 previous error\n",
			class: failure.Structural, code: CodeCargoCompile, reason: "error[E0433]: failed to resolve: use of undeclared crate",
		},
		{
			name: "the verification fails on a download: the download decides", tool: failure.ToolCargo,
			text:  "error: failed to verify package tarball\n\nCaused by:\n  failed to download `syn v2.0.0`\n\nCaused by:\n  failed to download from `https://static.crates.io/crates/syn/2.0.0/download`\n\nCaused by:\n  [28] Timeout was reached (download of `syn v2.0.0` failed to transfer more than 10 bytes in 30s)\n",
			class: failure.Transient, code: failure.CodeTimeout,
		},
		{
			name: "the index did not show the crate in time: a warning after success", tool: failure.ToolCargo,
			text:  "   Uploaded demo v0.1.0 to registry `crates-io`\nnote: waiting for `demo v0.1.0` to be available at registry `crates-io`.\nwarning: timed out waiting for `demo v0.1.0` to be available in registry `crates-io`\nnote: the registry may have a backlog that is delaying making the crate available. The crate should be available soon.\n",
			class: failure.Unknown, code: CodeCargoIndexWait, remedy: "do not publish it again",
		},
		{
			name: "old cargo's dirty files", tool: failure.ToolCargo,
			text:  "error: 1 dirty files found in the working directory:\n\nCargo.lock\n",
			class: failure.Structural, code: CodeCargoDirty,
		},
		{
			name: "spurious network warnings are downloads", tool: failure.ToolCargo,
			text:  "warning: spurious network error (2 tries remaining): [28] Timeout was reached (failed to download any data for `im v12.3.4` within 30s)\n",
			class: failure.Transient, code: failure.CodeTimeout,
		},
	})
}

// The tool's answer decides over the bare status the CLI passes.
func TestCargoWithStatus(t *testing.T) {
	text := "error: failed to publish to registry at https://crates.io\n\nCaused by:\n  the remote server responded with an error (status 429 Too Many Requests): You have published too many versions of this crate in the last 24 hours\n"
	f := failure.Classify(failure.Input{Status: 429, Text: text, ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Policy, failure.CodeQuotaExhausted, "daily quota", "", nil)

	now := time.Date(2026, 5, 8, 13, 0, 0, 0, time.UTC)
	text = "Caused by:\n  the remote server responded with an error (status 429 Too Many Requests): You have published too many new crates in a short period of time. Please try again after Fri, 08 May 2026 13:02:42 GMT and see https://crates.io/docs/rate-limits for more details.\n"
	f = failure.Classify(failure.Input{Status: 429, Header: http.Header{"Retry-After": {"Fri, 08 May 2026 13:02:42 GMT"}}, Text: text, Now: now, ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Transient, failure.CodeRateLimited, "new crates", "", nil)
	if f.RetryAfter != 162*time.Second {
		t.Errorf("RetryAfter = %v", f.RetryAfter)
	}
}

func TestCargoNearMisses(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "a script grepping for the message", tool: failure.ToolAuto,
			text:  "if grep -q \"already exists on crates.io index\" publish.log; then\n  echo skip\nfi\nexit 3\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "old crates.io's 200 OK frame with an unknown message", tool: failure.ToolCargo,
			text:  "error: api errors (status 200 OK): something new\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a token found message", tool: failure.ToolAuto,
			text:  "note: no token found in ~/.netrc, using anonymous access\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a [28] from another tool with no cargo context stays a timeout", tool: failure.ToolAuto,
			text:  "fetch failed: [28] Timeout was reached\n",
			class: failure.Transient, code: failure.CodeTimeout,
		},
	})
}
