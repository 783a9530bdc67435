package failure

import "testing"

func TestGHFailures(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "release asset exists under a 422", tool: ToolAuto,
			text:  "HTTP 422: Validation Failed (https://uploads.github.com/repos/o/r/releases/1/assets?label=&name=app.tar.gz)\nReleaseAsset.name already exists\n",
			class: Structural, code: CodeGHAlreadyExists, reason: "release asset app.tar.gz already exists", remedy: "--clobber",
			evidence: []string{"HTTP 422: Validation Failed", "ReleaseAsset.name already exists"},
		},
		{
			name: "release for the tag exists", tool: ToolAuto,
			text:  "HTTP 422: Validation Failed (https://api.github.com/repos/o/r/releases)\nRelease.tag_name already exists\n",
			class: Structural, code: CodeGHAlreadyExists, reason: "a release for that tag already exists", remedy: "gh release upload",
		},
		{
			name: "a ref that exists, one message", tool: ToolAuto,
			text:  "HTTP 422: Reference already exists (https://api.github.com/repos/o/r/git/refs)",
			class: Structural, code: CodeGHAlreadyExists, reason: "Reference already exists",
		},
		{
			name: "gh's own release check", tool: ToolGH,
			text:  "a release with the same tag name already exists: v1.2.3",
			class: Structural, code: CodeGHAlreadyExists, reason: "a release for tag v1.2.3 already exists",
		},
		{
			name: "gh's own asset check", tool: ToolAuto,
			text:  "asset under the same name already exists: [app-linux-amd64.tar.gz]",
			class: Structural, code: CodeGHAlreadyExists, reason: "release asset app-linux-amd64.tar.gz already exists", remedy: "--clobber",
		},
		{
			name: "no GH_TOKEN in Actions", tool: ToolAuto, exit: 4,
			text:  "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable. Example:\n  env:\n    GH_TOKEN: ${{ github.token }}\n",
			class: Policy, code: CodeGHAuthRequired, reason: "GH_TOKEN is not set", remedy: "GH_TOKEN: ${{ github.token }}",
		},
		{
			name: "not logged in", tool: ToolAuto, exit: 4,
			text:  "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.\n",
			class: Policy, code: CodeGHAuthRequired, reason: "gh has no token",
		},
		{
			name: "403 not accessible names the permission", tool: ToolAuto,
			text:  "HTTP 403: Resource not accessible by integration (https://api.github.com/repos/o/r/releases)",
			class: Policy, code: CodeNotAccessible, reason: "gh: HTTP 403 Forbidden", remedy: "contents: write",
		},
		{
			name: "403 on a merge names pull-requests", tool: ToolAuto,
			text:  "HTTP 403: Resource not accessible by integration (https://api.github.com/repos/o/r/pulls/5/merge)",
			class: Policy, code: CodeNotAccessible, remedy: "pull-requests: write",
		},
		{
			name: "401 bad credentials", tool: ToolAuto,
			text:  "HTTP 401: Bad credentials (https://api.github.com/graphql)\nTry authenticating with:  gh auth login\n",
			class: Policy, code: CodeBadCredentials, reason: "HTTP 401",
		},
		{
			name: "404 on a lookup is an answer", tool: ToolAuto,
			text:  "HTTP 404: Not Found (https://api.github.com/repos/o/r/releases/tags/v9)",
			class: Absent, code: HTTPCode(404), reason: "gh: HTTP 404 Not Found", remedy: "private repository",
		},
		{
			name: "gh api's 404", tool: ToolAuto,
			text:  "{\n  \"message\": \"Not Found\"\n}\ngh: Not Found (HTTP 404)",
			class: Absent, code: HTTPCode(404),
		},
		{
			name: "404 on an upload is not an absence", tool: ToolAuto,
			text:  "HTTP 404: Not Found (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)",
			class: Structural, code: CodeGHTargetMissing, reason: "release asset upload", remedy: "private repository answers 404",
		},
		{
			name: "404 on a release create", tool: ToolAuto,
			text:  "HTTP 404: Not Found (https://api.github.com/repos/o/private/releases)",
			class: Structural, code: CodeGHTargetMissing,
		},
		{
			name: "502 with gh's non-JSON message", tool: ToolAuto,
			text:  "failed to get run: HTTP 502: 502 Bad Gateway (https://api.github.com/repos/o/r/actions/runs/1?exclude_pull_requests=true)",
			class: Transient, code: HTTPCode(502), reason: "gh: HTTP 502 Bad Gateway",
		},
		{
			name: "gh api's 502", tool: ToolAuto,
			text:  "gh: Server Error (HTTP 502)",
			class: Transient, code: HTTPCode(502), reason: "Server Error",
		},
		{
			name: "a 403 that is a rate limit", tool: ToolAuto,
			text:  "HTTP 403: API rate limit exceeded for installation ID 1. (https://api.github.com/repos/o/r/pulls)",
			class: Transient, code: CodeRateLimited,
		},
		{
			name: "secondary rate limit", tool: ToolAuto,
			text:  "HTTP 403: You have exceeded a secondary rate limit. Please wait a few minutes before you try again. (https://api.github.com/repos/o/r/issues)",
			class: Transient, code: CodeRateLimited,
		},
		{
			name: "no commits between", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: No commits between main and release/v1.2 (createPullRequest)",
			class: Structural, code: CodeGHNoCommits, reason: "no commits between main and release/v1.2",
		},
		{
			name: "pull request exists (API)", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: A pull request already exists for acme:update-deps. (createPullRequest)",
			class: Structural, code: CodeGHPRExists, reason: "acme:update-deps",
		},
		{
			name: "pull request exists (gh's check)", tool: ToolAuto,
			text:  "a pull request for branch \"update-deps\" into branch \"main\" already exists:\nhttps://github.com/o/r/pull/7\n",
			class: Structural, code: CodeGHPRExists, reason: "update-deps",
		},
		{
			name: "other createPullRequest refusals", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: Head sha can't be blank (createPullRequest)",
			class: Structural, code: CodeGHPRRejected, reason: "Head sha can't be blank",
		},
		{
			name: "Actions may not create pull requests", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: GitHub Actions is not permitted to create or approve pull requests (createPullRequest)",
			class: Policy, code: CodeGHActionsPR, remedy: "Allow GitHub Actions to create and approve pull requests",
		},
		{
			name: "integration token on createPullRequest", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: Resource not accessible by integration (createPullRequest)",
			class: Policy, code: CodeNotAccessible, remedy: "pull-requests: write",
		},
		{
			name: "submitted too quickly", tool: ToolAuto,
			text:  "pull request create failed: GraphQL: was submitted too quickly (createPullRequest)",
			class: Transient, code: CodeGHContentLimit,
		},
		{
			name: "GraphQL rate limit", tool: ToolAuto,
			text:  "GraphQL: API rate limit exceeded for user ID 123456.",
			class: Transient, code: CodeRateLimited,
		},
		{
			name: "GraphQL's own failure", tool: ToolAuto,
			text:  "GraphQL: Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `A1B2:3C4D` when reporting this issue.",
			class: Transient, code: CodeGHGraphQLFailed,
		},
		{
			name: "not found is not a DNS failure", tool: ToolAuto,
			text:  "GraphQL: Could not resolve to a Repository with the name 'acme/gone'. (repository)",
			class: Absent, code: CodeGraphQLNotFound, reason: "Repository acme/gone",
		},
		{
			name: "the base moved: neither retry nor a verdict", tool: ToolAuto,
			text:  "GraphQL: Base branch was modified. Review and try the merge again. (mergePullRequest)",
			class: Unknown, code: CodeGHBaseModified,
		},
		{
			name: "conflicts block the merge", tool: ToolAuto,
			text:  "X Pull request acme/web#12 is not mergeable: the merge commit cannot be cleanly created.\nTo have the pull request merged after all the requirements have been met, add the `--auto` flag.\n",
			class: Structural, code: CodeGHNotMergeable, reason: "acme/web#12 is not mergeable: the merge commit cannot be cleanly created",
		},
		{
			name: "protection blocks the merge", tool: ToolAuto,
			text:  "X Pull request acme/web#12 is not mergeable: the base branch policy prohibits the merge.",
			class: Policy, code: CodeGHNotMergeable, remedy: "--auto",
		},
		{
			name: "GraphQL's not mergeable", tool: ToolAuto,
			text:  "GraphQL: Pull request is not mergeable (mergePullRequest)",
			class: Structural, code: CodeGHNotMergeable, reason: "pull request is not mergeable",
		},
		{
			name: "release not found", tool: ToolAuto,
			text:  "$ gh release view v9.9.9\nrelease not found\n",
			class: Absent, code: CodeGHReleaseMissing,
		},
		{
			name: "no assets", tool: ToolAuto,
			text:  "no assets match the file pattern",
			class: Absent, code: CodeGHNoAssets,
		},
		{
			name: "tag not pushed", tool: ToolAuto,
			text:  "tag v1.0.0 exists locally but has not been pushed to acme/tool, please push it before continuing or specify the `--target` flag to create a new tag",
			class: Structural, code: CodeGHTagNotPushed, remedy: "git push origin v1.0.0",
		},
		{
			name: "gh's DNS failure", tool: ToolAuto,
			text:  "error connecting to api.github.com\ncheck your internet connection or https://githubstatus.com\n",
			class: Transient, code: CodeDNS, reason: "api.github.com",
		},
		{
			name: "a connection reset", tool: ToolGH,
			text:  "Post \"https://api.github.com/graphql\": read tcp 10.0.0.14:49544->140.82.121.6:443: read: connection reset by peer",
			class: Transient, code: CodeReset,
		},

		// near misses
		{
			name: "a GraphQL mention that is no error", tool: ToolAuto,
			text:  "GraphQL: 4990 points remaining",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "an echoed login command", tool: ToolAuto,
			text:  "+ gh auth login --with-token",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "release not found inside a sentence", tool: ToolAuto,
			text:  "release not found in cache, downloading",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "error connecting without gh's advice", tool: ToolAuto,
			text:  "error connecting to db.internal",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "a directory that already exists", tool: ToolAuto,
			text:  "mkdir: cannot create directory 'out': the directory already exists",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "another GraphQL mutation's refusal stays unknown", tool: ToolAuto,
			text:  "GraphQL: Something odd happened (updateIssue)",
			class: Unknown, code: CodeUnknown,
		},
		{
			name: "a host that does not resolve is still DNS", tool: ToolAuto,
			text:  "curl: (6) Could not resolve host: api.github.com",
			class: Transient, code: CodeDNS,
		},
	})
}

// gh's answer decides over a bare status: a 404 on an upload is not absent.
func TestGHStatusAnswer(t *testing.T) {
	f := Classify(Input{Status: 404, Text: "HTTP 404: Not Found (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)", ExitCode: NoExitCode})
	checkFailure(t, f, Structural, CodeGHTargetMissing, "release asset upload", "", nil)
	f = Classify(Input{Status: 422, Text: "HTTP 422: Validation Failed (https://uploads.github.com/repos/o/r/releases/9/assets?label=&name=a.zip)\nReleaseAsset.name already exists", ExitCode: NoExitCode})
	checkFailure(t, f, Structural, CodeGHAlreadyExists, "a.zip already exists", "--clobber", nil)
	f = Classify(Input{Status: 403, Text: "HTTP 403: You have exceeded a secondary rate limit. (https://api.github.com/repos/o/r/issues)", ExitCode: NoExitCode})
	if f.Class != Transient {
		t.Errorf("secondary rate limit under --status 403: %v", f)
	}
}

func TestGHDetected(t *testing.T) {
	for _, text := range []string{
		"To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.",
		"pull request create failed: GraphQL: No commits between main and x (createPullRequest)",
		"gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.",
	} {
		if got := detectTool(text, ToolAuto); got != ToolGH {
			t.Errorf("detectTool(%q) = %q, want gh", text, got)
		}
	}
}
