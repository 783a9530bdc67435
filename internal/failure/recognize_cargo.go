package failure

import (
	"strings"
)

// cargo's failures: crates.io's answers to `cargo publish` as cargo frames
// them ("the remote server responded with an error (status 400 Bad Request):
// <message>", older cargos "api errors (status 200 OK): <message>" and
// "failed to get a 200 OK response, got 500"), cargo's own refusals before
// the upload (the version already in the index, no token, a dirty working
// tree), the trusted-publishing token exchange of
// rust-lang/crates-io-auth-action, and libcurl's "[28] Timeout was reached"
// on an upload, which crates.io's hard request time limit makes ambiguous.

// cargo's codes.
const (
	CodeCargoVersionExists Code = "cargo-version-exists"
	CodeCargoNotOwner      Code = "cargo-not-owner"
	CodeCargoTokenScope    Code = "cargo-token-scope"
	CodeCargoNoToken       Code = "cargo-no-token"
	CodeCargoTrustedPub    Code = "cargo-trusted-publishing"
	CodeCargoEmail         Code = "cargo-email-unverified"
	CodeCargoManifest      Code = "cargo-manifest-rejected"
	CodeCargoDirty         Code = "cargo-dirty-worktree"
	CodeCargoUploadTimeout Code = "cargo-upload-timeout"
	CodeCargoIndexWait     Code = "cargo-index-wait-timeout"
	CodeCargoCompile       Code = "cargo-compile-failed"
)

const remedyCargoToken = "set CARGO_REGISTRY_TOKEN to a crates.io token with the publish-update (and, for a new crate, publish-new) scope, or exchange the job's OIDC token with rust-lang/crates-io-auth-action"

var (
	reCargoFrame     = lazyRE(`(?:sponded with an error(?: \(status (\d{3})[^)]*\))?|api errors \(status (\d{3})[^)]*\)):?[ \t]*(.*)`)
	reCargo200       = lazyRE(`ailed to get (?:a 200 OK response|200 response from \S+)(?:, got |: Response \{)(\d{3})`)
	reCargoUploaded  = lazyRE("crate version [`']?([0-9][^`'\\s]*)[`']? (?:is|has) already (?:been )?uploaded")
	reCargoExistsOn  = lazyRE("crate [`']?([A-Za-z0-9_-]+)@([0-9][^`'\\s]*)[`']? already exists on (.+?)\\s*$")
	reCargoPublishOf = lazyRE(`(?:failed to publish|Uploading) ([A-Za-z0-9_-]+) v([0-9]\S*)`)
	reCargoTryAfter  = lazyRE(`try again after (.+? GMT)`)
	reCargoFields    = lazyRE(`missing or empty metadata fields: ([^.]+)`)
	reCargoAuthToken = lazyRE(`ailed to retrieve token from Cargo registry\. Status: (\d{3})\.?(?: Error: (.*))?`)
	reCargoCurl28    = lazyRE(`\[28\] Timeout was reached`)
	reCargoUploading = lazyRE(`(?m)^\s*Uploading \S+ v\d`)
)

var cargoFamily = family{
	tool:  ToolCargo,
	names: []string{"cargo"},
	marks: []string{"Updating crates.io index", "registry at https://crates.io", "remote server responded with an error", "failed to get a 200 OK response", "already exists on crates.io index", "Failed to retrieve token from Cargo registry", "spurious network error ("},
	matchers: []matcher{
		{
			// cargo's frame of the registry's answer: the message decides
			// (the other matchers name it at rankTool), else the status.
			gates: []string{"sponded with an error", "api errors (status"},
			re:    reCargoFrame,
			build: func(c *scanCtx, _ string, m []string) (hit, bool) {
				status, detail := atoi(m[1]+m[2]), strings.TrimSpace(m[3])
				if status >= 400 {
					c.facts.status = status
				}
				if strings.Contains(strings.ToLower(detail), "authentication failed") || strings.Contains(detail, "must be logged in") {
					return hit{class: Policy, code: CodeBadCredentials, rank: rankTool, reason: "crates.io rejected the token: " + clip(detail),
						remedy: "the token is missing, wrong, expired or revoked: " + remedyCargoToken}, true
				}
				if status < 400 {
					return hit{}, false
				}
				h, ok := statusHit(c, status, rankStatus)
				if (status == 404 || status == 410) && strings.Contains(textBefore(c, 0), "publish") {
					vd := statusVerdict(status, "PUT", c.tool) // cargo publish is a PUT
					h = hit{class: vd.class, code: vd.code, rank: rankStatus, reason: vd.reason, remedy: vd.remedy}
				}
				if ok && detail != "" {
					h.reason = "the registry answered " + statusName(status) + ": " + clip(detail)
				}
				return h, ok
			},
		},
		{
			gates: []string{"ailed to get "},
			re:    reCargo200,
			build: func(c *scanCtx, _ string, m []string) (hit, bool) {
				status := atoi(m[1])
				c.facts.status = status
				h, ok := statusHit(c, status, rankStatus)
				h.reason = "the registry answered " + h.reason
				return h, ok
			},
		},
		{
			gates: []string{"lready uploaded", "lready been uploaded", "lready exists on"},
			build: func(c *scanCtx, line string, _ []string) (hit, bool) {
				name, version := "", ""
				rank := rankTool
				if m := reCargoExistsOn.FindStringSubmatch(line); m != nil {
					name, version = m[1], m[2]
					if strings.HasPrefix(strings.TrimSpace(line), "warning:") {
						rank = rankStatusTxt // a dry run's warning: anything else decides
					}
				} else if m := reCargoUploaded.FindStringSubmatch(line); m != nil {
					version = m[1]
					if p := reCargoPublishOf.FindStringSubmatch(textBefore(c, 0)); p != nil && p[2] == version {
						name = p[1]
					}
				} else {
					return hit{}, false
				}
				crate := clip(version)
				if name != "" {
					crate = clip(name) + " " + crate
				}
				return hit{class: Structural, code: CodeCargoVersionExists, rank: rank, reason: "the registry already has " + crate,
					remedy: "bump the version in Cargo.toml: " + crate + " is already published and a version can never be replaced; if an earlier attempt of this job uploaded it, skip this crate"}, true
			},
		},
		{
			gates: []string{"You have published too many"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if strings.Contains(line, "in the last 24 hours") || strings.Contains(line, "versions of this crate") {
					return hit{class: Policy, code: CodeQuotaExhausted, rank: rankTool, reason: "crates.io's daily quota of versions of this crate is spent (too many versions in the last 24 hours)",
						remedy: "wait until the 24-hour window has passed, or email help@crates.io to raise the limit; batch fixes into fewer versions"}, true
				}
				reason := "crates.io rate limit: too many crates published in a short period"
				if strings.Contains(line, "new crates") {
					reason = "crates.io rate limit on new crates (about one every 10 minutes after a burst)"
				}
				if m := reCargoTryAfter.FindStringSubmatch(line); m != nil {
					reason += "; try again after " + clip(m[1])
				}
				return hit{class: Transient, code: CodeRateLimited, rank: rankTool, reason: reason,
					remedy: "waiting until the time crates.io named, then publishing the crates not yet uploaded; email help@crates.io to raise the limit for large workspaces"}, true
			},
		},
		{
			gates: []string{"don't seem to be an owner", "claimed by another user"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Policy, code: CodeCargoNotOwner, rank: rankTool, reason: "the token's user is not an owner of the crate on the registry",
					remedy: "accept the pending owner invitation on crates.io, or have an owner add this user or team (cargo owner --add); a name owned by someone else needs a new name"}, true
			},
		},
		{
			gates: []string{"token does not have the required permissions", "Trusted Publishing", "does not match the format used by crates.io"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				switch {
				case strings.Contains(line, "does not match the format used by crates.io"):
					return hit{class: Policy, code: CodeBadCredentials, rank: rankTool, reason: "the token is not a crates.io token (empty, truncated or from elsewhere)",
						remedy: remedyCargoToken}, true
				case strings.Contains(line, "only be published using Trusted Publishing"):
					return hit{class: Policy, code: CodeCargoTokenScope, rank: rankTool, reason: "this crate accepts new versions only through trusted publishing",
						remedy: "exchange the job's OIDC token with rust-lang/crates-io-auth-action (permissions: id-token: write) instead of a long-lived token"}, true
				}
				if !strings.Contains(line, "token does not have the required permissions") {
					return hit{}, false
				}
				return hit{class: Policy, code: CodeCargoTokenScope, rank: rankTool, reason: "the crates.io token lacks the permission for this publish",
					remedy: "use a token whose scopes cover this crate and action (publish-new for a new crate, publish-update for a new version)"}, true
			},
		},
		{
			gates: []string{"no token found", "no upload token found", "non-empty token"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "cargo login") && !strings.Contains(line, "_TOKEN") && !strings.Contains(line, "provide a non-empty token") {
					return hit{}, false
				}
				return hit{class: Policy, code: CodeCargoNoToken, rank: rankTool, reason: "no registry token reached cargo",
					remedy: "set CARGO_REGISTRY_TOKEN from a secret in the publish step's env (secrets are empty in pull requests from forks), or exchange the job's OIDC token with rust-lang/crates-io-auth-action"}, true
			},
		},
		{
			gates: []string{"verified email address is required"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Policy, code: CodeCargoEmail, rank: rankTool, reason: "the crates.io account has no verified email address",
					remedy: "set and verify the email address at https://crates.io/settings/profile, then publish again"}, true
			},
		},
		{
			// rust-lang/crates-io-auth-action
			gates: []string{"ailed to re", "Trusted Publishing config"},
			build: func(c *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "token from Cargo registry") && !strings.Contains(line, "Trusted Publishing config") {
					return hit{}, false
				}
				detail := ""
				if m := reCargoAuthToken.FindStringSubmatch(line); m != nil {
					status := atoi(m[1])
					c.facts.status = status
					if status >= 500 || status == 429 {
						h, ok := statusHit(c, status, rankTool)
						h.reason = "trusted publishing: the registry answered the token exchange with " + h.reason
						return h, ok
					}
					detail = m[2]
				} else if _, after, ok := strings.Cut(line, "Error: "); ok {
					detail = after
				} else {
					detail = strings.TrimSpace(line)
				}
				reason := "trusted publishing: crates.io refused the token exchange"
				if detail = strings.TrimSpace(detail); detail != "" {
					reason += ": " + clip(detail)
				}
				return hit{class: Policy, code: CodeCargoTrustedPub, rank: rankTool, reason: reason,
					remedy: "add or fix the crate's trusted publisher on crates.io (Settings → Trusted Publishing) so it names this repository, workflow file and environment; a crate's first version must be published with a token"}, true
			},
		},
		{
			gates: []string{"issing or empty metadata fields", "nvalid upload request", "have a version", "package.publish` must"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				switch {
				case strings.Contains(line, "metadata fields"):
					fields := "description, license"
					if m := reCargoFields.FindStringSubmatch(line); m != nil {
						fields = m[1]
					}
					return hit{class: Structural, code: CodeCargoManifest, rank: rankTool, reason: "the registry requires manifest fields that are missing: " + clip(fields),
						remedy: "add " + clip(fields) + " to [package] in Cargo.toml, then publish again"}, true
				case strings.Contains(line, "dependencies must have a version"):
					return hit{class: Structural, code: CodeCargoManifest, rank: rankTool, reason: "a dependency has no version requirement (path or git only)",
						remedy: "give every path or git dependency a version too (version = \"x.y\") and publish that dependency first"}, true
				case strings.Contains(line, "package.publish"):
					return hit{class: Structural, code: CodeCargoManifest, rank: rankTool, reason: "the package is marked not to be published (package.publish)",
						remedy: "set publish = true (or list this registry) in Cargo.toml, or leave this package out of the publish"}, true
				}
				if !strings.Contains(line, "nvalid upload request") {
					return hit{}, false
				}
				return hit{class: Structural, code: CodeCargoManifest, rank: rankTool, reason: "the registry rejected the upload request: " + clip(line),
					remedy: "fix the manifest the message names, then publish again"}, true
			},
		},
		{
			// rustc's errors ("error[E0433]: failed to resolve: use of
			// undeclared crate" is no name lookup) and cargo's summary of them
			gates: []string{"[E0", "could not compile `", "failed to verify package tarball"},
			build: func(c *scanCtx, line string, _ []string) (hit, bool) {
				remedy := "fix the compile error; cargo publish builds the packaged crate on its own, so a file left out of the package or a missing dependency feature fails here even when the workspace builds"
				if m := reRustcError.FindStringSubmatch(line); m != nil {
					return hit{class: Structural, code: CodeCargoCompile, rank: rankTool, reason: "the crate does not compile: error[E0" + m[1] + "]: " + clip(m[2]), remedy: remedy}, true
				}
				if strings.Contains(line, "could not compile `") {
					return hit{class: Structural, code: CodeCargoCompile, rank: rankTool, reason: "the crate does not compile", remedy: remedy}, true
				}
				if strings.Contains(line, "failed to verify package tarball") {
					// The verification decides over what its build printed (a
					// build script's "could not resolve" is no network failure),
					// unless its cause is a download, which may pass next time.
					rank := rankTool
					below := strings.Join(followingLines(c.text, c.lineEnd, 12), "\n")
					if strings.Contains(below, "failed to download from") || strings.Contains(below, "failed to get 200 response") || strings.Contains(below, "spurious network error") {
						rank = rankMention
					}
					return hit{class: Structural, code: CodeCargoCompile, rank: rank, reason: "cargo publish's verification build of the packaged crate failed", remedy: remedy}, true
				}
				return hit{}, false
			},
		},
		{
			// a warning after a successful upload: the failure, if any, is elsewhere
			gates: []string{"to be available in registry"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "timed out waiting for") {
					return hit{}, false
				}
				return hit{class: Unknown, code: CodeCargoIndexWait, rank: rankTransport + 1, reason: "the crate was uploaded, but the registry's index did not show it in time (a warning)",
					remedy: "the publish went through: do not publish it again; publish the crates that depend on it once the index catches up (raise publish.timeout)"}, true
			},
		},
		{
			gates: []string{"not yet committed into git", "dirty files found"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeCargoDirty, rank: rankTool, reason: "the working tree has uncommitted changes, and cargo publish refuses them",
					remedy: "a step changed tracked files before publishing (a generated file, Cargo.lock, a version bump): commit them, ignore them in .gitignore, or pass --allow-dirty"}, true
			},
		},
		{
			// libcurl's timeout on the upload: crates.io cuts requests after
			// 30 s, so a large crate on a slow link fails the same way every
			// time, and the upload may also have gone through.
			gates: []string{"Timeout was reached"},
			re:    reCargoCurl28,
			build: func(c *scanCtx, line string, _ []string) (hit, bool) {
				if !cargoUploadTimeout(c, line) {
					return hit{}, false
				}
				return hit{class: Unknown, code: CodeCargoUploadTimeout, tr: trNet, rank: rankTool, reason: "the upload to the registry timed out",
					remedy: "check whether the version got published (cargo info name@version) before trying again; a crate too large to upload within crates.io's time limit needs a faster link or a smaller package (exclude files in Cargo.toml)"}, true
			},
		},
	},
}

// cargoUploadTimeout reports whether a "[28] Timeout was reached" line is
// the upload's: cargo's error itself ("error: [28] ..."), or the cause of an
// "error: failed to publish", or after an "Uploading" line with no other
// error. A download's timeout (a build fetching crates or the index: "failed
// to download", cargo's own "spurious network error" retries) is not.
func cargoUploadTimeout(c *scanCtx, line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "error: [28]") {
		return true
	}
	if strings.HasPrefix(t, "warning:") {
		return false
	}
	before := textBefore(c, len(line))
	if i := strings.LastIndex(before, "error: "); i >= 0 {
		errLine, _, _ := strings.Cut(before[i:], "\n")
		return strings.Contains(errLine, "failed to publish")
	}
	return reCargoUploading.MatchString(before)
}

// lookBehind bounds how far before a line a recogniser reads for context:
// the lines that frame an error are near it, and a bound keeps a text of
// many matching lines linear.
const lookBehind = 16 << 10

// textBefore returns up to lookBehind bytes of the text before the line
// being examined (of length n, ending at c.lineEnd); n = 0 includes it.
func textBefore(c *scanCtx, n int) string {
	end := min(max(0, c.lineEnd-n), len(c.text))
	return c.text[max(0, end-lookBehind):end]
}
