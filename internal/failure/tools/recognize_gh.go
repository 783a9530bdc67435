package tools

import (
	"net/url"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// The GitHub CLI's failures. gh reports a REST answer as "HTTP 422:
// Validation Failed (https://api.github.com/...)" with the API's error items
// on the lines after it ("ReleaseAsset.name already exists"), `gh api` as
// "gh: Not Found (HTTP 404)", a GraphQL answer as "GraphQL: <message>
// (<path>)", joined with ", " when there are several. Its own checks print a
// sentence ("release not found", "asset under the same name already
// exists"), and a missing token the GH_TOKEN / gh auth login advice. The
// message inside a status or a GraphQL answer decides (a 403 is a rate
// limit or a missing permission); the status alone is read with the verb the
// URL shows (a 404 on an upload is not an absence).

// gh's codes.
const (
	CodeGHAuthRequired   failure.Code = "gh-auth-required"
	CodeGHAlreadyExists  failure.Code = "gh-already-exists"
	CodeGHPRExists       failure.Code = "gh-pr-already-exists"
	CodeGHNoCommits      failure.Code = "gh-no-commits-between"
	CodeGHPRRejected     failure.Code = "gh-pr-create-rejected"
	CodeGHActionsPR      failure.Code = "gh-actions-pr-not-permitted"
	CodeGHContentLimit   failure.Code = "gh-content-creation-limit"
	CodeGHGraphQLFailed  failure.Code = "gh-graphql-internal-error"
	CodeGHBaseModified   failure.Code = "gh-base-branch-modified"
	CodeGHReleaseMissing failure.Code = "gh-release-not-found"
	CodeGHNoAssets       failure.Code = "gh-no-assets"
	CodeGHTagNotPushed   failure.Code = "gh-tag-not-pushed"
	CodeGHTargetMissing  failure.Code = "gh-target-missing"
	CodeGHNotMergeable   failure.Code = "gh-pr-not-mergeable"
)

const (
	remedyGHToken    = "give gh a token: in a workflow step set env GH_TOKEN: ${{ github.token }} (or a secret holding a PAT); elsewhere run gh auth login or export GH_TOKEN"
	remedyGHNotFound = "not there: check the owner/repository, tag or number; a private repository also looks absent to a token that cannot see it"
)

var (
	reGHHTTP       = failure.LazyRE(`HTTP ([45]\d\d)(?:: (.*?))? \((https?://[^\s)]+)`)
	reGHAPI        = failure.LazyRE(`\bgh: (.+?) \(HTTP ([45]\d\d)\)`)
	reGHGraphQL    = failure.LazyRE(`\bGraphQL(?: error)?: (.+)`)
	reGHGQLPath    = failure.LazyRE(`\(([a-z][A-Za-z]*)(?:\.[\w.]+)?\)\s*$`)
	reGHExists     = failure.LazyRE(`\b([A-Z][A-Za-z]+)\.(\w+) already(?: |_)exists\b|\b(Reference|Tag) already exists\b|asset under the same name already exists(?:: (.*))?|a release with the same tag name already exists(?:: (\S+))?`)
	reGHPRExists   = failure.LazyRE(`A pull request already exists for ([^\s"'}\],()]+)|a pull request for branch "([^"]*)"(?: into branch "([^"]*)")? already exists`)
	reGHNoCommits  = failure.LazyRE(`No commits between ([^\s"'}\],]+) and ([^\s"'}\],()]+)`)
	reGHNotFoundQL = failure.LazyRE(`Could not resolve to an? (\w+)(?: with the (?:name|number of|login of|global id of) '?([^'\s)]+)'?)?`)
	reGHOwnAbsent  = failure.LazyRE(`^\s*(release not found|no assets to download|no assets match the file pattern|no valid artifacts found to download)\s*$`)
	reGHTagLocal   = failure.LazyRE(`tag (\S+) exists locally but has not been pushed to (\S+?),`)
	reGHConnect    = failure.LazyRE(`^\s*error connecting to (\S+)\s*$`)
	reGHMergeable  = failure.LazyRE(`Pull request (\S+ )?is not mergeable(?:: (.+))?`)
)

var ghFamily = failure.Family{
	Tool:  failure.ToolGH,
	Names: []string{"gh"},
	// every mark costs a scan of the whole text: two that gh's failures print
	Marks:    []string{"GraphQL: ", "GH_TOKEN"},
	Matchers: ghMatchers,
}

var ghMatchers = []failure.Matcher{
	// frames: gh's REST and GraphQL answers
	{
		Gates: []string{"HTTP 4", "HTTP 5"},
		RE:    reGHHTTP,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return ghStatusHit(c, failure.Atoi(m[1]), m[2], m[3])
		},
	},
	{
		Gates: []string{"(HTTP 4", "(HTTP 5"},
		RE:    reGHAPI,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return ghStatusHit(c, failure.Atoi(m[2]), m[1], "")
		},
	},
	{
		Gates: []string{"GraphQL: ", "GraphQL error: "},
		RE:    reGHGraphQL,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) { return ghGraphQLHit(c, m[1]) },
	},

	// gh's own sentences and the API's messages it relays
	{
		Gates: []string{"with GitHub CLI", "GH_TOKEN environment variable", "logged into any GitHub hosts", "`gh auth login`", "Try authenticating with:"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if !strings.Contains(line, "To get started with GitHub CLI") && !strings.Contains(line, "the GH_TOKEN environment variable") &&
				!strings.Contains(line, "not logged into any GitHub hosts") && !strings.Contains(line, "please run `gh auth login`") &&
				!strings.Contains(line, "Try authenticating with:  gh auth login") {
				return failure.Hit{}, false
			}
			reason := "gh has no token"
			switch {
			case strings.Contains(line, "GitHub Actions workflow"):
				reason = "gh has no token in this GitHub Actions step (GH_TOKEN is not set)"
			case strings.Contains(line, "Try authenticating"):
				reason = "gh's token was rejected"
			}
			return failure.Hit{Class: failure.Policy, Code: CodeGHAuthRequired, Rank: failure.RankRefusal, Reason: reason, Remedy: remedyGHToken}, true
		},
	},
	{
		Gates: []string{"lready exists", "lready_exists"},
		RE:    reGHExists,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) { return ghExistsHit(m), true },
	},
	{
		Gates: []string{"lready exists"},
		RE:    reGHPRExists,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			branch, rank := strings.TrimSuffix(m[1], "."), failure.RankRefusal
			if m[2] != "" {
				branch, rank = m[2], failure.RankTool // gh's own check
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGHPRExists, Rank: rank, Reason: "a pull request already exists for " + failure.Clip(branch),
				Remedy: "update the open pull request (push to its branch, gh pr edit) instead of creating another, or create it from a new branch"}, true
		},
	},
	{
		Gates: []string{"No commits between"},
		RE:    reGHNoCommits,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeGHNoCommits, Rank: failure.RankRefusal, Reason: "no commits between " + failure.Clip(m[1]) + " and " + failure.Clip(m[2]),
				Remedy: "push the commits to " + failure.Clip(m[2]) + " before opening the pull request (or skip it when there is nothing to propose); check --head and --base"}, true
		},
	},
	{
		Gates: []string{"GitHub Actions is not permitted to create or approve pull requests"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: CodeGHActionsPR, Rank: failure.RankRefusal, Reason: "GitHub Actions is not permitted to create or approve pull requests",
				Remedy: "enable Settings → Actions → General → \"Allow GitHub Actions to create and approve pull requests\" (repository or organisation), or use a PAT or GitHub App token"}, true
		},
	},
	{
		Gates: []string{"was submitted too quickly"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Transient, Code: CodeGHContentLimit, Rank: failure.RankRateLimit, Reason: "GitHub's content-creation rate limit: was submitted too quickly",
				Remedy: "GitHub throttles creating many issues/pull requests in a row: wait a minute or more before creating the next one; retrying"}, true
		},
	},
	{
		Gates: []string{"Something went wrong while executing your query"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Transient, Code: CodeGHGraphQLFailed, Rank: failure.RankStatus, Reason: "GitHub's GraphQL API failed while executing the query (timeout or GitHub bug)",
				Remedy: "GitHub's side failed: retrying; if it keeps failing, ask for fewer items per page"}, true
		},
	},
	{
		Gates: []string{"Base branch was modified"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Unknown, Code: CodeGHBaseModified, Rank: failure.RankRefusal, Reason: "the base branch moved while merging",
				Remedy: "another merge landed first: re-check the pull request (checks, conflicts) and merge again if it is still mergeable"}, true
		},
	},
	{
		Gates: []string{"Could not resolve to a"},
		RE:    reGHNotFoundQL,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			what := m[1]
			if m[2] != "" {
				what += " " + m[2]
			}
			return failure.Hit{Class: failure.Absent, Code: failure.CodeGraphQLNotFound, Rank: failure.RankRefusal, Reason: "GitHub found no " + failure.Clip(what), Remedy: remedyGHNotFound}, true
		},
	},
	{
		Gates: []string{"ase not found", "wnload", "ile pattern"},
		RE:    reGHOwnAbsent,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			if m[1] == "release not found" {
				return failure.Hit{Class: failure.Absent, Code: CodeGHReleaseMissing, Rank: failure.RankTool, Reason: "gh: release not found",
					Remedy: "there is no release for that tag (or no published latest release): create it first, or check the tag and --repo"}, true
			}
			return failure.Hit{Class: failure.Absent, Code: CodeGHNoAssets, Rank: failure.RankTool, Reason: "gh: " + m[1],
				Remedy: "the release or run has nothing matching: check the pattern, the tag and --repo (the files may live in another repository)"}, true
		},
	},
	{
		Gates: []string{"rgeable"},
		RE:    reGHMergeable,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			why := strings.TrimSuffix(strings.TrimSpace(m[2]), ".")
			reason := "pull request "
			if name := failure.Clip(m[1]); name != "" {
				reason += name + " "
			}
			reason += "is not mergeable"
			if why != "" {
				reason += ": " + failure.Clip(why)
			}
			rank := failure.RankRefusal // the API's message
			if m[1] != "" {
				rank = failure.RankTool // gh's own, naming the pull request
			}
			if strings.Contains(why, "policy prohibits") {
				return failure.Hit{Class: failure.Policy, Code: CodeGHNotMergeable, Rank: rank, Reason: reason,
					Remedy: "the branch protection rules block the merge (reviews, checks): satisfy them, or use gh pr merge --auto to merge when they pass"}, true
			}
			return failure.Hit{Class: failure.Structural, Code: CodeGHNotMergeable, Rank: rank, Reason: reason,
				Remedy: "resolve the conflicts or update the branch with its base (gh pr update-branch), then merge"}, true
		},
	},
	{
		Gates: []string{"xists locally but has not been pushed to"},
		RE:    reGHTagLocal,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeGHTagNotPushed, Rank: failure.RankTool, Reason: "tag " + failure.Clip(m[1]) + " is not on " + failure.Clip(m[2]),
				Remedy: "git push origin " + failure.Clip(m[1]) + " before gh release create, or pass --target (and check --repo: gh may have picked the upstream remote)"}, true
		},
	},
	{
		Gates: []string{"rror connecting to "},
		RE:    reGHConnect,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			// gh prints this for a failed name lookup, with the advice line after it
			for _, l := range failure.FollowingLines(c.Text, c.LineEnd, 2) {
				if strings.Contains(l, "check your internet connection") {
					return failure.Hit{Class: failure.Transient, Code: failure.CodeDNS, Trace: failure.TrNet | failure.TrNotSent, Rank: failure.RankTransport, Reason: "gh could not resolve " + failure.Clip(m[1]),
						Remedy: "DNS lookup failed: retrying; if it persists, check the network, the proxy and githubstatus.com"}, true
				}
			}
			return failure.Hit{}, false
		},
	},
}

// ghExistsHit is the verdict on an "already exists" error: gh's own checks
// or the API's error item relayed under a 422.
func ghExistsHit(m []string) failure.Hit {
	h := failure.Hit{Class: failure.Structural, Code: CodeGHAlreadyExists, Rank: failure.RankTool}
	switch {
	case m[1] == "ReleaseAsset" || strings.HasPrefix(m[0], "asset under"):
		name := strings.Trim(m[4], "[] ")
		h.Reason = "a release asset with that name already exists"
		if name != "" {
			h.Reason = "release asset " + failure.Clip(name) + " already exists"
		}
		h.Remedy = "pass --clobber to replace the asset, upload it under a new name, or delete the old one first"
	case m[1] == "Release" || strings.HasPrefix(m[0], "a release with"):
		h.Reason = "a release for that tag already exists"
		if m[5] != "" {
			h.Reason = "a release for tag " + failure.Clip(m[5]) + " already exists"
		}
		h.Remedy = "the release is already there: upload to it (gh release upload --clobber) or edit it, or release under a new tag"
	case m[3] != "":
		h.Rank = failure.RankRefusal // the API's message, not gh's formatting
		h.Reason = m[3] + " already exists"
		h.Remedy = "the ref is already there: use a new name, or update the existing one (force only if that is intended)"
	default:
		h.Reason = failure.Clip(m[1]+"."+m[2]) + " already exists"
		h.Remedy = "the name is taken: choose a new one, or update the existing object instead of creating it"
	}
	return h
}

// ghStatusHit is gh's answer with a status: the message (and the API's error
// items on the lines after it) when recognised, else the status read with
// the verb the URL shows. Verdicts that stop rank as the tool's own answer.
func ghStatusHit(c *failure.ScanCtx, code int, msg, rawURL string) (failure.Hit, bool) {
	if code < 400 || code > 599 {
		return failure.Hit{}, false
	}
	c.Facts.Status = code
	if rawURL != "" {
		c.Facts.URL = rawURL
	}
	best, found := c.Phrase(msg)
	if code == 422 || code == 403 || code == 400 {
		// the error items follow on their own lines
		for _, l := range failure.FollowingLines(c.Text, c.LineEnd, 4) {
			if reGHHTTP.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "Error:") {
				break
			}
			if h, ok := c.Phrase(l); ok && (!found || failure.Better(h, best)) {
				best, found = h, true
			}
		}
	}
	st := failure.StatusName(code)
	if found && best.Code == CodeGHAlreadyExists && strings.HasPrefix(best.Reason, "a release asset") {
		if u, err := url.Parse(rawURL); err == nil && u.Query().Get("name") != "" {
			best.Reason = "release asset " + failure.Clip(u.Query().Get("name")) + " already exists"
		}
	}
	if found && best.Rank >= failure.RankTransport && best.Class != failure.Unknown {
		if best.Code == failure.CodeNotAccessible || best.Code == failure.CodeInsufficientPerm {
			if p := ghPermission(rawURL); p != "" {
				best.Remedy = "grant the workflow's token `" + p + "` (permissions: in the workflow), or use a token that has it"
			}
		}
		best.Reason = "gh: " + st + ": " + best.Reason
		if best.Class != failure.Transient {
			best.Rank = max(best.Rank, failure.RankTool)
		}
		return best, true
	}
	method := ghMethod(rawURL)
	if method == "" && (code == 404 || code == 410) {
		method = c.LookupMethod()
	}
	vd := failure.StatusVerdict(code, method, failure.ToolGH)
	h := failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankTool, Reason: "gh: " + st, Remedy: vd.Remedy}
	if m := strings.TrimSpace(msg); m != "" && !strings.Contains(strings.ToLower(m), strings.ToLower(statusPhrase(code))) {
		h.Reason += ": " + failure.Clip(m)
	}
	switch {
	case code == 404 && !failure.IsLookup(method):
		h.Code = CodeGHTargetMissing
		h.Reason = "gh: " + st + " on " + ghWhat(rawURL)
		h.Remedy = "the release, repository or workflow to write to is missing, or the token cannot see the repository (a private repository answers 404): create it first or grant the token access"
	case code == 404 || code == 410:
		h.Remedy = remedyGHNotFound
	case code == 401:
		h.Remedy = "gh's token is missing, expired or revoked: set GH_TOKEN to a valid token (in a workflow: ${{ github.token }} or a secret)"
	case code == 403:
		if p := ghPermission(rawURL); p != "" {
			h.Remedy = "grant the workflow's token `" + p + "` (permissions: in the workflow), or use a token that has it"
		}
	}
	if h.Class == failure.Transient {
		h.Rank = failure.RankStatus
	}
	return h, true
}

// statusPhrase is a status's reason phrase ("Not Found"), which gh repeats
// as the message; a NUL, which no message holds, for a status without one.
func statusPhrase(code int) string {
	if t := failure.StatusName(code); len(t) > len("HTTP 404 ") {
		return t[len("HTTP 404 "):]
	}
	return "\x00"
}

// ghMethod infers the verb of gh's request from its URL: uploads and the
// endpoints gh only POSTs to; "" when the URL does not show it.
func ghMethod(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	if strings.HasPrefix(u.Host, "uploads.") || strings.Contains(u.Path, "/api/uploads/") {
		return "POST"
	}
	for _, end := range []string{"/releases", "/dispatches", "/git/refs", "/merges", "/forks", "/generate-notes"} {
		if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), end) && u.RawQuery == "" {
			return "POST"
		}
	}
	return ""
}

// ghWhat names what a write went to, for a reason.
func ghWhat(rawURL string) string {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil || u.Host == "":
		return "a write"
	case strings.HasPrefix(u.Host, "uploads."):
		return "the release asset upload " + failure.Clip(u.Path)
	}
	return failure.Clip(u.Host + u.Path)
}

// ghPermission is the workflow permission an endpoint needs, "" when the URL
// does not say.
func ghPermission(rawURL string) string {
	switch {
	case rawURL == "":
		return ""
	case strings.Contains(rawURL, "/releases"), strings.Contains(rawURL, "/git/"), strings.Contains(rawURL, "/contents/"):
		return "contents: write"
	case strings.Contains(rawURL, "/pulls"):
		return "pull-requests: write"
	case strings.Contains(rawURL, "/issues"), strings.Contains(rawURL, "/labels"):
		return "issues: write"
	case strings.Contains(rawURL, "/actions/"):
		return "actions: write"
	case strings.Contains(rawURL, "/packages"):
		return "packages: write"
	}
	return ""
}

// ghGraphQLHit is gh's GraphQL answer: the message decides; a mutation gh
// ran to create a pull request that the API refused without a recognised
// message is a request to change.
func ghGraphQLHit(c *failure.ScanCtx, msg string) (failure.Hit, bool) {
	h, ok := c.Phrase(msg)
	path := ""
	if m := reGHGQLPath.FindStringSubmatch(msg); m != nil {
		path = m[1]
	}
	if ok && h.Rank >= failure.RankTransport && h.Class != failure.Unknown {
		if h.Code == failure.CodeNotAccessible && (path == "createPullRequest" || path == "mergePullRequest") {
			h.Remedy = "grant the workflow's token `pull-requests: write` (permissions: in the workflow), or use a token that has it"
		}
		if h.Class != failure.Transient {
			h.Rank = max(h.Rank, failure.RankTool)
		}
		h.Reason = "gh GraphQL: " + h.Reason
		return h, true
	}
	if ok && h.Class == failure.Unknown {
		return h, true
	}
	if path == "createPullRequest" {
		return failure.Hit{Class: failure.Structural, Code: CodeGHPRRejected, Rank: failure.RankTool, Reason: "the API refused to create the pull request: " + failure.Clip(strings.TrimSuffix(strings.TrimSpace(msg), "(createPullRequest)")),
			Remedy: "fix the pull request's head and base (the head branch must be pushed and differ from the base)"}, true
	}
	return failure.Hit{}, false
}
