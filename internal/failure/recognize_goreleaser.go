package failure

import (
	"strings"
	"time"
)

// goreleaser's failures. Its last line is the wrapper "⨯ release failed
// after 51s  error=<cause>" (goreleaser v2 puts the cause on the lines after
// an empty "error=", behind "│"); the same wrapper carries every cause, so
// the cause decides: its own checks (a dirty git state, a tag not on HEAD, a
// missing token, a non-empty dist), a config it cannot read, a build that
// failed, or a GitHub API answer in go-github's form "PUT <url>: 403
// Resource not accessible by integration []", whose status the HTTP matchers
// read with its verb. A cause that is not recognised leaves the failure
// unknown.

// goreleaser's codes.
const (
	CodeGoreleaserFailed       Code = "goreleaser-release-failed"
	CodeGoreleaserDirty        Code = "goreleaser-git-dirty"
	CodeGoreleaserTagMismatch  Code = "goreleaser-tag-not-on-commit"
	CodeGoreleaserNoTag        Code = "goreleaser-no-tag"
	CodeGoreleaserShallow      Code = "goreleaser-shallow-clone"
	CodeGoreleaserNoGit        Code = "goreleaser-git-missing"
	CodeGoreleaserNoToken      Code = "goreleaser-token-missing"
	CodeGoreleaserTokens       Code = "goreleaser-multiple-tokens"
	CodeGoreleaserExists       Code = "goreleaser-already-exists"
	CodeGoreleaserDistNotEmpty Code = "goreleaser-dist-not-empty"
	CodeGoreleaserConfig       Code = "goreleaser-config-invalid"
	CodeGoreleaserUsage        Code = "goreleaser-invalid-usage"
	CodeGoreleaserBuild        Code = "goreleaser-build-failed"
	CodeGoreleaserNoArtifacts  Code = "goreleaser-no-matching-artifacts"
	CodeGoreleaserTimeout      Code = "goreleaser-timeout"
	CodeGoreleaserTapDenied    Code = "goreleaser-tap-push-denied"
	CodeGoreleaserTapMissing   Code = "goreleaser-tap-not-found"
)

const remedyGRUsage = "fix the goreleaser arguments for the installed version (v2 dropped --rm-dist for --clean, --skip-publish for --skip=publish), or pin the version the workflow was written for"

var (
	reGRWrapper  = lazyRE(`\b(release|build|publish|announce|continue|healthcheck) failed after ([\d.]+(?:h|ms|m|s)(?:[\d.]+(?:ms|m|s))*)(?:\s+error=(.*))?|⨯ command failed\s+error=(.*)`)
	reGRExists   = lazyRE(`\{Resource:(\w+) Field:(\w+) Code:already_exists`)
	reGRTag      = lazyRE(`git tag (\S+) was not made against commit (\w+)`)
	reGRDist     = lazyRE(`(\S+) is not empty, remove it before running goreleaser`)
	reGRYAML     = lazyRE(`yaml: (?:unmarshal errors|line \d+)|field (\w+) not found in type config\.(\w+)`)
	reGRBuild    = lazyRE(`(?:failed to build for (\S+?)|build failed): exit status (\d+)`)
	reGRAPIError = lazyRE(`\b(PUT|POST|GET|PATCH|DELETE) (https?://\S+?):? (40[134])\b`)
	reGRTapWord  = lazyRE(`(?i)\b(homebrew|brew|tap|cask|scoop|krew|winget|nur|aur)\b`)
	reGRNoArch   = lazyRE(`no archives found matching criteria|one tap can handle only \S+ linux and \S+ macos archive|no linux/macos archives found|(?:build for \S+|\S+) does not contain a main function`)
	reGRRateWait = lazyRE(`(?:API rate limit of \d+ still exceeded until [^,\]]+|rate limit exceeded|secondary rate limit)[^\[]*\[rate reset in (\w+)\]`)
	reGRUsage    = lazyRE(`^\s*(?:Error: )?(unknown (?:shorthand )?flag: \S+|unknown command "[^"]*" for "goreleaser")`)
)

var goreleaserFamily = family{
	tool:  ToolGoreleaser,
	names: []string{"goreleaser"},
	// every mark costs a scan of the whole text: its name (the action's
	// path, its own log) and the ⨯ of its failure lines
	marks:    []string{"goreleaser", "⨯ "},
	matchers: goreleaserMatchers,
}

var goreleaserMatchers = []matcher{
	// the wrapper: its cause decides
	{
		gates: []string{"after ", "⨯ command failed"},
		re:    reGRWrapper,
		frame: true,
		build: goreleaserWrapperHit,
	},

	// goreleaser's own checks
	{
		gates: []string{"dirty state"},
		build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
			if !strings.Contains(line, "git is in a dirty state") && !strings.Contains(line, "git is currently in a dirty state") {
				return hit{}, false
			}
			return hit{class: Structural, code: CodeGoreleaserDirty, rank: rankTool, reason: "goreleaser: git is in a dirty state",
				remedy: "commit the changed files or add what the pipeline generates (dist/, downloaded tools) to .gitignore; run with --snapshot for a test build"}, true
		},
	},
	{
		gates: []string{"against commit"},
		re:    reGRTag,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGoreleaserTagMismatch, rank: rankTool, reason: "goreleaser: git tag " + clip(m[1]) + " is not on the commit being built",
				remedy: "release from the tagged commit: check out the tag (on: push: tags, fetch-depth: 0) or move the tag to HEAD; use --snapshot for an untagged build"}, true
		},
	},
	{
		gates: []string{"doesn't contain any tags", "whole tree", "PATH"},
		build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
			if strings.Contains(line, "ignoring errors because this is a snapshot") {
				return hit{}, false
			}
			if strings.Contains(line, "refusing to run against a shallow clone") {
				return hit{class: Structural, code: CodeGoreleaserShallow, rank: rankTool, reason: "goreleaser refuses a shallow clone",
					remedy: "clone the whole history: actions/checkout with fetch-depth: 0 (or git fetch --unshallow --tags)"}, true
			}
			if strings.Contains(line, "git not present in PATH") {
				return hit{class: Structural, code: CodeGoreleaserNoGit, rank: rankTool, reason: "goreleaser: git is not installed",
					remedy: "install git in the job's image or runner before goreleaser"}, true
			}
			if !strings.Contains(line, "git doesn't contain any tags") {
				return hit{}, false
			}
			return hit{class: Structural, code: CodeGoreleaserNoTag, rank: rankTool, reason: "goreleaser: the repository has no tags",
				remedy: "push a tag (git tag v1.2.3 && git push --tags) and fetch tags (fetch-depth: 0), or use --snapshot"}, true
		},
	},
	{
		gates: []string{"missing GITHUB_TOKEN"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGoreleaserNoToken, rank: rankTool, reason: "goreleaser has no GITHUB_TOKEN (nor GITLAB_TOKEN, GITEA_TOKEN)",
				remedy: "pass the token to the step: env GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }} (with permissions: contents: write), or disable the release/publish pipes"}, true
		},
	},
	{
		gates: []string{"multiple tokens found, but only one is allowed"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Structural, code: CodeGoreleaserTokens, rank: rankTool, reason: "goreleaser found several forge tokens (only one is allowed)",
				remedy: "set only one of GITHUB_TOKEN, GITLAB_TOKEN and GITEA_TOKEN for the step (or force one with force_token)"}, true
		},
	},
	{
		gates: []string{":already_exists"},
		re:    reGRExists,
		build: func(_ *scanCtx, line string, m []string) (hit, bool) {
			if m[1] == "ReleaseAsset" {
				name := ""
				if i := strings.Index(line, "?name="); i >= 0 {
					name = line[i+6:]
					if j := strings.IndexAny(name, ":& "); j >= 0 {
						name = name[:j]
					}
				}
				reason := "a release asset with that name already exists"
				if name != "" {
					reason = "release asset " + clip(name) + " already exists"
				}
				return hit{class: Structural, code: CodeGoreleaserExists, rank: rankTool, reason: reason,
					remedy: "the release already has this asset (an earlier run or retry uploaded it): delete the asset or the release before running again, set release.replace_existing_artifacts: true, or release a new tag"}, true
			}
			return hit{class: Structural, code: CodeGoreleaserExists, rank: rankTool, reason: clip(m[1]+"."+m[2]) + " already exists",
				remedy: "the name is already taken on the forge: delete the existing one or release under a new tag"}, true
		},
	},
	{
		gates: []string{"before running goreleaser"},
		re:    reGRDist,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGoreleaserDistNotEmpty, rank: rankTool, reason: "goreleaser: " + clip(m[1]) + " is not empty",
				remedy: "run with --clean (--rm-dist before v1.15), and keep hooks from writing into " + clip(m[1])}, true
		},
	},
	{
		gates: []string{"yaml: ", "type config."},
		re:    reGRYAML,
		build: func(c *scanCtx, line string, m []string) (hit, bool) {
			if strings.HasPrefix(m[0], "yaml: ") && c.tool != ToolGoreleaser && !strings.Contains(line, "error=") {
				return hit{}, false
			}
			reason := "goreleaser cannot read its configuration"
			if m[1] != "" {
				reason = "goreleaser's configuration has field " + clip(m[1]) + ", unknown to config." + clip(m[2]) + " in this version"
			}
			return hit{class: Structural, code: CodeGoreleaserConfig, rank: rankTool, reason: reason,
				remedy: "fix .goreleaser.yaml (goreleaser check), or pin the goreleaser version the file is written for (version: 2 needs goreleaser v2)"}, true
		},
	},
	{
		gates: []string{"rchives found", "handle only", "function"},
		re:    reGRNoArch,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			if strings.HasSuffix(m[0], "main function") {
				return hit{class: Structural, code: CodeGoreleaserConfig, rank: rankTool, reason: "goreleaser: " + clip(m[0]),
					remedy: "point builds[].main at the package with func main (e.g. main: ./cmd/tool)"}, true
			}
			return hit{class: Structural, code: CodeGoreleaserNoArtifacts, rank: rankTool, reason: "goreleaser: " + clip(m[0]),
				remedy: "make the archives match what the pipe needs (a tar.gz/zip per OS and arch, not format: binary), or select them with ids:"}, true
		},
	},
	{
		gates: []string{"flag: ", "\"goreleaser\""},
		re:    reGRUsage,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			if c.tool != ToolGoreleaser && !strings.Contains(m[1], "goreleaser") {
				return hit{}, false
			}
			return hit{class: Structural, code: CodeGoreleaserUsage, rank: rankTool, reason: "goreleaser: " + clip(m[1]), remedy: remedyGRUsage}, true
		},
	},
	{
		// go-github's rate-limit errors say when the limit resets
		gates: []string{"[rate reset in "},
		re:    reGRRateWait,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			wait, err := time.ParseDuration(m[1])
			if err != nil || wait < 0 {
				return hit{}, false
			}
			return hit{class: Transient, code: CodeGitHubRateLimit, rank: rankRateLimit + 1, retryAfter: wait,
				reason: "GitHub API rate limit exceeded, reset in " + clip(m[1]), remedy: remedyGitHubRate}, true
		},
	},
	{
		gates: []string{"build for ", "build failed: "},
		re:    reGRBuild,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			reason := "goreleaser: the build failed (exit " + m[2] + ")"
			if m[1] != "" {
				reason = "goreleaser: the build for " + clip(m[1]) + " failed (exit " + m[2] + ")"
			}
			// below the network matchers: a build that failed fetching modules is theirs
			return hit{class: Structural, code: CodeGoreleaserBuild, rank: rankCurlCode, reason: reason,
				remedy: "fix the compile error in the output (goreleaser build --single-target --snapshot reproduces it)"}, true
		},
	},
	{
		gates: []string{"PUT http", "POST http", "PATCH http", "GET http", "DELETE http"},
		re:    reGRAPIError,
		build: func(_ *scanCtx, line string, m []string) (hit, bool) {
			// a write to a tap, bucket or manifest repository: the pipe's name
			// comes before the request, or the repository names it
			end := strings.Index(line, m[0]) + len(m[0])
			w := reGRTapWord.FindStringSubmatch(line[:max(end, 0)])
			if w == nil || reRateLimit.MatchString(line) || strings.Contains(line, "[rate reset in ") {
				return hit{}, false // a rate limit's 403 is the rate-limit matcher's
			}
			repo := ghRepoOf(m[2])
			switch {
			case m[3] == "404" && !isLookup(m[1]):
				return hit{class: Structural, code: CodeGoreleaserTapMissing, rank: rankTool, reason: "goreleaser: " + clip(m[1]) + " to the " + strings.ToLower(w[1]) + " repository " + repo + " answered 404",
					remedy: "create the tap repository " + repo + ", or give the tap token write access to it (GitHub answers 404 to a token that cannot see a private repository)"}, true
			case m[3] == "404":
				return hit{}, false // a lookup's 404: the HTTP matchers' absent
			}
			return hit{class: Policy, code: CodeGoreleaserTapDenied, rank: rankTool, reason: "goreleaser may not write to the " + strings.ToLower(w[1]) + " repository " + repo + " (" + m[3] + ")",
				remedy: "the workflow's GITHUB_TOKEN only reaches its own repository: give the tap its own token (a PAT or GitHub App token with contents: write on " + repo + ", e.g. repository.token: \"{{ .Env.TAP_GITHUB_TOKEN }}\")"}, true
		},
	},
}

// goreleaserWrapperHit classifies the cause the wrapper carries: on its line
// after "error=", or on the lines after it (goreleaser v2).
func goreleaserWrapperHit(c *scanCtx, _ string, m []string) (hit, bool) {
	msg := strings.TrimSpace(m[3] + m[4])
	var best hit
	found := false
	if msg != "" {
		best, found = c.phrase(msg)
	}
	if !found || best.rank < rankTransport {
		for _, l := range followingLines(c.text, c.lineEnd, 12) {
			t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "Error:"))
			if strings.HasPrefix(t, "•") || strings.HasPrefix(t, "⨯") || strings.HasPrefix(t, "The process ") || strings.HasPrefix(t, "Process completed") {
				break
			}
			t = strings.TrimLeft(t, "│ *\t")
			if t == "" || t == "error=" {
				continue
			}
			if msg == "" {
				msg = strings.TrimPrefix(t, "error=")
			}
			if h, ok := c.phrase(t); ok && (!found || better(h, best)) {
				best, found = h, true
			}
		}
	}
	if d, err := time.ParseDuration(m[2]); err == nil && d >= 5*time.Minute && isBareDeadline(msg) {
		return hit{class: Structural, code: CodeGoreleaserTimeout, rank: rankTool, reason: "goreleaser stopped at its --timeout after " + clip(m[2]),
			remedy: "the whole run hit goreleaser's --timeout (30m by default): raise it (--timeout 60m), or build fewer targets per run"}, true
	}
	if found && best.class != Unknown {
		if !strings.HasPrefix(best.reason, "goreleaser") {
			best.reason = "goreleaser " + goreleaserStep(m) + " failed: " + best.reason
		}
		if best.class != Transient {
			// the cause goreleaser gave up on beats the same kind on the lines before it
			best.rank = max(best.rank, rankStatus) + 1
		}
		return best, true
	}
	if strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown shorthand flag") {
		return hit{class: Structural, code: CodeGoreleaserUsage, rank: rankTool, reason: "goreleaser: " + clip(msg), remedy: remedyGRUsage}, true
	}
	if msg == "" {
		return hit{}, false
	}
	return hit{class: Unknown, code: CodeGoreleaserFailed, rank: rankMention, reason: "goreleaser " + goreleaserStep(m) + " failed: " + clip(msg),
		remedy: "read goreleaser's error; add --retry-on or --stop-on if this failure recurs"}, true
}

func goreleaserStep(m []string) string {
	if m[1] != "" {
		return m[1]
	}
	return "command"
}

// isBareDeadline reports whether a cause is the run's own context expiring,
// not a request's timeout (which names its URL or Client.Timeout).
func isBareDeadline(msg string) bool {
	return strings.HasSuffix(strings.TrimSpace(msg), "context deadline exceeded") && !strings.Contains(msg, "://") && !strings.Contains(msg, "Client.Timeout")
}

// ghRepoOf returns "owner/repo" of a GitHub API URL, or the URL's host.
func ghRepoOf(rawURL string) string {
	if _, rest, ok := strings.Cut(rawURL, "/repos/"); ok {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) >= 2 {
			return clip(parts[0] + "/" + strings.TrimSuffix(parts[1], ":"))
		}
	}
	return hostOf(rawURL)
}
