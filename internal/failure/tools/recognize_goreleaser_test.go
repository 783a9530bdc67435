package tools

import (
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestGoreleaserFailures(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "dirty state", tool: failure.ToolAuto, exit: 1,
			text:  "  ⨯ release failed after 0s                  error=git is in a dirty state\nPlease check in your pipeline what can be changing the following files:\n?? dist/\n",
			class: failure.Structural, code: CodeGoreleaserDirty, remedy: ".gitignore",
		},
		{
			name: "dirty state, older wording", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 1.90s error=git is currently in a dirty state:\n M go.mod\n M go.sum\n",
			class: failure.Structural, code: CodeGoreleaserDirty,
		},
		{
			name: "tag not on HEAD", tool: failure.ToolAuto,
			text:  "  ⨯ release failed after 0s   error=git tag v0.3.5 was not made against commit cd5b3c9c444dac46caed70340dd7a98f11de0438",
			class: failure.Structural, code: CodeGoreleaserTagMismatch, reason: "v0.3.5", remedy: "fetch-depth: 0",
		},
		{
			name: "no tags", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 0.02s error=git doesn't contain any tags. Either add a tag or use --snapshot",
			class: failure.Structural, code: CodeGoreleaserNoTag,
		},
		{
			name: "shallow clone", tool: failure.ToolAuto,
			text:  "⨯ release failed after 0s error=refusing to run against a shallow clone, please make sure to clone the whole tree",
			class: failure.Structural, code: CodeGoreleaserShallow, remedy: "fetch-depth: 0",
		},
		{
			name: "no git", tool: failure.ToolAuto,
			text:  "⨯ release failed after 0s error=git not present in PATH",
			class: failure.Structural, code: CodeGoreleaserNoGit,
		},
		{
			name: "no token", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 0.06s error=missing GITHUB_TOKEN, GITLAB_TOKEN and GITEA_TOKEN",
			class: failure.Policy, code: CodeGoreleaserNoToken, remedy: "GITHUB_TOKEN",
		},
		{
			name: "several tokens", tool: failure.ToolAuto,
			text:  "⨯ release failed after 0s error=multiple tokens found, but only one is allowed: GITHUB_TOKEN, GITLAB_TOKEN\n\nLearn more at https://goreleaser.com/errors/multiple-tokens\n",
			class: failure.Structural, code: CodeGoreleaserTokens,
		},
		{
			name: "asset exists", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 86.81s error=github/gitlab/gitea releases: failed to publish artifacts: failed to upload app after 1 tries: POST https://uploads.github.com/repos/o/r/releases/50153692/assets?name=app_2.1.2_Linux_x86_64.tar.gz: 422 Validation Failed [{Resource:ReleaseAsset Field:name Code:already_exists Message:}]",
			class: failure.Structural, code: CodeGoreleaserExists, reason: "app_2.1.2_Linux_x86_64.tar.gz already exists", remedy: "replace_existing_artifacts",
		},
		{
			name: "the final cause beats the retries before it", tool: failure.ToolAuto,
			text: "   • failed to upload artifact, will retry artifact=a.zip error=POST https://uploads.github.com/repos/o/r/releases/1/assets?name=a.zip: 422 Validation Failed [{Resource:ReleaseAsset Field:name Code:already_exists Message:}] try=3\n" +
				"   ⨯ release failed after 12s error=github/gitlab/gitea releases: failed to publish artifacts: failed to upload checksums.txt after 1 tries: POST https://uploads.github.com/repos/o/r/releases/1/assets?name=checksums.txt: 422 Validation Failed [{Resource:ReleaseAsset Field:name Code:already_exists Message:}]\n",
			class: failure.Structural, code: CodeGoreleaserExists, reason: "checksums.txt already exists",
		},
		{
			name: "tap push refused", tool: failure.ToolAuto, exit: 1,
			text:  "⨯ release failed after 51s   error=homebrew tap formula: failed to publish artifacts: PUT https://api.github.com/repos/acme/homebrew-tap/contents/Formula/tool.rb: 403 Resource not accessible by integration []\nError: Process completed with exit code 1.\n",
			class: failure.Policy, code: CodeGoreleaserTapDenied, reason: "acme/homebrew-tap", remedy: "TAP_GITHUB_TOKEN",
		},
		{
			name: "scoop bucket with a bad token", tool: failure.ToolAuto,
			text:  "⨯ release failed after 9s error=scoop manifests: failed to publish artifacts: PUT https://api.github.com/repos/o/scoop-bucket/contents/x.json: 401 Bad credentials []",
			class: failure.Policy, code: CodeGoreleaserTapDenied, reason: "scoop",
		},
		{
			name: "tap repository named only in the URL", tool: failure.ToolAuto,
			text:  "release failed after 16.34s error=PUT https://api.github.com/repos/acme/homebrew-tap/contents/tool.rb: 404 Not Found []",
			class: failure.Structural, code: CodeGoreleaserTapMissing, remedy: "create the tap repository acme/homebrew-tap",
		},
		{
			name: "a tap lookup's 404 is absent", tool: failure.ToolAuto,
			text:  "⨯ release failed after 7s\nerror=\n│ 1 error occurred:\n│     * homebrew cask: could not get default branch: GET https://api.github.com/repos/acme/homebrew-tap: 404 Not Found []\n",
			class: failure.Absent, code: failure.HTTPCode(404), reason: "goreleaser release failed",
		},
		{
			name: "the release pipe's 403", tool: failure.ToolAuto,
			text:  "⨯ release failed after 9s error=github/gitlab/gitea releases: failed to publish artifacts: POST https://api.github.com/repos/o/r/releases: 403 Resource not accessible by integration []",
			class: failure.Policy, code: failure.CodeNotAccessible, reason: "goreleaser release failed",
		},
		{
			name: "a 502 from the API is the server's", tool: failure.ToolAuto,
			text:  "⨯ release failed after 2s error=github/gitlab/gitea releases: failed to publish artifacts: POST https://api.github.com/repos/o/r/releases: 502 Bad Gateway []",
			class: failure.Transient, code: failure.HTTPCode(502),
		},
		{
			name: "a tap push's rate limit is a rate limit", tool: failure.ToolAuto,
			text:  "⨯ release failed after 3s error=homebrew tap formula: failed to publish artifacts: PUT https://api.github.com/repos/acme/homebrew-tap/contents/Formula/tool.rb: 403 API rate limit exceeded for installation ID 1. [rate reset in 32m10s]",
			class: failure.Transient, code: failure.CodeGitHubRateLimit, reason: "reset in 32m10s", retryAfter: 32*time.Minute + 10*time.Second,
		},
		{
			name: "go-github's own rate-limit check", tool: failure.ToolAuto,
			text:  "⨯ release failed after 1s error=GET https://api.github.com/repos/o/r/releases/tags/v1.2.3: 403 API rate limit of 5000 still exceeded until 2024-05-01 10:11:12 +0000 UTC, not making remote request. [rate reset in 9m3s]",
			class: failure.Transient, code: failure.CodeGitHubRateLimit, retryAfter: 9*time.Minute + 3*time.Second,
		},
		{
			name: "dist not empty", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 0.43s error=dist is not empty, remove it before running goreleaser or use the --rm-dist flag",
			class: failure.Structural, code: CodeGoreleaserDistNotEmpty, remedy: "--clean",
		},
		{
			name: "config field unknown", tool: failure.ToolAuto,
			text:  "  ⨯ release failed after 0s   error=yaml: unmarshal errors:\n  line 102: field version_template not found in type config.Snapshot\n",
			class: failure.Structural, code: CodeGoreleaserConfig,
		},
		{
			name: "no main function", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 0.12s error=build for tool does not contain a main function",
			class: failure.Structural, code: CodeGoreleaserConfig, remedy: "builds[].main",
		},
		{
			name: "no archives for brew", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 57.40s error=homebrew tap formula: failed to publish artifacts: no linux/macos archives found",
			class: failure.Structural, code: CodeGoreleaserNoArtifacts,
		},
		{
			name: "a compile error (v2 layout)", tool: failure.ToolAuto, exit: 1,
			text:  "  ⨯ release failed after 1m44s\n    error=\n    │ build failed: exit status 1: # command-line-arguments\nError:     │ cmd/tool/main.go:13:58: undefined: signals\n    target=darwin_arm64_v8.0\n",
			class: failure.Structural, code: CodeGoreleaserBuild,
		},
		{
			name: "a build that failed fetching modules is the network's", tool: failure.ToolAuto,
			text:  "⨯ release failed after 40s error=failed to build for linux_amd64: exit status 1: go: github.com/x/y@v1.2.3: Get \"https://proxy.golang.org/github.com/x/y/@v/v1.2.3.mod\": dial tcp: lookup proxy.golang.org: i/o timeout",
			class: failure.Transient, code: failure.CodeTimeout,
		},
		{
			name: "a removed flag", tool: failure.ToolAuto, exit: 1,
			text:  "/opt/hostedtoolcache/goreleaser-action/2.2.0/x64/goreleaser release --rm-dist\n  ⨯ command failed     error=unknown flag: --rm-dist\n",
			class: failure.Structural, code: CodeGoreleaserUsage, remedy: "--clean",
		},
		{
			name: "a removed flag without the log prefix", tool: failure.ToolAuto, exit: 1,
			text:  "/opt/hostedtoolcache/goreleaser-action/2.11.2/x64/goreleaser release --rm-dist\nunknown flag: --rm-dist\n",
			class: failure.Structural, code: CodeGoreleaserUsage,
		},
		{
			name: "the run's own --timeout", tool: failure.ToolAuto,
			text:  "   ⨯ release failed after 30m0s error=context deadline exceeded",
			class: failure.Structural, code: CodeGoreleaserTimeout, remedy: "--timeout",
		},
		{
			name: "a request's timeout is the network's", tool: failure.ToolAuto,
			text:  "⨯ release failed after 3s error=Post \"https://uploads.github.com/repos/o/r/releases/1/assets?name=a.zip\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
			class: failure.Transient, code: failure.CodeTimeout,
		},
		{
			name: "an unrecognised cause stays unknown", tool: failure.ToolAuto,
			text:  "  ⨯ release failed after 2s   error=scm releases: failed to publish artifacts: token is required",
			class: failure.Unknown, code: CodeGoreleaserFailed, reason: "token is required",
		},

		// near misses
		{
			name: "the snapshot notice is no failure", tool: failure.ToolAuto,
			text:  "      • ignoring errors because this is a snapshot error=git doesn't contain any tags. Either add a tag or use --snapshot",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "the v2 config notice is no failure", tool: failure.ToolAuto,
			text:  "  • only version: 2 configuration files are supported, yours is version: 0, please update your configuration",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "failed after without a duration", tool: failure.ToolAuto,
			text:  "The release failed after review by the team",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "another tool's unknown flag", tool: failure.ToolAuto,
			text:  "unknown flag: --foo",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a YAML error from another tool", tool: failure.ToolAuto,
			text:  "error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
	})
}

// goreleaser's tap answer decides over a bare --status 403.
func TestGoreleaserStatusAnswer(t *testing.T) {
	f := failure.Classify(failure.Input{Status: 403, Text: "⨯ release failed after 51s error=homebrew tap formula: failed to publish artifacts: PUT https://api.github.com/repos/acme/homebrew-tap/contents/Formula/tool.rb: 403 Resource not accessible by integration []", ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Policy, CodeGoreleaserTapDenied, "acme/homebrew-tap", "", nil)
}

func TestGoreleaserDetected(t *testing.T) {
	for _, text := range []string{
		"  ⨯ release failed after 0s error=git is in a dirty state",
		"/opt/hostedtoolcache/goreleaser-action/2.2.0/x64/goreleaser release --clean",
	} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != failure.ToolGoreleaser {
			t.Errorf("detectTool(%q) = %q, want goreleaser", text, got)
		}
	}
}
