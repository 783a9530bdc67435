package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestGHFailures(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "release asset exists under a 422", tool: failure.ToolAuto,
			text:  "HTTP 422: Validation Failed (https://uploads.github.com/repos/o/r/releases/1/assets?label=&name=app.tar.gz)\nReleaseAsset.name already exists\n",
			class: failure.Structural, code: CodeGHAlreadyExists, reason: "release asset app.tar.gz already exists", remedy: "--clobber",
			evidence: []string{"HTTP 422: Validation Failed", "ReleaseAsset.name already exists"},
		},
		{
			name: "release for the tag exists", tool: failure.ToolAuto,
			text:  "HTTP 422: Validation Failed (https://api.github.com/repos/o/r/releases)\nRelease.tag_name already exists\n",
			class: failure.Structural, code: CodeGHAlreadyExists, reason: "a release for that tag already exists", remedy: "gh release upload",
		},
		{
			name: "a ref that exists, one message", tool: failure.ToolAuto,
			text:  "HTTP 422: Reference already exists (https://api.github.com/repos/o/r/git/refs)",
			class: failure.Structural, code: CodeGHAlreadyExists, reason: "Reference already exists",
		},
		{
			name: "gh's own release check", tool: failure.ToolGH,
			text:  "a release with the same tag name already exists: v1.2.3",
			class: failure.Structural, code: CodeGHAlreadyExists, reason: "a release for tag v1.2.3 already exists",
		},
		{
			name: "gh's own asset check", tool: failure.ToolAuto,
			text:  "asset under the same name already exists: [app-linux-amd64.tar.gz]",
			class: failure.Structural, code: CodeGHAlreadyExists, reason: "release asset app-linux-amd64.tar.gz already exists", remedy: "--clobber",
		},
		{
			name: "no GH_TOKEN in Actions", tool: failure.ToolAuto, exit: 4,
			text:  "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable. Example:\n  env:\n    GH_TOKEN: ${{ github.token }}\n",
			class: failure.Policy, code: CodeGHAuthRequired, reason: "GH_TOKEN is not set", remedy: "GH_TOKEN: ${{ github.token }}",
		},
		{
			name: "not logged in", tool: failure.ToolAuto, exit: 4,
			text:  "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.\n",
			class: failure.Policy, code: CodeGHAuthRequired, reason: "gh has no token",
		},
		{
			name: "403 not accessible names the permission", tool: failure.ToolAuto,
			text:  "HTTP 403: Resource not accessible by integration (https://api.github.com/repos/o/r/releases)",
			class: failure.Policy, code: failure.CodeNotAccessible, reason: "gh: HTTP 403 Forbidden", remedy: "contents: write",
		},
		{
			name: "403 on a merge names pull-requests", tool: failure.ToolAuto,
			text:  "HTTP 403: Resource not accessible by integration (https://api.github.com/repos/o/r/pulls/5/merge)",
			class: failure.Policy, code: failure.CodeNotAccessible, remedy: "pull-requests: write",
		},
		{
			name: "401 bad credentials", tool: failure.ToolAuto,
			text:  "HTTP 401: Bad credentials (https://api.github.com/graphql)\nTry authenticating with:  gh auth login\n",
			class: failure.Policy, code: failure.CodeBadCredentials, reason: "HTTP 401",
		},
		{
			name: "404 on a lookup is an answer", tool: failure.ToolAuto,
			text:  "HTTP 404: Not Found (https://api.github.com/repos/o/r/releases/tags/v9)",
			class: failure.Absent, code: failure.HTTPCode(404), reason: "gh: HTTP 404 Not Found", remedy: "private repository",
		},
		{
			name: "gh api's 404", tool: failure.ToolAuto,
			text:  "{\n  \"message\": \"Not Found\"\n}\ngh: Not Found (HTTP 404)",
			class: failure.Absent, code: failure.HTTPCode(404),
		},
		{
			name: "404 on an upload is not an absence", tool: failure.ToolAuto,
			text:  "HTTP 404: Not Found (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)",
			class: failure.Structural, code: CodeGHTargetMissing, reason: "release asset upload", remedy: "private repository answers 404",
		},
		{
			name: "404 on a release create", tool: failure.ToolAuto,
			text:  "HTTP 404: Not Found (https://api.github.com/repos/o/private/releases)",
			class: failure.Structural, code: CodeGHTargetMissing,
		},
		{
			name: "502 with gh's non-JSON message", tool: failure.ToolAuto,
			text:  "failed to get run: HTTP 502: 502 Bad Gateway (https://api.github.com/repos/o/r/actions/runs/1?exclude_pull_requests=true)",
			class: failure.Transient, code: failure.HTTPCode(502), reason: "gh: HTTP 502 Bad Gateway",
		},
		{
			name: "gh api's 502", tool: failure.ToolAuto,
			text:  "gh: Server Error (HTTP 502)",
			class: failure.Transient, code: failure.HTTPCode(502), reason: "Server Error",
		},
		{
			name: "a 403 that is a rate limit", tool: failure.ToolAuto,
			text:  "HTTP 403: API rate limit exceeded for installation ID 1. (https://api.github.com/repos/o/r/pulls)",
			class: failure.Transient, code: failure.CodeRateLimited,
		},
		{
			name: "secondary rate limit", tool: failure.ToolAuto,
			text:  "HTTP 403: You have exceeded a secondary rate limit. Please wait a few minutes before you try again. (https://api.github.com/repos/o/r/issues)",
			class: failure.Transient, code: failure.CodeRateLimited,
		},
		{
			name: "no commits between", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: No commits between main and release/v1.2 (createPullRequest)",
			class: failure.Structural, code: CodeGHNoCommits, reason: "no commits between main and release/v1.2",
		},
		{
			name: "pull request exists (API)", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: A pull request already exists for acme:update-deps. (createPullRequest)",
			class: failure.Structural, code: CodeGHPRExists, reason: "acme:update-deps",
		},
		{
			name: "pull request exists (gh's check)", tool: failure.ToolAuto,
			text:  "a pull request for branch \"update-deps\" into branch \"main\" already exists:\nhttps://github.com/o/r/pull/7\n",
			class: failure.Structural, code: CodeGHPRExists, reason: "update-deps",
		},
		{
			name: "other createPullRequest refusals", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: Head sha can't be blank (createPullRequest)",
			class: failure.Structural, code: CodeGHPRRejected, reason: "Head sha can't be blank",
		},
		{
			name: "Actions may not create pull requests", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: GitHub Actions is not permitted to create or approve pull requests (createPullRequest)",
			class: failure.Policy, code: CodeGHActionsPR, remedy: "Allow GitHub Actions to create and approve pull requests",
		},
		{
			name: "integration token on createPullRequest", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: Resource not accessible by integration (createPullRequest)",
			class: failure.Policy, code: failure.CodeNotAccessible, remedy: "pull-requests: write",
		},
		{
			name: "submitted too quickly", tool: failure.ToolAuto,
			text:  "pull request create failed: GraphQL: was submitted too quickly (createPullRequest)",
			class: failure.Transient, code: CodeGHContentLimit,
		},
		{
			name: "GraphQL rate limit", tool: failure.ToolAuto,
			text:  "GraphQL: API rate limit exceeded for user ID 123456.",
			class: failure.Transient, code: failure.CodeRateLimited,
		},
		{
			name: "GraphQL's own failure", tool: failure.ToolAuto,
			text:  "GraphQL: Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `A1B2:3C4D` when reporting this issue.",
			class: failure.Transient, code: CodeGHGraphQLFailed,
		},
		{
			name: "not found is not a DNS failure", tool: failure.ToolAuto,
			text:  "GraphQL: Could not resolve to a Repository with the name 'acme/gone'. (repository)",
			class: failure.Absent, code: failure.CodeGraphQLNotFound, reason: "Repository acme/gone",
		},
		{
			name: "the base moved: neither retry nor a verdict", tool: failure.ToolAuto,
			text:  "GraphQL: Base branch was modified. Review and try the merge again. (mergePullRequest)",
			class: failure.Unknown, code: CodeGHBaseModified,
		},
		{
			name: "conflicts block the merge", tool: failure.ToolAuto,
			text:  "X Pull request acme/web#12 is not mergeable: the merge commit cannot be cleanly created.\nTo have the pull request merged after all the requirements have been met, add the `--auto` flag.\n",
			class: failure.Structural, code: CodeGHNotMergeable, reason: "acme/web#12 is not mergeable: the merge commit cannot be cleanly created",
		},
		{
			name: "protection blocks the merge", tool: failure.ToolAuto,
			text:  "X Pull request acme/web#12 is not mergeable: the base branch policy prohibits the merge.",
			class: failure.Policy, code: CodeGHNotMergeable, remedy: "--auto",
		},
		{
			name: "GraphQL's not mergeable", tool: failure.ToolAuto,
			text:  "GraphQL: Pull request is not mergeable (mergePullRequest)",
			class: failure.Structural, code: CodeGHNotMergeable, reason: "pull request is not mergeable",
		},
		{
			name: "release not found", tool: failure.ToolAuto,
			text:  "$ gh release view v9.9.9\nrelease not found\n",
			class: failure.Absent, code: CodeGHReleaseMissing,
		},
		{
			name: "no assets", tool: failure.ToolAuto,
			text:  "no assets match the file pattern",
			class: failure.Absent, code: CodeGHNoAssets,
		},
		{
			name: "tag not pushed", tool: failure.ToolAuto,
			text:  "tag v1.0.0 exists locally but has not been pushed to acme/tool, please push it before continuing or specify the `--target` flag to create a new tag",
			class: failure.Structural, code: CodeGHTagNotPushed, remedy: "git push origin v1.0.0",
		},
		{
			name: "gh's DNS failure", tool: failure.ToolAuto,
			text:  "error connecting to api.github.com\ncheck your internet connection or https://githubstatus.com\n",
			class: failure.Transient, code: failure.CodeDNS, reason: "api.github.com",
		},
		{
			name: "a connection reset", tool: failure.ToolGH,
			text:  "Post \"https://api.github.com/graphql\": read tcp 10.0.0.14:49544->140.82.121.6:443: read: connection reset by peer",
			class: failure.Transient, code: failure.CodeReset,
		},

		// near misses
		{
			name: "a GraphQL mention that is no error", tool: failure.ToolAuto,
			text:  "GraphQL: 4990 points remaining",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "an echoed login command", tool: failure.ToolAuto,
			text:  "+ gh auth login --with-token",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "release not found inside a sentence", tool: failure.ToolAuto,
			text:  "release not found in cache, downloading",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "error connecting without gh's advice", tool: failure.ToolAuto,
			text:  "error connecting to db.internal",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a directory that already exists", tool: failure.ToolAuto,
			text:  "mkdir: cannot create directory 'out': the directory already exists",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "another GraphQL mutation's refusal stays unknown", tool: failure.ToolAuto,
			text:  "GraphQL: Something odd happened (updateIssue)",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a host that does not resolve is still DNS", tool: failure.ToolAuto,
			text:  "curl: (6) Could not resolve host: api.github.com",
			class: failure.Transient, code: failure.CodeDNS,
		},
	})
}

// gh's answer decides over a bare status: a 404 on an upload is not absent.
func TestGHStatusAnswer(t *testing.T) {
	f := failure.Classify(failure.Input{Status: 404, Text: "HTTP 404: Not Found (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)", ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Structural, CodeGHTargetMissing, "release asset upload", "", nil)
	f = failure.Classify(failure.Input{Status: 422, Text: "HTTP 422: Validation Failed (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)\nReleaseAsset.name already exists", ExitCode: failure.NoExitCode})
	checkFailure(t, f, failure.Structural, CodeGHAlreadyExists, "a.zip already exists", "--clobber", nil)
	f = failure.Classify(failure.Input{Status: 403, Text: "HTTP 403: You have exceeded a secondary rate limit. (https://api.github.com/repos/o/r/issues)", ExitCode: failure.NoExitCode})
	if f.Class != failure.Transient {
		t.Errorf("secondary rate limit under --status 403: %v", f)
	}
}

func TestGHDetected(t *testing.T) {
	for _, text := range []string{
		"To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.",
		"pull request create failed: GraphQL: No commits between main and x (createPullRequest)",
		"gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.",
	} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != failure.ToolGH {
			t.Errorf("detectTool(%q) = %q, want gh", text, got)
		}
	}
}
