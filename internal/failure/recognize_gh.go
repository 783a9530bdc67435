package failure

import (
	"net/url"
	"strings"
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
	CodeGHAuthRequired   Code = "gh-auth-required"
	CodeGHAlreadyExists  Code = "gh-already-exists"
	CodeGHPRExists       Code = "gh-pr-already-exists"
	CodeGHNoCommits      Code = "gh-no-commits-between"
	CodeGHPRRejected     Code = "gh-pr-create-rejected"
	CodeGHActionsPR      Code = "gh-actions-pr-not-permitted"
	CodeGHContentLimit   Code = "gh-content-creation-limit"
	CodeGHGraphQLFailed  Code = "gh-graphql-internal-error"
	CodeGHBaseModified   Code = "gh-base-branch-modified"
	CodeGHReleaseMissing Code = "gh-release-not-found"
	CodeGHNoAssets       Code = "gh-no-assets"
	CodeGHTagNotPushed   Code = "gh-tag-not-pushed"
	CodeGHTargetMissing  Code = "gh-target-missing"
	CodeGHNotMergeable   Code = "gh-pr-not-mergeable"
)

const (
	remedyGHToken    = "give gh a token: in a workflow step set env GH_TOKEN: ${{ github.token }} (or a secret holding a PAT); elsewhere run gh auth login or export GH_TOKEN"
	remedyGHNotFound = "not there: check the owner/repository, tag or number; a private repository also looks absent to a token that cannot see it"
)

var (
	reGHHTTP       = lazyRE(`HTTP ([45]\d\d)(?:: (.*?))? \((https?://[^\s)]+)`)
	reGHAPI        = lazyRE(`\bgh: (.+?) \(HTTP ([45]\d\d)\)`)
	reGHGraphQL    = lazyRE(`\bGraphQL(?: error)?: (.+)`)
	reGHGQLPath    = lazyRE(`\(([a-z][A-Za-z]*)(?:\.[\w.]+)?\)\s*$`)
	reGHExists     = lazyRE(`\b([A-Z][A-Za-z]+)\.(\w+) already(?: |_)exists\b|\b(Reference|Tag) already exists\b|asset under the same name already exists(?:: (.*))?|a release with the same tag name already exists(?:: (\S+))?`)
	reGHPRExists   = lazyRE(`A pull request already exists for ([^\s"'}\],()]+)|a pull request for branch "([^"]*)"(?: into branch "([^"]*)")? already exists`)
	reGHNoCommits  = lazyRE(`No commits between ([^\s"'}\],]+) and ([^\s"'}\],()]+)`)
	reGHNotFoundQL = lazyRE(`Could not resolve to an? (\w+)(?: with the (?:name|number of|login of|global id of) '?([^'\s)]+)'?)?`)
	reGHOwnAbsent  = lazyRE(`^\s*(release not found|no assets to download|no assets match the file pattern|no valid artifacts found to download)\s*$`)
	reGHTagLocal   = lazyRE(`tag (\S+) exists locally but has not been pushed to (\S+?),`)
	reGHConnect    = lazyRE(`^\s*error connecting to (\S+)\s*$`)
	reGHMergeable  = lazyRE(`Pull request (\S+ )?is not mergeable(?:: (.+))?`)
)

var ghFamily = family{
	tool:  ToolGH,
	names: []string{"gh"},
	// every mark costs a scan of the whole text: two that gh's failures print
	marks:    []string{"GraphQL: ", "GH_TOKEN"},
	matchers: ghMatchers,
}

var ghMatchers = []matcher{
	// frames: gh's REST and GraphQL answers
	{
		gates: []string{"HTTP 4", "HTTP 5"},
		re:    reGHHTTP,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			return ghStatusHit(c, atoi(m[1]), m[2], m[3])
		},
	},
	{
		gates: []string{"(HTTP 4", "(HTTP 5"},
		re:    reGHAPI,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			return ghStatusHit(c, atoi(m[2]), m[1], "")
		},
	},
	{
		gates: []string{"GraphQL: ", "GraphQL error: "},
		re:    reGHGraphQL,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) { return ghGraphQLHit(c, m[1]) },
	},

	// gh's own sentences and the API's messages it relays
	{
		gates: []string{"with GitHub CLI", "GH_TOKEN environment variable", "logged into any GitHub hosts", "`gh auth login`", "Try authenticating with:"},
		build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
			if !strings.Contains(line, "To get started with GitHub CLI") && !strings.Contains(line, "the GH_TOKEN environment variable") &&
				!strings.Contains(line, "not logged into any GitHub hosts") && !strings.Contains(line, "please run `gh auth login`") &&
				!strings.Contains(line, "Try authenticating with:  gh auth login") {
				return hit{}, false
			}
			reason := "gh has no token"
			switch {
			case strings.Contains(line, "GitHub Actions workflow"):
				reason = "gh has no token in this GitHub Actions step (GH_TOKEN is not set)"
			case strings.Contains(line, "Try authenticating"):
				reason = "gh's token was rejected"
			}
			return hit{class: Policy, code: CodeGHAuthRequired, rank: rankRefusal, reason: reason, remedy: remedyGHToken}, true
		},
	},
	{
		gates: []string{"lready exists", "lready_exists"},
		re:    reGHExists,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) { return ghExistsHit(m), true },
	},
	{
		gates: []string{"lready exists"},
		re:    reGHPRExists,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			branch, rank := strings.TrimSuffix(m[1], "."), rankRefusal
			if m[2] != "" {
				branch, rank = m[2], rankTool // gh's own check
			}
			return hit{class: Structural, code: CodeGHPRExists, rank: rank, reason: "a pull request already exists for " + clip(branch),
				remedy: "update the open pull request (push to its branch, gh pr edit) instead of creating another, or create it from a new branch"}, true
		},
	},
	{
		gates: []string{"No commits between"},
		re:    reGHNoCommits,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGHNoCommits, rank: rankRefusal, reason: "no commits between " + clip(m[1]) + " and " + clip(m[2]),
				remedy: "push the commits to " + clip(m[2]) + " before opening the pull request (or skip it when there is nothing to propose); check --head and --base"}, true
		},
	},
	{
		gates: []string{"GitHub Actions is not permitted to create or approve pull requests"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGHActionsPR, rank: rankRefusal, reason: "GitHub Actions is not permitted to create or approve pull requests",
				remedy: "enable Settings → Actions → General → \"Allow GitHub Actions to create and approve pull requests\" (repository or organisation), or use a PAT or GitHub App token"}, true
		},
	},
	{
		gates: []string{"was submitted too quickly"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Transient, code: CodeGHContentLimit, rank: rankRateLimit, reason: "GitHub's content-creation rate limit: was submitted too quickly",
				remedy: "GitHub throttles creating many issues/pull requests in a row: wait a minute or more before creating the next one; retrying"}, true
		},
	},
	{
		gates: []string{"Something went wrong while executing your query"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Transient, code: CodeGHGraphQLFailed, rank: rankStatus, reason: "GitHub's GraphQL API failed while executing the query (timeout or GitHub bug)",
				remedy: "GitHub's side failed: retrying; if it keeps failing, ask for fewer items per page"}, true
		},
	},
	{
		gates: []string{"Base branch was modified"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Unknown, code: CodeGHBaseModified, rank: rankRefusal, reason: "the base branch moved while merging",
				remedy: "another merge landed first: re-check the pull request (checks, conflicts) and merge again if it is still mergeable"}, true
		},
	},
	{
		gates: []string{"Could not resolve to a"},
		re:    reGHNotFoundQL,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			what := m[1]
			if m[2] != "" {
				what += " " + m[2]
			}
			return hit{class: Absent, code: CodeGraphQLNotFound, rank: rankRefusal, reason: "GitHub found no " + clip(what), remedy: remedyGHNotFound}, true
		},
	},
	{
		gates: []string{"ase not found", "wnload", "ile pattern"},
		re:    reGHOwnAbsent,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			if m[1] == "release not found" {
				return hit{class: Absent, code: CodeGHReleaseMissing, rank: rankTool, reason: "gh: release not found",
					remedy: "there is no release for that tag (or no published latest release): create it first, or check the tag and --repo"}, true
			}
			return hit{class: Absent, code: CodeGHNoAssets, rank: rankTool, reason: "gh: " + m[1],
				remedy: "the release or run has nothing matching: check the pattern, the tag and --repo (the files may live in another repository)"}, true
		},
	},
	{
		gates: []string{"rgeable"},
		re:    reGHMergeable,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			why := strings.TrimSuffix(strings.TrimSpace(m[2]), ".")
			reason := "pull request "
			if name := clip(m[1]); name != "" {
				reason += name + " "
			}
			reason += "is not mergeable"
			if why != "" {
				reason += ": " + clip(why)
			}
			rank := rankRefusal // the API's message
			if m[1] != "" {
				rank = rankTool // gh's own, naming the pull request
			}
			if strings.Contains(why, "policy prohibits") {
				return hit{class: Policy, code: CodeGHNotMergeable, rank: rank, reason: reason,
					remedy: "the branch protection rules block the merge (reviews, checks): satisfy them, or use gh pr merge --auto to merge when they pass"}, true
			}
			return hit{class: Structural, code: CodeGHNotMergeable, rank: rank, reason: reason,
				remedy: "resolve the conflicts or update the branch with its base (gh pr update-branch), then merge"}, true
		},
	},
	{
		gates: []string{"xists locally but has not been pushed to"},
		re:    reGHTagLocal,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGHTagNotPushed, rank: rankTool, reason: "tag " + clip(m[1]) + " is not on " + clip(m[2]),
				remedy: "git push origin " + clip(m[1]) + " before gh release create, or pass --target (and check --repo: gh may have picked the upstream remote)"}, true
		},
	},
	{
		gates: []string{"rror connecting to "},
		re:    reGHConnect,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			// gh prints this for a failed name lookup, with the advice line after it
			for _, l := range followingLines(c.text, c.lineEnd, 2) {
				if strings.Contains(l, "check your internet connection") {
					return hit{class: Transient, code: CodeDNS, tr: trNet | trNotSent, rank: rankTransport, reason: "gh could not resolve " + clip(m[1]),
						remedy: "DNS lookup failed: retrying; if it persists, check the network, the proxy and githubstatus.com"}, true
				}
			}
			return hit{}, false
		},
	},
}

// ghExistsHit is the verdict on an "already exists" error: gh's own checks
// or the API's error item relayed under a 422.
func ghExistsHit(m []string) hit {
	h := hit{class: Structural, code: CodeGHAlreadyExists, rank: rankTool}
	switch {
	case m[1] == "ReleaseAsset" || strings.HasPrefix(m[0], "asset under"):
		name := strings.Trim(m[4], "[] ")
		h.reason = "a release asset with that name already exists"
		if name != "" {
			h.reason = "release asset " + clip(name) + " already exists"
		}
		h.remedy = "pass --clobber to replace the asset, upload it under a new name, or delete the old one first"
	case m[1] == "Release" || strings.HasPrefix(m[0], "a release with"):
		h.reason = "a release for that tag already exists"
		if m[5] != "" {
			h.reason = "a release for tag " + clip(m[5]) + " already exists"
		}
		h.remedy = "the release is already there: upload to it (gh release upload --clobber) or edit it, or release under a new tag"
	case m[3] != "":
		h.rank = rankRefusal // the API's message, not gh's formatting
		h.reason = m[3] + " already exists"
		h.remedy = "the ref is already there: use a new name, or update the existing one (force only if that is intended)"
	default:
		h.reason = clip(m[1]+"."+m[2]) + " already exists"
		h.remedy = "the name is taken: choose a new one, or update the existing object instead of creating it"
	}
	return h
}

// ghStatusHit is gh's answer with a status: the message (and the API's error
// items on the lines after it) when recognised, else the status read with
// the verb the URL shows. Verdicts that stop rank as the tool's own answer.
func ghStatusHit(c *scanCtx, code int, msg, rawURL string) (hit, bool) {
	if code < 400 || code > 599 {
		return hit{}, false
	}
	c.facts.status = code
	if rawURL != "" {
		c.facts.url = rawURL
	}
	best, found := c.phrase(msg)
	if code == 422 || code == 403 || code == 400 {
		// the error items follow on their own lines
		for _, l := range followingLines(c.text, c.lineEnd, 4) {
			if reGHHTTP.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "Error:") {
				break
			}
			if h, ok := c.phrase(l); ok && (!found || better(h, best)) {
				best, found = h, true
			}
		}
	}
	st := statusName(code)
	if found && best.code == CodeGHAlreadyExists && strings.HasPrefix(best.reason, "a release asset") {
		if u, err := url.Parse(rawURL); err == nil && u.Query().Get("name") != "" {
			best.reason = "release asset " + clip(u.Query().Get("name")) + " already exists"
		}
	}
	if found && best.rank >= rankTransport && best.class != Unknown {
		if best.code == CodeNotAccessible || best.code == CodeInsufficientPerm {
			if p := ghPermission(rawURL); p != "" {
				best.remedy = "grant the workflow's token `" + p + "` (permissions: in the workflow), or use a token that has it"
			}
		}
		best.reason = "gh: " + st + ": " + best.reason
		if best.class != Transient {
			best.rank = max(best.rank, rankTool)
		}
		return best, true
	}
	method := ghMethod(rawURL)
	if method == "" && (code == 404 || code == 410) {
		method = c.lookupMethod()
	}
	vd := statusVerdict(code, method, ToolGH)
	h := hit{class: vd.class, code: vd.code, rank: rankTool, reason: "gh: " + st, remedy: vd.remedy}
	if m := strings.TrimSpace(msg); m != "" && !strings.Contains(strings.ToLower(m), strings.ToLower(statusPhrase(code))) {
		h.reason += ": " + clip(m)
	}
	switch {
	case code == 404 && !isLookup(method):
		h.code = CodeGHTargetMissing
		h.reason = "gh: " + st + " on " + ghWhat(rawURL)
		h.remedy = "the release, repository or workflow to write to is missing, or the token cannot see the repository (a private repository answers 404): create it first or grant the token access"
	case code == 404 || code == 410:
		h.remedy = remedyGHNotFound
	case code == 401:
		h.remedy = "gh's token is missing, expired or revoked: set GH_TOKEN to a valid token (in a workflow: ${{ github.token }} or a secret)"
	case code == 403:
		if p := ghPermission(rawURL); p != "" {
			h.remedy = "grant the workflow's token `" + p + "` (permissions: in the workflow), or use a token that has it"
		}
	}
	if h.class == Transient {
		h.rank = rankStatus
	}
	return h, true
}

// statusPhrase is a status's reason phrase ("Not Found"), which gh repeats
// as the message; a NUL, which no message holds, for a status without one.
func statusPhrase(code int) string {
	if t := statusName(code); len(t) > len("HTTP 404 ") {
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
		return "the release asset upload " + clip(u.Path)
	}
	return clip(u.Host + u.Path)
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
func ghGraphQLHit(c *scanCtx, msg string) (hit, bool) {
	h, ok := c.phrase(msg)
	path := ""
	if m := reGHGQLPath.FindStringSubmatch(msg); m != nil {
		path = m[1]
	}
	if ok && h.rank >= rankTransport && h.class != Unknown {
		if h.code == CodeNotAccessible && (path == "createPullRequest" || path == "mergePullRequest") {
			h.remedy = "grant the workflow's token `pull-requests: write` (permissions: in the workflow), or use a token that has it"
		}
		if h.class != Transient {
			h.rank = max(h.rank, rankTool)
		}
		h.reason = "gh GraphQL: " + h.reason
		return h, true
	}
	if ok && h.class == Unknown {
		return h, true
	}
	if path == "createPullRequest" {
		return hit{class: Structural, code: CodeGHPRRejected, rank: rankTool, reason: "the API refused to create the pull request: " + clip(strings.TrimSuffix(strings.TrimSpace(msg), "(createPullRequest)")),
			remedy: "fix the pull request's head and base (the head branch must be pushed and differ from the base)"}, true
	}
	return hit{}, false
}
