package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestTwine(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "file exists, rich output, version from the file name", tool: failure.ToolAuto,
			text:  "Uploading distributions to https://upload.pypi.org/legacy/\nUploading pkg-2.1.0-py3-none-any.whl\nWARNING  Error during upload. Retry with the --verbose option for more details.\nERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n         File already exists ('pkg-2.1.0-py3-none-any.whl', with blake2_256 hash\n         'ab12'). See https://pypi.org/help/#file-name-reuse for more information.\n",
			class: failure.Structural, code: CodeTwineFileExists, reason: "PyPI already has pkg-2.1.0-py3-none-any.whl", remedy: "bump the version (2.1.0 is already on the index)",
			evidence: []string{"File already exists ('pkg-2.1.0-py3-none-any.whl'", "HTTPError: 400 Bad Request"},
		},
		{
			name: "file exists after twine's own retries of a 500", tool: failure.ToolTwine,
			text:  "Uploading pkg-1.0.tar.gz\nReceived \"500: Internal Server Error\" Package upload appears to have failed.  Retry 1 of 5\nUploading pkg-1.0.tar.gz\nHTTPError: 400 Client Error: File already exists. See https://pypi.org/help/#file-name-reuse for url: https://upload.pypi.org/legacy/\n",
			class: failure.Structural, code: CodeTwineFileExists, reason: "PyPI already has pkg-1.0.tar.gz", remedy: "bump the version (1.0 is already on the index)",
		},
		{
			name: "uv publish: the same server answer", tool: failure.ToolAuto,
			text:  "error: Failed to publish `dist/demo-0.3.0.tar.gz` to https://upload.pypi.org/legacy/\n  Caused by: Upload failed with status code 400 Bad Request. Server says: 400 File already exists ('demo-0.3.0.tar.gz', with blake2_256 hash 'ff00'). See https://pypi.org/help/#file-name-reuse for more information.\n",
			class: failure.Structural, code: CodeTwineFileExists, reason: "PyPI already has demo-0.3.0.tar.gz", remedy: "0.3.0 is already on the index",
		},
		{
			name: "a deleted file's name cannot come back", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nThis filename was previously used by a file that has since been deleted. Use a different version. See https://pypi.org/help/#file-name-reuse for more information.\n",
			class: failure.Structural, code: CodeTwineFileExists, remedy: "bump the version",
		},
		{
			name: "one sdist per release", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nOnly one sdist may be uploaded per release.\n",
			class: failure.Structural, code: CodeTwineFileExists, reason: "already has an sdist for this release",
		},
		{
			name: "invalid or non-existent authentication", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n         Invalid or non-existent authentication information. See https://pypi.org/help/#invalid-auth for more\n         information.\n",
			class: failure.Policy, code: failure.CodeBadCredentials, reason: "invalid or non-existent authentication information", remedy: "TWINE_USERNAME=__token__",
		},
		{
			name: "a token scoped to another project", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n         Invalid API Token: project-scoped token is not valid for project: 'other'\n",
			class: failure.Policy, code: failure.CodeBadCredentials, reason: "PyPI rejected the API token: project-scoped token is not valid for project: 'other'",
		},
		{
			name: "password authentication removed", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n         Username/Password authentication is no longer supported. Migrate to API Tokens or Trusted Publishers instead.\n",
			class: failure.Policy, code: CodeTwinePasswordAuth, remedy: "username __token__",
		},
		{
			name: "the user may not upload to the project", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n         The user 'ci-bot' isn't allowed to upload to project 'requests'. See https://pypi.org/help/#project-name for more information.\n",
			class: failure.Policy, code: CodeTwineUploadForbidden, reason: "the user 'ci-bot' may not upload to 'requests'", remedy: "ask an owner for the Maintainer role",
		},
		{
			name: "old wording, beside GitLab's 'You are not allowed to'", tool: failure.ToolAuto,
			text:  "HTTPError: 403 Client Error: You are not allowed to upload to 'foo'. for url: https://upload.pypi.org/legacy/\n",
			class: failure.Policy, code: CodeTwineUploadForbidden, reason: "may not upload to 'foo'",
		},
		{
			name: "the token may not upload to the project", tool: failure.ToolAuto,
			text:  "HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\nThe given token isn't allowed to upload to project 'demo'. See https://pypi.org/help/#project-name for more information.\n",
			class: failure.Policy, code: CodeTwineUploadForbidden, reason: "this token may not upload to 'demo'",
		},
		{
			name: "a name too similar to an existing project", tool: failure.ToolAuto,
			text:  "HTTP Error 400: The name 'pycomponents' is too similar to an existing project. See https://pypi.org/help/#project-name for more information.\n",
			class: failure.Structural, code: CodeTwineName, reason: "refuses the project name 'pycomponents'", remedy: "choose another distribution name",
		},
		{
			name: "trusted publishing: invalid publisher", tool: failure.ToolAuto,
			text:  "Error: Trusted publishing exchange failure: \nToken request failed: the server refused the request for the following reasons:\n\n* `invalid-publisher`: valid token, but no corresponding publisher (All lookup strategies exhausted)\n",
			class: failure.Policy, code: CodeTwineTrustedPub, reason: "refused by the index (invalid-publisher)", remedy: "fix the trusted publisher on PyPI",
		},
		{
			name: "trusted publishing: one annotation line joined by %0A", tool: failure.ToolAuto,
			text:  "::error::Trusted publishing exchange failure: %0AToken request failed: the server refused the request for the following reasons:%0A%0A* `invalid-pending-publisher`: valid token, but project already exists%0A\n",
			class: failure.Policy, code: CodeTwineTrustedPub, reason: "invalid-pending-publisher",
		},
		{
			name: "trusted publishing: the index failed with a 503", tool: failure.ToolAuto,
			text:  "Trusted publishing exchange failure:\n\nToken request failed: the index produced an unexpected\n503 response.\n\nThis strongly suggests a server configuration or downtime issue; wait\na few minutes and try again.\n",
			class: failure.Transient, code: CodeTwineTrustedPubDown, reason: "HTTP 503 Service Unavailable",
		},
		{
			name: "trusted publishing: twine's own, no OIDC token", tool: failure.ToolTwine,
			text:  "ERROR    TrustedPublishingFailure: Unable to retrieve an OIDC token from the CI platform for trusted publishing GitHub: missing or insufficient OIDC token permissions\n",
			class: failure.Policy, code: CodeTwineTrustedPub, remedy: "id-token: write",
		},
		{
			name: "trusted publishing: a pending publisher of another name", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n         Non-user identities cannot create new projects. This was probably caused by successfully using a pending publisher but specifying the project name incorrectly\n",
			class: failure.Policy, code: CodeTwineTrustedPub, remedy: "match",
		},
		{
			name: "new-project quota", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 429 Too Many Requests from https://upload.pypi.org/legacy/\n         Too many new projects created\n",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "quota of new projects is spent",
		},
		{
			name: "a bare 429 stays a rate limit", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 429 Too Many Requests from https://upload.pypi.org/legacy/\n         Too Many Requests\n",
			class: failure.Transient, code: failure.HTTPCode(429),
		},
		{
			name: "unverified email", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nUser 'ci' does not have a verified primary email address. Please add a verified primary email before attempting to upload to PyPI.\n",
			class: failure.Policy, code: CodeTwineAccount, reason: "no verified primary email",
		},
		{
			name: "description does not render", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nThe description failed to render for 'text/markdown'. See https://pypi.org/help/#description-content-type for more information.\n",
			class: failure.Structural, code: CodeTwineDescription, reason: "as text/markdown", remedy: "twine check",
		},
		{
			name: "twine check", tool: failure.ToolTwine,
			text:  "Checking dist/pkg-1.0.tar.gz: FAILED\nERROR    `long_description` has syntax errors in markup and would not be rendered on PyPI.\n",
			class: failure.Structural, code: CodeTwineDescription,
		},
		{
			name: "unsupported platform tag", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n         Binary wheel 'pkg-1.0-cp311-cp311-linux_x86_64.whl' has an unsupported platform tag 'linux_x86_64'.\n",
			class: failure.Structural, code: CodeTwineMetadata, reason: "unsupported platform tag 'linux_x86_64'",
		},
		{
			name: "local version, Warehouse's new wording", tool: failure.ToolAuto,
			text:  "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n         The use of local versions in <Version('0.1.dev1+gb1b94ba')> is not allowed.\n",
			class: failure.Structural, code: CodeTwineMetadata, reason: "local versions",
		},
		{
			name: "file too large", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nFile too large. Limit for project 'bigwheel' is 100 MB. See https://docs.pypi.org/project-management/storage-limits#requesting-a-file-size-limit-increase for more information.\n",
			class: failure.Structural, code: CodeTwineFileTooLarge, reason: "(100 MB for 'bigwheel')",
		},
		{
			name: "project size limit", tool: failure.ToolAuto,
			text:  "HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\nProject size too large. Limit for project 'bigproj' total size is 10 GB. See https://docs.pypi.org/project-management/storage-limits\n",
			class: failure.Policy, code: CodeTwineProjectTooLarge, reason: "(10 GB for 'bigproj')",
		},
		{
			name: "uploads temporarily disabled", tool: failure.ToolAuto,
			text:  "HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\nRead-only mode: Uploads are temporarily disabled.\n",
			class: failure.Transient, code: CodeTwineUploadsDisabled,
		},
		{
			name: "nothing was built", tool: failure.ToolTwine,
			text:  "ERROR    InvalidDistribution: Cannot find file (or expand pattern): 'dist/*'\n",
			class: failure.Structural, code: CodeTwineDistribution, remedy: "build the package first",
		},
		{
			name: "no credentials in CI", tool: failure.ToolTwine,
			text:  "Uploading distributions to https://upload.pypi.org/legacy/\nERROR    NonInteractive: Credential not found for password.\n",
			class: failure.Policy, code: CodeTwineNoCredentials, remedy: "TWINE_PASSWORD",
		},
		{
			name: "wrong repository URL", tool: failure.ToolTwine,
			text:  "ERROR    InvalidPyPIUploadURL: It appears you're trying to upload to pypi.org but have an invalid URL.\n",
			class: failure.Structural, code: CodeTwineRepositoryURL, remedy: "https://upload.pypi.org/legacy/",
		},
		{
			name: "the verbose-less warning alone stays unknown", tool: failure.ToolTwine,
			text:  "Uploading distributions to https://upload.pypi.org/legacy/\nWARNING  Error during upload. Retry with the --verbose option for more details.\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
	})
}

// Near-misses: the phrases outside a package index's answer, or mentioned
// in prose and scripts, are not PyPI's verdicts.
func TestTwineNearMisses(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "another tool's file exists", tool: failure.ToolAuto,
			text:  "cp: cannot create regular file 'out': File already exists\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a CLI's invalid value", tool: failure.ToolAuto,
			text:  "Usage: tool [OPTIONS]\nError: Invalid value for '--count': 'x' is not a valid integer.\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "another client's token request", tool: failure.ToolAuto,
			text:  "auth: Token request failed: 401\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "trusted publishing named in a doc line", tool: failure.ToolAuto,
			text:  "Read more about trusted publishers at https://docs.pypi.org/trusted-publishers/\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
		{
			name: "a script that greps for the message", tool: failure.ToolAuto,
			text:  "+ grep -q 'Too many new' upload.log\n+ exit 2\n",
			class: failure.Unknown, code: failure.CodeUnknown,
		},
	})
}

func TestDistVersion(t *testing.T) {
	for file, want := range map[string]string{
		"pkg-1.2.0-py3-none-any.whl":                                "1.2.0",
		"dist/my_pkg-0.1.dev3-cp312-abi3-manylinux_2_17_x86_64.whl": "0.1.dev3",
		"example-pkg-danielyang-0.0.1.tar.gz":                       "0.0.1",
		"pkg-1.0.zip":                                               "1.0",
		"pkg.whl":                                                   "",
		"pkg-py3.8.egg":                                             "",
	} {
		if got := distVersion(file); got != want {
			t.Errorf("distVersion(%q) = %q, want %q", file, got, want)
		}
	}
}
