package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
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
	CodeCargoVersionExists failure.Code = "cargo-version-exists"
	CodeCargoNotOwner      failure.Code = "cargo-not-owner"
	CodeCargoTokenScope    failure.Code = "cargo-token-scope"
	CodeCargoNoToken       failure.Code = "cargo-no-token"
	CodeCargoTrustedPub    failure.Code = "cargo-trusted-publishing"
	CodeCargoEmail         failure.Code = "cargo-email-unverified"
	CodeCargoManifest      failure.Code = "cargo-manifest-rejected"
	CodeCargoDirty         failure.Code = "cargo-dirty-worktree"
	CodeCargoUploadTimeout failure.Code = "cargo-upload-timeout"
	CodeCargoIndexWait     failure.Code = "cargo-index-wait-timeout"
	CodeCargoCompile       failure.Code = "cargo-compile-failed"
)

const remedyCargoToken = "set CARGO_REGISTRY_TOKEN to a crates.io token with the publish-update (and, for a new crate, publish-new) scope, or exchange the job's OIDC token with rust-lang/crates-io-auth-action"

var (
	reCargoFrame     = failure.LazyRE(`(?:sponded with an error(?: \(status (\d{3})[^)]*\))?|api errors \(status (\d{3})[^)]*\)):?[ \t]*(.*)`)
	reCargo200       = failure.LazyRE(`ailed to get (?:a 200 OK response|200 response from \S+)(?:, got |: Response \{)(\d{3})`)
	reCargoUploaded  = failure.LazyRE("crate version [`']?([0-9][^`'\\s]*)[`']? (?:is|has) already (?:been )?uploaded")
	reCargoExistsOn  = failure.LazyRE("crate [`']?([A-Za-z0-9_-]+)@([0-9][^`'\\s]*)[`']? already exists on (.+?)\\s*$")
	reCargoPublishOf = failure.LazyRE(`(?:failed to publish|Uploading) ([A-Za-z0-9_-]+) v([0-9]\S*)`)
	reCargoTryAfter  = failure.LazyRE(`try again after (.+? GMT)`)
	reCargoFields    = failure.LazyRE(`missing or empty metadata fields: ([^.]+)`)
	reCargoAuthToken = failure.LazyRE(`ailed to retrieve token from Cargo registry\. Status: (\d{3})\.?(?: Error: (.*))?`)
	reCargoCurl28    = failure.LazyRE(`\[28\] Timeout was reached`)
	reCargoUploading = failure.LazyRE(`(?m)^\s*Uploading \S+ v\d`)
)

var cargoFamily = failure.Family{
	Tool:  failure.ToolCargo,
	Names: []string{"cargo"},
	Marks: []string{"Updating crates.io index", "registry at https://crates.io", "remote server responded with an error", "failed to get a 200 OK response", "already exists on crates.io index", "Failed to retrieve token from Cargo registry", "spurious network error ("},
	Matchers: []failure.Matcher{
		{
			// cargo's frame of the registry's answer: the message decides
			// (the other matchers name it at rankTool), else the status.
			Gates: []string{"sponded with an error", "api errors (status"},
			RE:    reCargoFrame,
			Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				status, detail := failure.Atoi(m[1]+m[2]), strings.TrimSpace(m[3])
				if status >= 400 {
					c.Facts.Status = status
				}
				if strings.Contains(strings.ToLower(detail), "authentication failed") || strings.Contains(detail, "must be logged in") {
					return failure.Hit{Class: failure.Policy, Code: failure.CodeBadCredentials, Rank: failure.RankTool, Reason: "crates.io rejected the token: " + failure.Clip(detail),
						Remedy: "the token is missing, wrong, expired or revoked: " + remedyCargoToken}, true
				}
				if status < 400 {
					return failure.Hit{}, false
				}
				h, ok := failure.StatusHit(c, status, failure.RankStatus)
				if (status == 404 || status == 410) && strings.Contains(textBefore(c, 0), "publish") {
					vd := failure.StatusVerdict(status, "PUT", c.Tool) // cargo publish is a PUT
					h = failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankStatus, Reason: vd.Reason, Remedy: vd.Remedy}
				}
				if ok && detail != "" {
					h.Reason = "the registry answered " + failure.StatusName(status) + ": " + failure.Clip(detail)
				}
				return h, ok
			},
		},
		{
			Gates: []string{"ailed to get "},
			RE:    reCargo200,
			Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				status := failure.Atoi(m[1])
				c.Facts.Status = status
				h, ok := failure.StatusHit(c, status, failure.RankStatus)
				h.Reason = "the registry answered " + h.Reason
				return h, ok
			},
		},
		{
			Gates: []string{"lready uploaded", "lready been uploaded", "lready exists on"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				name, version := "", ""
				rank := failure.RankTool
				if m := reCargoExistsOn.FindStringSubmatch(line); m != nil {
					name, version = m[1], m[2]
					if strings.HasPrefix(strings.TrimSpace(line), "warning:") {
						rank = failure.RankStatusTxt // a dry run's warning: anything else decides
					}
				} else if m := reCargoUploaded.FindStringSubmatch(line); m != nil {
					version = m[1]
					if p := reCargoPublishOf.FindStringSubmatch(textBefore(c, 0)); p != nil && p[2] == version {
						name = p[1]
					}
				} else {
					return failure.Hit{}, false
				}
				crate := failure.Clip(version)
				if name != "" {
					crate = failure.Clip(name) + " " + crate
				}
				return failure.Hit{Class: failure.Structural, Code: CodeCargoVersionExists, Rank: rank, Reason: "the registry already has " + crate,
					Remedy: "bump the version in Cargo.toml: " + crate + " is already published and a version can never be replaced; if an earlier attempt of this job uploaded it, skip this crate"}, true
			},
		},
		{
			Gates: []string{"You have published too many"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if strings.Contains(line, "in the last 24 hours") || strings.Contains(line, "versions of this crate") {
					return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool, Reason: "crates.io's daily quota of versions of this crate is spent (too many versions in the last 24 hours)",
						Remedy: "wait until the 24-hour window has passed, or email help@crates.io to raise the limit; batch fixes into fewer versions"}, true
				}
				reason := "crates.io rate limit: too many crates published in a short period"
				if strings.Contains(line, "new crates") {
					reason = "crates.io rate limit on new crates (about one every 10 minutes after a burst)"
				}
				if m := reCargoTryAfter.FindStringSubmatch(line); m != nil {
					reason += "; try again after " + failure.Clip(m[1])
				}
				return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: failure.RankTool, Reason: reason,
					Remedy: "waiting until the time crates.io named, then publishing the crates not yet uploaded; email help@crates.io to raise the limit for large workspaces"}, true
			},
		},
		{
			Gates: []string{"don't seem to be an owner", "claimed by another user"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeCargoNotOwner, Rank: failure.RankTool, Reason: "the token's user is not an owner of the crate on the registry",
					Remedy: "accept the pending owner invitation on crates.io, or have an owner add this user or team (cargo owner --add); a name owned by someone else needs a new name"}, true
			},
		},
		{
			Gates: []string{"token does not have the required permissions", "Trusted Publishing", "does not match the format used by crates.io"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "does not match the format used by crates.io"):
					return failure.Hit{Class: failure.Policy, Code: failure.CodeBadCredentials, Rank: failure.RankTool, Reason: "the token is not a crates.io token (empty, truncated or from elsewhere)",
						Remedy: remedyCargoToken}, true
				case strings.Contains(line, "only be published using Trusted Publishing"):
					return failure.Hit{Class: failure.Policy, Code: CodeCargoTokenScope, Rank: failure.RankTool, Reason: "this crate accepts new versions only through trusted publishing",
						Remedy: "exchange the job's OIDC token with rust-lang/crates-io-auth-action (permissions: id-token: write) instead of a long-lived token"}, true
				}
				if !strings.Contains(line, "token does not have the required permissions") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Policy, Code: CodeCargoTokenScope, Rank: failure.RankTool, Reason: "the crates.io token lacks the permission for this publish",
					Remedy: "use a token whose scopes cover this crate and action (publish-new for a new crate, publish-update for a new version)"}, true
			},
		},
		{
			Gates: []string{"no token found", "no upload token found", "non-empty token"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "cargo login") && !strings.Contains(line, "_TOKEN") && !strings.Contains(line, "provide a non-empty token") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Policy, Code: CodeCargoNoToken, Rank: failure.RankTool, Reason: "no registry token reached cargo",
					Remedy: "set CARGO_REGISTRY_TOKEN from a secret in the publish step's env (secrets are empty in pull requests from forks), or exchange the job's OIDC token with rust-lang/crates-io-auth-action"}, true
			},
		},
		{
			Gates: []string{"verified email address is required"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeCargoEmail, Rank: failure.RankTool, Reason: "the crates.io account has no verified email address",
					Remedy: "set and verify the email address at https://crates.io/settings/profile, then publish again"}, true
			},
		},
		{
			// rust-lang/crates-io-auth-action
			Gates: []string{"ailed to re", "Trusted Publishing config"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "token from Cargo registry") && !strings.Contains(line, "Trusted Publishing config") {
					return failure.Hit{}, false
				}
				detail := ""
				if m := reCargoAuthToken.FindStringSubmatch(line); m != nil {
					status := failure.Atoi(m[1])
					c.Facts.Status = status
					if status >= 500 || status == 429 {
						h, ok := failure.StatusHit(c, status, failure.RankTool)
						h.Reason = "trusted publishing: the registry answered the token exchange with " + h.Reason
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
					reason += ": " + failure.Clip(detail)
				}
				return failure.Hit{Class: failure.Policy, Code: CodeCargoTrustedPub, Rank: failure.RankTool, Reason: reason,
					Remedy: "add or fix the crate's trusted publisher on crates.io (Settings → Trusted Publishing) so it names this repository, workflow file and environment; a crate's first version must be published with a token"}, true
			},
		},
		{
			Gates: []string{"issing or empty metadata fields", "nvalid upload request", "have a version", "package.publish` must"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "metadata fields"):
					fields := "description, license"
					if m := reCargoFields.FindStringSubmatch(line); m != nil {
						fields = m[1]
					}
					return failure.Hit{Class: failure.Structural, Code: CodeCargoManifest, Rank: failure.RankTool, Reason: "the registry requires manifest fields that are missing: " + failure.Clip(fields),
						Remedy: "add " + failure.Clip(fields) + " to [package] in Cargo.toml, then publish again"}, true
				case strings.Contains(line, "dependencies must have a version"):
					return failure.Hit{Class: failure.Structural, Code: CodeCargoManifest, Rank: failure.RankTool, Reason: "a dependency has no version requirement (path or git only)",
						Remedy: "give every path or git dependency a version too (version = \"x.y\") and publish that dependency first"}, true
				case strings.Contains(line, "package.publish"):
					return failure.Hit{Class: failure.Structural, Code: CodeCargoManifest, Rank: failure.RankTool, Reason: "the package is marked not to be published (package.publish)",
						Remedy: "set publish = true (or list this registry) in Cargo.toml, or leave this package out of the publish"}, true
				}
				if !strings.Contains(line, "nvalid upload request") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Structural, Code: CodeCargoManifest, Rank: failure.RankTool, Reason: "the registry rejected the upload request: " + failure.Clip(line),
					Remedy: "fix the manifest the message names, then publish again"}, true
			},
		},
		{
			// rustc's errors ("error[E0433]: failed to resolve: use of
			// undeclared crate" is no name lookup) and cargo's summary of them
			Gates: []string{"[E0", "could not compile `", "failed to verify package tarball"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				remedy := "fix the compile error; cargo publish builds the packaged crate on its own, so a file left out of the package or a missing dependency feature fails here even when the workspace builds"
				if m := failure.ReRustcError.FindStringSubmatch(line); m != nil {
					return failure.Hit{Class: failure.Structural, Code: CodeCargoCompile, Rank: failure.RankTool, Reason: "the crate does not compile: error[E0" + m[1] + "]: " + failure.Clip(m[2]), Remedy: remedy}, true
				}
				if strings.Contains(line, "could not compile `") {
					return failure.Hit{Class: failure.Structural, Code: CodeCargoCompile, Rank: failure.RankTool, Reason: "the crate does not compile", Remedy: remedy}, true
				}
				if strings.Contains(line, "failed to verify package tarball") {
					// The verification decides over what its build printed (a
					// build script's "could not resolve" is no network failure),
					// unless its cause is a download, which may pass next time.
					rank := failure.RankTool
					below := strings.Join(failure.FollowingLines(c.Text, c.LineEnd, 12), "\n")
					if strings.Contains(below, "failed to download from") || strings.Contains(below, "failed to get 200 response") || strings.Contains(below, "spurious network error") {
						rank = failure.RankMention
					}
					return failure.Hit{Class: failure.Structural, Code: CodeCargoCompile, Rank: rank, Reason: "cargo publish's verification build of the packaged crate failed", Remedy: remedy}, true
				}
				return failure.Hit{}, false
			},
		},
		{
			// a warning after a successful upload: the failure, if any, is elsewhere
			Gates: []string{"to be available in registry"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "timed out waiting for") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeCargoIndexWait, Rank: failure.RankTransport + 1, Reason: "the crate was uploaded, but the registry's index did not show it in time (a warning)",
					Remedy: "the publish went through: do not publish it again; publish the crates that depend on it once the index catches up (raise publish.timeout)"}, true
			},
		},
		{
			Gates: []string{"not yet committed into git", "dirty files found"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeCargoDirty, Rank: failure.RankTool, Reason: "the working tree has uncommitted changes, and cargo publish refuses them",
					Remedy: "a step changed tracked files before publishing (a generated file, Cargo.lock, a version bump): commit them, ignore them in .gitignore, or pass --allow-dirty"}, true
			},
		},
		{
			// libcurl's timeout on the upload: crates.io cuts requests after
			// 30 s, so a large crate on a slow link fails the same way every
			// time, and the upload may also have gone through.
			Gates: []string{"Timeout was reached"},
			RE:    reCargoCurl28,
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !cargoUploadTimeout(c, line) {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeCargoUploadTimeout, Trace: failure.TrNet, Rank: failure.RankTool, Reason: "the upload to the registry timed out",
					Remedy: "check whether the version got published (cargo info name@version) before trying again; a crate too large to upload within crates.io's time limit needs a faster link or a smaller package (exclude files in Cargo.toml)"}, true
			},
		},
	},
}

// cargoUploadTimeout reports whether a "[28] Timeout was reached" line is
// the upload's: cargo's error itself ("error: [28] ..."), or the cause of an
// "error: failed to publish", or after an "Uploading" line with no other
// error. A download's timeout (a build fetching crates or the index: "failed
// to download", cargo's own "spurious network error" retries) is not.
func cargoUploadTimeout(c *failure.ScanCtx, line string) bool {
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
func textBefore(c *failure.ScanCtx, n int) string {
	end := min(max(0, c.LineEnd-n), len(c.Text))
	return c.Text[max(0, end-lookBehind):end]
}
