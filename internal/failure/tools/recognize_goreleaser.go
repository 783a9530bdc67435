package tools

import (
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
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
	CodeGoreleaserFailed       failure.Code = "goreleaser-release-failed"
	CodeGoreleaserDirty        failure.Code = "goreleaser-git-dirty"
	CodeGoreleaserTagMismatch  failure.Code = "goreleaser-tag-not-on-commit"
	CodeGoreleaserNoTag        failure.Code = "goreleaser-no-tag"
	CodeGoreleaserShallow      failure.Code = "goreleaser-shallow-clone"
	CodeGoreleaserNoGit        failure.Code = "goreleaser-git-missing"
	CodeGoreleaserNoToken      failure.Code = "goreleaser-token-missing"
	CodeGoreleaserTokens       failure.Code = "goreleaser-multiple-tokens"
	CodeGoreleaserExists       failure.Code = "goreleaser-already-exists"
	CodeGoreleaserDistNotEmpty failure.Code = "goreleaser-dist-not-empty"
	CodeGoreleaserConfig       failure.Code = "goreleaser-config-invalid"
	CodeGoreleaserUsage        failure.Code = "goreleaser-invalid-usage"
	CodeGoreleaserBuild        failure.Code = "goreleaser-build-failed"
	CodeGoreleaserNoArtifacts  failure.Code = "goreleaser-no-matching-artifacts"
	CodeGoreleaserTimeout      failure.Code = "goreleaser-timeout"
	CodeGoreleaserTapDenied    failure.Code = "goreleaser-tap-push-denied"
	CodeGoreleaserTapMissing   failure.Code = "goreleaser-tap-not-found"
)

const remedyGRUsage = "fix the goreleaser arguments for the installed version (v2 dropped --rm-dist for --clean, --skip-publish for --skip=publish), or pin the version the workflow was written for"

var (
	reGRWrapper  = failure.LazyRE(`\b(release|build|publish|announce|continue|healthcheck) failed after ([\d.]+(?:h|ms|m|s)(?:[\d.]+(?:ms|m|s))*)(?:\s+error=(.*))?|⨯ command failed\s+error=(.*)`)
	reGRExists   = failure.LazyRE(`\{Resource:(\w+) Field:(\w+) Code:already_exists`)
	reGRTag      = failure.LazyRE(`git tag (\S+) was not made against commit (\w+)`)
	reGRDist     = failure.LazyRE(`(\S+) is not empty, remove it before running goreleaser`)
	reGRYAML     = failure.LazyRE(`yaml: (?:unmarshal errors|line \d+)|field (\w+) not found in type config\.(\w+)`)
	reGRBuild    = failure.LazyRE(`(?:failed to build for (\S+?)|build failed): exit status (\d+)`)
	reGRAPIError = failure.LazyRE(`\b(PUT|POST|GET|PATCH|DELETE) (https?://\S+?):? (40[134])\b`)
	reGRTapWord  = failure.LazyRE(`(?i)\b(homebrew|brew|tap|cask|scoop|krew|winget|nur|aur)\b`)
	reGRNoArch   = failure.LazyRE(`no archives found matching criteria|one tap can handle only \S+ linux and \S+ macos archive|no linux/macos archives found|(?:build for \S+|\S+) does not contain a main function`)
	reGRRateWait = failure.LazyRE(`(?:API rate limit of \d+ still exceeded until [^,\]]+|rate limit exceeded|secondary rate limit)[^\[]*\[rate reset in (\w+)\]`)
	reGRUsage    = failure.LazyRE(`^\s*(?:Error: )?(unknown (?:shorthand )?flag: \S+|unknown command "[^"]*" for "goreleaser")`)
)

var goreleaserFamily = failure.Family{
	Tool:  failure.ToolGoreleaser,
	Names: []string{"goreleaser"},
	// every mark costs a scan of the whole text: its name (the action's
	// path, its own log) and the ⨯ of its failure lines
	Marks:    []string{"goreleaser", "⨯ "},
	Matchers: goreleaserMatchers,
}

var goreleaserMatchers = []failure.Matcher{
	// the wrapper: its cause decides
	{
		Gates: []string{"after ", "⨯ command failed"},
		RE:    reGRWrapper,
		Frame: true,
		Build: goreleaserWrapperHit,
	},

	// goreleaser's own checks
	{
		Gates: []string{"dirty state"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if !strings.Contains(line, "git is in a dirty state") && !strings.Contains(line, "git is currently in a dirty state") {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserDirty, Rank: failure.RankTool, Reason: "goreleaser: git is in a dirty state",
				Remedy: "commit the changed files or add what the pipeline generates (dist/, downloaded tools) to .gitignore; run with --snapshot for a test build"}, true
		},
	},
	{
		Gates: []string{"against commit"},
		RE:    reGRTag,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserTagMismatch, Rank: failure.RankTool, Reason: "goreleaser: git tag " + failure.Clip(m[1]) + " is not on the commit being built",
				Remedy: "release from the tagged commit: check out the tag (on: push: tags, fetch-depth: 0) or move the tag to HEAD; use --snapshot for an untagged build"}, true
		},
	},
	{
		Gates: []string{"doesn't contain any tags", "whole tree", "PATH"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if strings.Contains(line, "ignoring errors because this is a snapshot") {
				return failure.Hit{}, false
			}
			if strings.Contains(line, "refusing to run against a shallow clone") {
				return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserShallow, Rank: failure.RankTool, Reason: "goreleaser refuses a shallow clone",
					Remedy: "clone the whole history: actions/checkout with fetch-depth: 0 (or git fetch --unshallow --tags)"}, true
			}
			if strings.Contains(line, "git not present in PATH") {
				return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserNoGit, Rank: failure.RankTool, Reason: "goreleaser: git is not installed",
					Remedy: "install git in the job's image or runner before goreleaser"}, true
			}
			if !strings.Contains(line, "git doesn't contain any tags") {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserNoTag, Rank: failure.RankTool, Reason: "goreleaser: the repository has no tags",
				Remedy: "push a tag (git tag v1.2.3 && git push --tags) and fetch tags (fetch-depth: 0), or use --snapshot"}, true
		},
	},
	{
		Gates: []string{"missing GITHUB_TOKEN"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: CodeGoreleaserNoToken, Rank: failure.RankTool, Reason: "goreleaser has no GITHUB_TOKEN (nor GITLAB_TOKEN, GITEA_TOKEN)",
				Remedy: "pass the token to the step: env GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }} (with permissions: contents: write), or disable the release/publish pipes"}, true
		},
	},
	{
		Gates: []string{"multiple tokens found, but only one is allowed"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserTokens, Rank: failure.RankTool, Reason: "goreleaser found several forge tokens (only one is allowed)",
				Remedy: "set only one of GITHUB_TOKEN, GITLAB_TOKEN and GITEA_TOKEN for the step (or force one with force_token)"}, true
		},
	},
	{
		Gates: []string{":already_exists"},
		RE:    reGRExists,
		Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
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
					reason = "release asset " + failure.Clip(name) + " already exists"
				}
				return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserExists, Rank: failure.RankTool, Reason: reason,
					Remedy: "the release already has this asset (an earlier run or retry uploaded it): delete the asset or the release before running again, set release.replace_existing_artifacts: true, or release a new tag"}, true
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserExists, Rank: failure.RankTool, Reason: failure.Clip(m[1]+"."+m[2]) + " already exists",
				Remedy: "the name is already taken on the forge: delete the existing one or release under a new tag"}, true
		},
	},
	{
		Gates: []string{"before running goreleaser"},
		RE:    reGRDist,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserDistNotEmpty, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(m[1]) + " is not empty",
				Remedy: "run with --clean (--rm-dist before v1.15), and keep hooks from writing into " + failure.Clip(m[1])}, true
		},
	},
	{
		Gates: []string{"yaml: ", "type config."},
		RE:    reGRYAML,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			if strings.HasPrefix(m[0], "yaml: ") && c.Tool != failure.ToolGoreleaser && !strings.Contains(line, "error=") {
				return failure.Hit{}, false
			}
			reason := "goreleaser cannot read its configuration"
			if m[1] != "" {
				reason = "goreleaser's configuration has field " + failure.Clip(m[1]) + ", unknown to config." + failure.Clip(m[2]) + " in this version"
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserConfig, Rank: failure.RankTool, Reason: reason,
				Remedy: "fix .goreleaser.yaml (goreleaser check), or pin the goreleaser version the file is written for (version: 2 needs goreleaser v2)"}, true
		},
	},
	{
		Gates: []string{"rchives found", "handle only", "function"},
		RE:    reGRNoArch,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			if strings.HasSuffix(m[0], "main function") {
				return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserConfig, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(m[0]),
					Remedy: "point builds[].main at the package with func main (e.g. main: ./cmd/tool)"}, true
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserNoArtifacts, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(m[0]),
				Remedy: "make the archives match what the pipe needs (a tar.gz/zip per OS and arch, not format: binary), or select them with ids:"}, true
		},
	},
	{
		Gates: []string{"flag: ", "\"goreleaser\""},
		RE:    reGRUsage,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			if c.Tool != failure.ToolGoreleaser && !strings.Contains(m[1], "goreleaser") {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserUsage, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(m[1]), Remedy: remedyGRUsage}, true
		},
	},
	{
		// go-github's rate-limit errors say when the limit resets
		Gates: []string{"[rate reset in "},
		RE:    reGRRateWait,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			wait, err := time.ParseDuration(m[1])
			if err != nil || wait < 0 {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Transient, Code: failure.CodeGitHubRateLimit, Rank: failure.RankRateLimit + 1, RetryAfter: wait,
				Reason: "GitHub API rate limit exceeded, reset in " + failure.Clip(m[1]), Remedy: failure.RemedyGitHubRate}, true
		},
	},
	{
		Gates: []string{"build for ", "build failed: "},
		RE:    reGRBuild,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			reason := "goreleaser: the build failed (exit " + m[2] + ")"
			if m[1] != "" {
				reason = "goreleaser: the build for " + failure.Clip(m[1]) + " failed (exit " + m[2] + ")"
			}
			// below the network matchers: a build that failed fetching modules is theirs
			return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserBuild, Rank: failure.RankCurlCode, Reason: reason,
				Remedy: "fix the compile error in the output (goreleaser build --single-target --snapshot reproduces it)"}, true
		},
	},
	{
		Gates: []string{"PUT http", "POST http", "PATCH http", "GET http", "DELETE http"},
		RE:    reGRAPIError,
		Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			// a write to a tap, bucket or manifest repository: the pipe's name
			// comes before the request, or the repository names it
			end := strings.Index(line, m[0]) + len(m[0])
			w := reGRTapWord.FindStringSubmatch(line[:max(end, 0)])
			if w == nil || failure.ReRateLimit.MatchString(line) || strings.Contains(line, "[rate reset in ") {
				return failure.Hit{}, false // a rate limit's 403 is the rate-limit matcher's
			}
			repo := ghRepoOf(m[2])
			switch {
			case m[3] == "404" && !failure.IsLookup(m[1]):
				return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserTapMissing, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(m[1]) + " to the " + strings.ToLower(w[1]) + " repository " + repo + " answered 404",
					Remedy: "create the tap repository " + repo + ", or give the tap token write access to it (GitHub answers 404 to a token that cannot see a private repository)"}, true
			case m[3] == "404":
				return failure.Hit{}, false // a lookup's 404: the HTTP matchers' absent
			}
			return failure.Hit{Class: failure.Policy, Code: CodeGoreleaserTapDenied, Rank: failure.RankTool, Reason: "goreleaser may not write to the " + strings.ToLower(w[1]) + " repository " + repo + " (" + m[3] + ")",
				Remedy: "the workflow's GITHUB_TOKEN only reaches its own repository: give the tap its own token (a PAT or GitHub App token with contents: write on " + repo + ", e.g. repository.token: \"{{ .Env.TAP_GITHUB_TOKEN }}\")"}, true
		},
	},
}

// goreleaserWrapperHit classifies the cause the wrapper carries: on its line
// after "error=", or on the lines after it (goreleaser v2).
func goreleaserWrapperHit(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
	msg := strings.TrimSpace(m[3] + m[4])
	var best failure.Hit
	found := false
	if msg != "" {
		best, found = c.Phrase(msg)
	}
	if !found || best.Rank < failure.RankTransport {
		for _, l := range failure.FollowingLines(c.Text, c.LineEnd, 12) {
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
			if h, ok := c.Phrase(t); ok && (!found || failure.Better(h, best)) {
				best, found = h, true
			}
		}
	}
	if d, err := time.ParseDuration(m[2]); err == nil && d >= 5*time.Minute && isBareDeadline(msg) {
		return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserTimeout, Rank: failure.RankTool, Reason: "goreleaser stopped at its --timeout after " + failure.Clip(m[2]),
			Remedy: "the whole run hit goreleaser's --timeout (30m by default): raise it (--timeout 60m), or build fewer targets per run"}, true
	}
	if found && best.Class != failure.Unknown {
		if !strings.HasPrefix(best.Reason, "goreleaser") {
			best.Reason = "goreleaser " + goreleaserStep(m) + " failed: " + best.Reason
		}
		if best.Class != failure.Transient {
			// the cause goreleaser gave up on beats the same kind on the lines before it
			best.Rank = max(best.Rank, failure.RankStatus) + 1
		}
		return best, true
	}
	if strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown shorthand flag") {
		return failure.Hit{Class: failure.Structural, Code: CodeGoreleaserUsage, Rank: failure.RankTool, Reason: "goreleaser: " + failure.Clip(msg), Remedy: remedyGRUsage}, true
	}
	if msg == "" {
		return failure.Hit{}, false
	}
	return failure.Hit{Class: failure.Unknown, Code: CodeGoreleaserFailed, Rank: failure.RankMention, Reason: "goreleaser " + goreleaserStep(m) + " failed: " + failure.Clip(msg),
		Remedy: "read goreleaser's error; add --retry-on or --stop-on if this failure recurs"}, true
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
			return failure.Clip(parts[0] + "/" + strings.TrimSuffix(parts[1], ":"))
		}
	}
	return failure.HostOf(rawURL)
}
