package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// twine's failures: the answers of PyPI's upload endpoint (Warehouse's
// legacy API) as twine prints them ("HTTPError: 400 Bad Request from
// https://upload.pypi.org/legacy/" and the server's message on the next
// line, or "HTTPError: 400 Client Error: <message> for url: ..." in older
// twines), twine's own exceptions (InvalidDistribution, NonInteractive,
// RedirectDetected, TrustedPublishingFailure), and the trusted-publishing
// token exchange of pypa/gh-action-pypi-publish. uv publish, poetry publish
// and flit print the same server messages ("Server says: 400 File already
// exists", "HTTP Error 403: The user ... isn't allowed"), so the phrases are
// recognised whatever printed them; only twine's program name is the tool.

// twine's codes.
const (
	CodeTwineFileExists      failure.Code = "twine-file-exists"
	CodeTwineUploadForbidden failure.Code = "twine-upload-forbidden"
	CodeTwinePasswordAuth    failure.Code = "twine-password-auth-removed"
	CodeTwineNoCredentials   failure.Code = "twine-no-credentials"
	CodeTwineTrustedPub      failure.Code = "twine-trusted-publishing"
	CodeTwineTrustedPubDown  failure.Code = "twine-trusted-publishing-unavailable"
	CodeTwineAccount         failure.Code = "twine-account-not-ready"
	CodeTwineDescription     failure.Code = "twine-description-invalid"
	CodeTwineMetadata        failure.Code = "twine-metadata-invalid"
	CodeTwineName            failure.Code = "twine-name-not-allowed"
	CodeTwineFileTooLarge    failure.Code = "twine-file-too-large"
	CodeTwineProjectTooLarge failure.Code = "twine-project-size-limit"
	CodeTwineUploadsDisabled failure.Code = "twine-uploads-disabled"
	CodeTwineDistribution    failure.Code = "twine-invalid-distribution"
	CodeTwineRepositoryURL   failure.Code = "twine-repository-url"
)

const (
	remedyPyPIToken    = "set TWINE_USERNAME=__token__ and TWINE_PASSWORD to a valid pypi- API token for this index (PyPI and TestPyPI tokens differ), or publish with trusted publishing"
	remedyPyPIMetadata = "fix the package metadata the message names (https://packaging.python.org/specifications/core-metadata), rebuild the distributions and upload again"
)

var (
	reTwineFileNamed  = failure.LazyRE(`A file named "([^"]+)" already exists`)
	reTwineUploading  = failure.LazyRE(`(?m)^Uploading (\S+\.(?:whl|tar\.gz|zip))\s*$`)
	reTwineQuotedFile = failure.LazyRE(`'([^'\s]+\.(?:whl|tar\.gz|zip|tar\.bz2|egg))'`)
	reTwineUser       = failure.LazyRE(`The user '([^']*)'`)
	reTwineProject    = failure.LazyRE(`upload to (?:project )?'([^']+)'`)
	reTwineName       = failure.LazyRE(`The name '([^']+)' (?:is too similar to an existing project|isn't allowed)`)
	reTwineTPCode     = failure.LazyRE("\\* `([a-z-]+)`")
	reTwineTPStatus   = failure.LazyRE(`unexpected\s+(\d{3})`)
	reTwineLimit      = failure.LazyRE(`[Ll]imit for (?:project )?'([^']+)'(?: total size)? is (\d+ [MG]B)`)
)

var twineFamily = failure.Family{
	Tool:  failure.ToolTwine,
	Names: []string{"twine"},
	Marks: []string{"upload.pypi.org", "test.pypi.org/legacy", "pypi.org/help/#", "Trusted publishing exchange failure", "TrustedPublishingFailure", "InvalidDistribution:"},
	Matchers: []failure.Matcher{
		{
			// the file, or its name, is already on the index
			Gates: []string{"File already exists", "Filename cannot be reused", "file named", "filename has", "filename was previously", "sdist may be uploaded"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				file := ""
				switch {
				case strings.Contains(line, "File already exists"):
					if !pypiContext(c, line) {
						return failure.Hit{}, false
					}
				case strings.Contains(line, "file named"):
					m := reTwineFileNamed.FindStringSubmatch(line)
					if m == nil {
						return failure.Hit{}, false
					}
					file = m[1]
				case strings.Contains(line, "Filename cannot be reused"), strings.Contains(line, "Only one sdist may be uploaded"),
					strings.Contains(line, "filename has already been used"), strings.Contains(line, "filename has previously been used"),
					strings.Contains(line, "filename was previously used"):
				default:
					return failure.Hit{}, false
				}
				if file == "" {
					if m := reTwineQuotedFile.FindStringSubmatch(line); m != nil {
						file = m[1]
					} else if all := reTwineUploading.FindAllStringSubmatch(textBefore(c, len(line)), -1); len(all) > 0 {
						file = all[len(all)-1][1] // twine names the file it was uploading
					}
				}
				reason := "PyPI already has this file name: a file name can never be uploaded twice"
				remedy := "bump the version and rebuild: PyPI never accepts a file name twice, even after the file was deleted; when re-running a partial upload, pass --skip-existing"
				if strings.Contains(line, "Only one sdist") {
					reason = "PyPI already has an sdist for this release"
					remedy = "bump the version and rebuild: a release takes one sdist, and it is already on PyPI; when re-running a partial upload, pass --skip-existing"
				}
				if file != "" {
					reason = "PyPI already has " + failure.Clip(file)
					if v := distVersion(file); v != "" {
						remedy = "bump the version (" + failure.Clip(v) + " is already on the index) and rebuild: PyPI never accepts a file name twice, even after the file was deleted; when re-running a partial upload, pass --skip-existing"
					}
				}
				return failure.Hit{Class: failure.Structural, Code: CodeTwineFileExists, Rank: failure.RankTool, Reason: reason, Remedy: remedy}, true
			},
		},
		{
			Gates: []string{"non-existent authentication", "nvalid API Token", "assword authentication is no longer"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "non-existent authentication"):
					return failure.Hit{Class: failure.Policy, Code: failure.CodeBadCredentials, Rank: failure.RankTool, Reason: "PyPI rejected the credentials: invalid or non-existent authentication information",
						Remedy: "the token is missing, wrong, expired or revoked: " + remedyPyPIToken}, true
				case strings.Contains(line, "nvalid API Token"):
					_, detail, _ := strings.Cut(line, "nvalid API Token")
					detail = strings.TrimLeft(detail, ": ")
					reason := "PyPI rejected the API token"
					if detail != "" {
						reason += ": " + failure.Clip(detail)
					}
					return failure.Hit{Class: failure.Policy, Code: failure.CodeBadCredentials, Rank: failure.RankTool, Reason: reason,
						Remedy: "the token is not valid for this upload (expired, revoked, or scoped to another project): " + remedyPyPIToken}, true
				case strings.Contains(line, "assword authentication is no longer supported"):
					return failure.Hit{Class: failure.Policy, Code: CodeTwinePasswordAuth, Rank: failure.RankTool, Reason: "PyPI no longer accepts a username and password",
						Remedy: "upload with an API token (username __token__, the pypi- token as password) or with trusted publishing"}, true
				}
				return failure.Hit{}, false
			},
		},
		{
			Gates: []string{"isn't allowed", "You are not allowed to upload", "too similar to an existing project"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if m := reTwineName.FindStringSubmatch(line); m != nil {
					return failure.Hit{Class: failure.Structural, Code: CodeTwineName, Rank: failure.RankTool, Reason: "PyPI refuses the project name '" + failure.Clip(m[1]) + "'",
						Remedy: "choose another distribution name (PyPI refuses names too similar to an existing project, standard-library module names and prohibited names) and rebuild"}, true
				}
				if strings.Contains(line, "too similar to an existing project") && pypiContext(c, line) {
					return failure.Hit{Class: failure.Structural, Code: CodeTwineName, Rank: failure.RankTool, Reason: "PyPI refuses the project name: too similar to an existing project",
						Remedy: "choose another distribution name (PyPI refuses names too similar to an existing project, standard-library module names and prohibited names) and rebuild"}, true
				}
				if !strings.Contains(line, "allowed to upload") {
					return failure.Hit{}, false
				}
				project := "the project"
				if m := reTwineProject.FindStringSubmatch(line); m != nil {
					project = "'" + failure.Clip(m[1]) + "'"
				}
				who := "these credentials"
				if m := reTwineUser.FindStringSubmatch(line); m != nil {
					who = "the user '" + failure.Clip(m[1]) + "'"
				} else if strings.Contains(line, "given token") {
					who = "this token"
				}
				return failure.Hit{Class: failure.Policy, Code: CodeTwineUploadForbidden, Rank: failure.RankTool, Reason: "PyPI refused the upload: " + who + " may not upload to " + project,
					Remedy: "the project " + project + " belongs to other owners, or its name is taken or reserved: ask an owner for the Maintainer role, use a token scoped to it, or rename the distribution"}, true
			},
		},
		{
			// pypa/gh-action-pypi-publish, twine's own trusted publishing, uv
			Gates: []string{"Trusted publishing exchange failure", "TrustedPublishingFailure", "token for trusted publishing", "OpenID Connect token retrieval failed",
				"Token request failed", "Token response error", "Non-user identities cannot create new projects"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				return trustedPublishingHit(c, line)
			},
		},
		{
			Gates: []string{"Too many new projects"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool, Reason: "PyPI's quota of new projects is spent (too many new projects created; the window is up to a day)",
					Remedy: "PyPI limits how many projects an account or address may create in a day: wait for the window to pass, create the project by hand first, or ask PyPI support to raise the limit; uploads to existing projects still work"}, true
			},
		},
		{
			Gates: []string{"verified primary email", "does not have two-factor", "account owning this project"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "verified primary email"):
					return failure.Hit{Class: failure.Policy, Code: CodeTwineAccount, Rank: failure.RankTool, Reason: "the PyPI account has no verified primary email address",
						Remedy: "add and verify a primary email address in the PyPI account settings, then upload again"}, true
				case strings.Contains(line, "two-factor authentication enabled"):
					return failure.Hit{Class: failure.Policy, Code: CodeTwineAccount, Rank: failure.RankTool, Reason: "the PyPI account has no two-factor authentication",
						Remedy: "enable two-factor authentication on the PyPI account, then upload again"}, true
				case strings.Contains(line, "is inactive"):
					return failure.Hit{Class: failure.Policy, Code: CodeTwineAccount, Rank: failure.RankTool, Reason: "the PyPI organization owning the project is inactive",
						Remedy: "the organization's billing or standing must be restored (support+orgs@pypi.org) before it can upload"}, true
				}
				return failure.Hit{}, false
			},
		},
		{
			Gates: []string{"ailed to re", "has syntax errors in markup"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "description failed to render") && !strings.Contains(line, "long_description") {
					return failure.Hit{}, false
				}
				reason := "PyPI cannot render the long description"
				if strings.Contains(line, "reStructuredText") {
					reason += " as reStructuredText"
				} else if _, ct, ok := strings.Cut(line, "render for '"); ok {
					ct, _, _ = strings.Cut(ct, "'")
					reason += " as " + failure.Clip(ct)
				}
				return failure.Hit{Class: failure.Structural, Code: CodeTwineDescription, Rank: failure.RankTool, Reason: reason,
					Remedy: "fix the README's markup (`twine check dist/*` shows the error) or declare its real content type (readme / long_description_content_type, e.g. text/markdown), then rebuild"}, true
			},
		},
		{
			// Warehouse's metadata, file name and archive checks
			Gates: []string{"nvalid value for", "nvalid distribution file", "platform tag '", "is missing required fields",
				"Start filename for", "filename should be", "normalized project name", "does not contain the required", "nvalid source distribution filename",
				"is invalid, should be", "nvalid attestations", "local versions"},
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !pypiContext(c, line) {
					return failure.Hit{}, false
				}
				if strings.Contains(line, "local versions") && !strings.Contains(line, "not allowed") && !strings.Contains(line, "use PEP 440") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Structural, Code: CodeTwineMetadata, Rank: failure.RankTool, Reason: "PyPI rejected the distribution: " + failure.Clip(pypiDetail(line)),
					Remedy: remedyPyPIMetadata}, true
			},
		},
		{
			Gates: []string{"too large. Limit for project", "Project size too large"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				limit := ""
				if m := reTwineLimit.FindStringSubmatch(line); m != nil {
					limit = " (" + failure.Clip(m[2]) + " for '" + failure.Clip(m[1]) + "')"
				}
				if strings.Contains(line, "Project size too large") {
					return failure.Hit{Class: failure.Policy, Code: CodeTwineProjectTooLarge, Rank: failure.RankTool, Reason: "the project's total size limit on PyPI is reached" + limit,
						Remedy: "delete old releases or files of the project on PyPI, or ask PyPI support for a larger project size limit"}, true
				}
				return failure.Hit{Class: failure.Structural, Code: CodeTwineFileTooLarge, Rank: failure.RankTool, Reason: "the file exceeds PyPI's size limit" + limit,
					Remedy: "make the distribution smaller (leave data and test files out), or ask PyPI support for a file size limit increase for the project"}, true
			},
		},
		{
			Gates: []string{"ploads are temporarily disabled"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "ploads are temporarily disabled") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Transient, Code: CodeTwineUploadsDisabled, Rank: failure.RankTool, Reason: "PyPI has uploads temporarily disabled (read-only mode or an incident)",
					Remedy: "PyPI paused uploads (see status.python.org): retrying later; the upload itself needs no change"}, true
			},
		},
		{
			// twine's own exceptions, before anything is sent
			Gates: []string{"nvalidDistribution", "nvalidPyPIUploadURL", "UploadToDeprecatedPyPIDetected", "irectDetected", "NonInteractive"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				switch {
				case strings.Contains(line, "nvalidDistribution"):
					_, detail, _ := strings.Cut(line, "nvalidDistribution")
					detail = strings.TrimSpace(strings.TrimLeft(detail, ":"))
					remedy := "rebuild the distribution files (python -m build) and check them with `twine check dist/*`"
					switch {
					case strings.Contains(detail, "Cannot find file") || strings.Contains(detail, "expand pattern"):
						remedy = "nothing matched the distribution path: build the package first (python -m build) or fix the path given to twine"
					case strings.Contains(detail, "unrecognized or malformed field"):
						remedy = "twine or packaging is too old for this metadata version (or the build backend wrote an invalid field): upgrade them (pip install -U twine packaging) or fix the build, then upload again"
					}
					reason := "twine rejected the distribution"
					if detail != "" {
						reason += ": " + failure.Clip(detail)
					}
					return failure.Hit{Class: failure.Structural, Code: CodeTwineDistribution, Rank: failure.RankTool, Reason: reason, Remedy: remedy}, true
				case strings.Contains(line, "NonInteractive"):
					return failure.Hit{Class: failure.Policy, Code: CodeTwineNoCredentials, Rank: failure.RankTool, Reason: "no credentials reached twine (non-interactive: credential not found)",
						Remedy: "set TWINE_USERNAME=__token__ and TWINE_PASSWORD from a secret in the upload step's environment (secrets are empty in pull requests from forks), or publish with trusted publishing"}, true
				}
				return failure.Hit{Class: failure.Structural, Code: CodeTwineRepositoryURL, Rank: failure.RankTool, Reason: "twine refused the repository URL: " + failure.Clip(pypiDetail(line)),
					Remedy: "point --repository-url at the upload endpoint, with its trailing slash: https://upload.pypi.org/legacy/ (TestPyPI: https://test.pypi.org/legacy/)"}, true
			},
		},
	},
}

// trustedPublishingHit reads a trusted-publishing failure: the line and the
// ones after it (the action prints the server's reasons below its header,
// or on one line joined by %0A in an annotation). A failed exchange is the
// publisher's configuration (policy) unless the index itself failed.
func trustedPublishingHit(c *failure.ScanCtx, line string) (failure.Hit, bool) {
	win := line + "\n" + strings.Join(failure.FollowingLines(c.Text, c.LineEnd, 8), "\n")
	unavailable := func(why string) failure.Hit {
		return failure.Hit{Class: failure.Transient, Code: CodeTwineTrustedPubDown, Rank: failure.RankTool, Reason: "trusted publishing: " + why,
			Remedy: "the index failed during the token exchange (see status.python.org): retrying; the publisher configuration is not in question"}
	}
	if !strings.Contains(line, "rusted publishing") && !strings.Contains(line, "TrustedPublishing") && !strings.Contains(line, "OpenID Connect") &&
		!strings.Contains(line, "-publisher") && !strings.Contains(line, "Non-user identities") && !strings.Contains(line, "audience retrieval") &&
		!strings.Contains(win, "the index") && !strings.Contains(win, "following reasons") {
		return failure.Hit{}, false // another client's "Token request failed"
	}
	switch {
	case strings.Contains(win, "Token response error") || strings.Contains(win, "token-minting request returned invalid JSON"):
		return unavailable("the index answered the token exchange with an invalid response"), true
	case strings.Contains(win, "produced an unexpected") || strings.Contains(win, "responded with unexpected"):
		if m := reTwineTPStatus.FindStringSubmatch(win); m != nil {
			if st := failure.Atoi(m[1]); st >= 500 || st == 429 {
				return unavailable("the index answered the token exchange with " + failure.StatusName(st)), true
			}
		}
	}
	reason, remedy := "trusted publishing failed", "fix the trusted publisher on PyPI (Manage → Publishing) so it names this repository, workflow file and environment exactly, or give the upload an API token instead"
	switch {
	case strings.Contains(win, "OpenID Connect token retrieval failed") || strings.Contains(win, "id-token: write") || strings.Contains(win, "retrieve an OIDC token"):
		reason = "trusted publishing: the job could not get an OIDC token"
		remedy = "grant the publishing job `permissions: id-token: write` (at the job level; not available to pull requests from forks), or give the upload an API token"
	case strings.Contains(win, "Non-user identities cannot create new projects"):
		reason = "trusted publishing: a pending publisher cannot create a project of another name"
		remedy = "make the project name of the pending publisher on PyPI and the name in the package metadata match"
	case strings.Contains(win, "has trusted publishing disabled") || strings.Contains(win, "not-enabled"):
		reason = "trusted publishing is disabled on this index"
		remedy = "upload with an API token, or wait until the index enables trusted publishing again"
	case strings.Contains(win, "does not indicate trusted publishing support"):
		reason = "this index does not support trusted publishing"
		remedy = "upload with an API token, or check the repository URL"
	default:
		if m := reTwineTPCode.FindStringSubmatch(win); m != nil {
			reason = "trusted publishing refused by the index (" + failure.Clip(m[1]) + ")"
		} else if strings.Contains(win, "server refused") {
			reason = "trusted publishing refused by the index"
		}
	}
	return failure.Hit{Class: failure.Policy, Code: CodeTwineTrustedPub, Rank: failure.RankTool, Reason: reason, Remedy: remedy}, true
}

// pypiContext reports whether a line (or the text around it) is an answer of
// a Python package index, for phrases other tools might print.
func pypiContext(c *failure.ScanCtx, line string) bool {
	for _, s := range []string{"pypi", "PyPI", "/legacy", "core-metadata", "HTTPError", "HTTP Error 400", "Server says", "400 "} {
		if strings.Contains(line, s) {
			return true
		}
	}
	near := textBefore(c, 0)
	for _, s := range []string{"pypi.org", "/legacy/", "HTTPError: 400", "HTTP Error 400", "UploadError"} {
		if strings.Contains(near, s) {
			return true
		}
	}
	return false
}

// pypiDetail returns the server's message of a line without the client's
// frame ("ERROR    HTTPError: 400 Client Error: ", "Server says: 400 ").
func pypiDetail(line string) string {
	d := strings.TrimSpace(line)
	for _, frame := range []string{"Client Error: ", "Server says: ", "HTTP Error 400: ", "Bad Request: ", "): ", "ERROR "} {
		if _, after, ok := strings.Cut(d, frame); ok {
			d = strings.TrimSpace(after)
		}
	}
	d = strings.TrimPrefix(d, "400 ")
	if i := strings.Index(d, " for url: "); i > 0 {
		d = d[:i]
	}
	return d
}

// distVersion returns the version in a distribution's file name
// ("pkg-1.2.0-py3-none-any.whl", "pkg-1.2.0.tar.gz"), or "".
func distVersion(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	if strings.HasSuffix(file, ".whl") {
		parts := strings.Split(file, "-")
		if len(parts) >= 5 {
			return parts[1]
		}
		return ""
	}
	for _, ext := range []string{".tar.gz", ".zip", ".tar.bz2", ".egg"} {
		if base, ok := strings.CutSuffix(file, ext); ok {
			if i := strings.LastIndexByte(base, '-'); i > 0 && i+1 < len(base) && base[i+1] >= '0' && base[i+1] <= '9' {
				return base[i+1:]
			}
		}
	}
	return ""
}
