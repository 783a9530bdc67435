package failure

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// git's push/fetch/clone output: porcelain rejection lines, GitHub's GHnnn
// rule codes, identity and ACL refusals, size limits, and the transport
// messages git relays from libcurl ("RPC failed; curl N", "unable to access
// 'url': msg").

const (
	remedyRules      = "open a pull request or ask an admin to change the rule"
	remedyRepoAccess = "check the repository URL; a private repository looks 'not found' to credentials without access: grant the token access to it"
	remedyCreds      = "provide valid credentials: a personal access token or SSH key (account passwords are not accepted), via the credential helper or the checkout action's token"
)

var (
	reRejected    = lazyRE(`!\s*\[(rejected|remote rejected)\]\s+(\S+)\s+->\s+(\S+)\s+\((.+)\)`)
	reGHCode      = lazyRE(`\bGH0(\d\d)\b`)
	reGHRef       = lazyRE(`refs/heads/(\S+?)\.?(?:\s|$)`)
	rePermTo      = lazyRE(`Permission to (\S+?) denied to (.+?)\.?\s*$`)
	reAuthFailed  = lazyRE(`(?i)authentication failed(?: for '([^']*)')?`)
	reCouldRead   = lazyRE(`could not read (Username|Password) for '([^']*)'`)
	rePwdRemoved  = lazyRE(`(?i)password authentication (?:was removed|is not supported)|invalid username or (?:password|token)|invalid credentials`)
	reRepoMissing = lazyRE(`(?i)repository not found|repository:? '([^']*)'\s*not found|project you were looking for could not be found`)
	reRemoteRef   = lazyRE(`(?i)couldn't find remote ref (\S+)|remote branch (\S+) not found in upstream`)
	reNotRepo     = lazyRE(`'([^']*)' does not appear to be a git repository`)
	reRefspec     = lazyRE(`src refspec (\S+) does not match any`)
	reDubious     = lazyRE(`detected dubious ownership in repository at '([^']*)'`)
	reWorkflow    = lazyRE(`refusing to allow an? (GitHub App|OAuth App|Personal Access Token|\S+(?: \S+)?) to create or update workflow ` + "`?" + `([^` + "`" + `\s]*)`)
	reSizeLimit   = lazyRE(`(?i)file size limit|large files detected|exceeds maximum allowed size|pack exceeds|is larger than the maximum|object too large`)
	reSizeFile    = lazyRE(`File (\S+) is ([\d.]+ ?[KMG]i?B)`)
	reRPCcurl     = lazyRE(`RPC failed; (?:HTTP (\d{3}) )?curl (\d+)[ \t]*(.*)`)
	reRPCresult   = lazyRE(`RPC failed; result=(\d+), HTTP code = (\d{3})`)
	reUnableTo    = lazyRE(`unable to access '([^']*)': (.*)`)
	reRateLimited = lazyRE(`rate limited by '([^']*)', please try again (?:in (\S+) seconds?|later)`)
	reAftermath   = lazyRE(`(?i)hung up unexpectedly|early EOF|unexpected disconnect while reading sideband packet|index-pack failed|invalid index-pack output|remote failed to report status|did not send all necessary objects|protocol error: bad pack header`)
	reRemote5xx   = lazyRE(`remote:.*?(Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)`)
	reHintRejects = lazyRE(`Updates were rejected because (.*)`)
	reGitLabProt  = lazyRE(`You are not allowed to (push code to protected branches|force push code to a protected branch|push code to this project|\S+)`)
)

var gitMatchers = []matcher{
	// frames: messages git relays from libcurl
	{
		gates: []string{"RPC failed; "},
		re:    reRPCcurl,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			if code := atoi(m[1]); code >= 400 {
				h, ok := statusHit(c, code, rankStatus)
				h.reason = "git RPC failed: " + h.reason
				return h, ok
			}
			curl := atoi(m[2])
			if h, ok := c.phrase(m[3]); ok && h.rank >= rankTransport {
				h.reason = fmt.Sprintf("git RPC failed, curl %d, %s", curl, h.reason)
				return h, true
			}
			h := curlCodeHit(curl, m[3])
			h.reason, h.rank = "git RPC failed, "+h.reason, rankCurlCode
			return h, true
		},
	},
	{
		gates: []string{"HTTP code = "},
		re:    reRPCresult,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			h, ok := statusHit(c, atoi(m[2]), rankStatus)
			h.reason = "git RPC failed: " + h.reason
			return h, ok
		},
	},
	{
		gates: []string{"unable to access '"},
		re:    reUnableTo,
		frame: true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			host := hostOf(m[1])
			c.facts.url = m[1]
			if h, ok := c.phrase(m[2]); ok {
				h.reason = "git cannot access " + host + ": " + h.reason
				return h, true
			}
			return hit{class: Unknown, code: CodeGitAccess, rank: rankMention, reason: "git cannot access " + host + ": " + clip(m[2]),
				remedy: "read git's message; add --retry-on or --stop-on if this failure recurs"}, true
		},
	},

	// rejections
	{
		gates: []string{"rejected]"},
		re:    reRejected,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return rejectionHit(m[1] == "remote rejected", m[3], m[4]), true
		},
	},
	{
		gates: []string{"Updates were rejected because"},
		re:    reHintRejects,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			why := "push rejected"
			switch {
			case strings.Contains(m[1], "behind"):
				why = "non-fast-forward"
			case strings.Contains(m[1], "remote contains work"):
				why = "fetch first"
			case strings.Contains(m[1], "already exists"):
				why = "already exists"
			}
			h := rejectionHit(false, "", why)
			h.rank = rankHint
			return h, true
		},
	},
	{
		gates: []string{"GH0"},
		re:    reGHCode,
		build: func(c *scanCtx, line string, m []string) (hit, bool) { return ghCodeHit(c, line, "GH0"+m[1]), true },
	},
	{
		gates: []string{"to create or update workflow"},
		re:    reWorkflow,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			file := strings.TrimRight(strings.Trim(m[2], "`'\")"), ".,")
			reason := "git push refused: the " + m[1] + " token may not update workflow files"
			if file != "" {
				reason += " (" + clip(file) + ")"
			}
			// the token lacks a permission: policy, like any other
			return hit{class: Policy, code: CodeGitWorkflow, rank: rankRefusal + 1, reason: reason,
				remedy: "this token can never change .github/workflows: push without the workflow change, or use a token with the `workflow` scope (workflows: write)"}, true
		},
	},
	{
		gates: []string{"file size limit", "arge files detected", "exceeds maximum allowed size", "pack exceeds", "larger than the maximum", "object too large", "Object too large"},
		re:    reSizeLimit,
		build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
			reason := "git push rejected: file exceeds the server's size limit"
			if f := reSizeFile.FindStringSubmatch(line); f != nil {
				reason = "git push rejected: " + clip(f[1]) + " is " + f[2] + ", over the server's file size limit"
			}
			return hit{class: Structural, code: CodeGitLargeFile, rank: rankRefusal, reason: reason, remedy: remedyLargeFile}, true
		},
	},
	{
		gates: []string{"refusing to update checked out branch"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return rejectionHit(true, "", "branch is currently checked out"), true
		},
	},
	{
		gates: []string{"does not appear to be a git repository"},
		re:    reNotRepo,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGitNotRemote, rank: rankRefusal, reason: "'" + clip(m[1]) + "' is not a git remote or repository",
				remedy: "the command line must change: name an existing remote (git remote -v) or a repository URL"}, true
		},
	},
	{
		gates: []string{"ot a git repository"},
		build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
			if !strings.Contains(line, "not a git repository") {
				return hit{}, false
			}
			return hit{class: Structural, code: CodeGitNotRepo, rank: rankRefusal, reason: "not inside a git repository",
				remedy: "run git inside the repository (check out the repository first, or fix the working directory)"}, true
		},
	},
	{
		gates: []string{"src refspec "},
		re:    reRefspec,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Structural, code: CodeGitNoLocalRef, rank: rankRefusal, reason: "git push: no local ref " + clip(m[1]),
				remedy: "commit first, or push a ref that exists (git branch -a; e.g. git push origin HEAD:" + clip(m[1]) + ")"}, true
		},
	},
	{
		gates: []string{"dubious ownership"},
		re:    reDubious,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			p := clip(m[1])
			return hit{class: Structural, code: CodeGitDubiousOwner, rank: rankRefusal, reason: "git refuses a repository owned by another user (" + p + ")",
				remedy: "git config --global --add safe.directory " + p + " or retrywise --safe-directory"}, true
		},
	},
	{
		gates: []string{"ouldn't find remote ref", "OULDN'T FIND REMOTE REF", "not found in upstream"},
		re:    reRemoteRef,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			ref := m[1]
			if ref == "" {
				ref = m[2]
			}
			return hit{class: Absent, code: CodeGitRemoteRefGone, rank: rankRefusal, reason: "remote ref " + clip(ref) + " does not exist",
				remedy: "create the branch or tag first (e.g. push it), or fetch a ref that exists (git ls-remote origin)"}, true
		},
	},

	// identity and ACL refusals
	{
		gates: []string{"denied to "},
		re:    rePermTo,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			who := strings.TrimSpace(m[2])
			remedy := "give " + clip(who) + " write access to " + clip(m[1]) + ", or push with credentials that have it"
			switch {
			case strings.Contains(who, "github-actions") || strings.Contains(who, "[bot]"):
				remedy = remedyActions
			case strings.Contains(strings.ToLower(who), "deploy key"):
				remedy = "the deploy key is read-only: enable \"Allow write access\" for it, or use another key"
			}
			return hit{class: Policy, code: CodeGitPermission, rank: rankRefusal, reason: "permission to " + clip(m[1]) + " denied to " + clip(who), remedy: remedy}, true
		},
	},
	{
		gates: []string{"Write access to repository not granted"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGitPermission, rank: rankRefusal, reason: "write access to repository not granted", remedy: remedyActions}, true
		},
	},
	{
		gates: []string{"uthentication failed", "UTHENTICATION FAILED"},
		re:    reAuthFailed,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			reason := "authentication failed"
			if m[1] != "" {
				reason += " for " + hostOf(m[1])
			}
			return hit{class: Policy, code: CodeGitAuthFailed, rank: rankRefusal, reason: reason, remedy: remedyCreds}, true
		},
	},
	{
		gates: []string{"could not read Username", "could not read Password"},
		re:    reCouldRead,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Policy, code: CodeGitNoCredentials, rank: rankRefusal, reason: "no credentials for " + hostOf(m[2]) + " (git could not prompt for the " + strings.ToLower(m[1]) + ")",
				remedy: remedyCreds}, true
		},
	},
	{
		gates: []string{"assword authentication", "nvalid username or", "nvalid credentials"},
		re:    rePwdRemoved,
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGitPasswordAuth, rank: rankRefusal, reason: "credentials rejected (password authentication is not accepted)", remedy: remedyCreds}, true
		},
	},
	{
		gates: []string{"epository not found", "EPOSITORY NOT FOUND", "not found", "could not be found"},
		re:    reRepoMissing,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			reason := "repository not found (or the credentials cannot see it)"
			if m[1] != "" {
				reason = "repository " + hostOf(m[1]) + "/… not found (or the credentials cannot see it)"
				if u := strings.TrimSpace(m[1]); u != "" {
					reason = "repository " + clip(u) + " not found (or the credentials cannot see it)"
				}
			}
			return hit{class: Policy, code: CodeGitRepoNotFound, rank: rankRefusal, reason: reason, remedy: remedyRepoAccess}, true
		},
	},
	{
		gates: []string{"Permission denied (publickey", "Permission denied (keyboard", "Permission denied (password"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGitSSHKey, rank: rankRefusal, reason: "SSH key rejected by the server",
				remedy: "add the SSH public key to the account or as a deploy key, or load the right key (ssh-add, core.sshCommand)"}, true
		},
	},
	{
		gates: []string{"HTTP Basic: Access denied"},
		build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
			return hit{class: Policy, code: CodeGitAuthFailed, rank: rankRefusal, reason: "HTTP Basic access denied", remedy: remedyCreds}, true
		},
	},
	{
		gates: []string{"You are not allowed to "},
		re:    reGitLabProt,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			if strings.Contains(m[1], "protected branch") {
				return hit{class: Structural, code: CodeGitProtected, rank: rankRefusal, reason: "git push rejected: protected branch",
					remedy: "open a merge request, or ask a maintainer to change the branch protection"}, true
			}
			return hit{class: Policy, code: CodeGitNotAllowed, rank: rankRefusal, reason: "not allowed to " + clip(m[1]),
				remedy: "ask for a role on the project that allows this, or use other credentials"}, true
		},
	},

	// transient git messages
	{
		gates: []string{"rate limited by '"},
		re:    reRateLimited,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			h := hit{class: Transient, code: CodeGitRateLimited, rank: rankRateLimit, reason: "git rate limited by " + hostOf(m[1]), remedy: remedyRateLimit}
			if n, err := strconv.Atoi(m[2]); err == nil && n >= 0 && n < 1<<31 {
				h.retryAfter = time.Duration(n) * time.Second
				h.reason += fmt.Sprintf(", retry in %ds", n)
			}
			return h, true
		},
	},
	{
		gates: []string{"Internal Server Error", "Bad Gateway", "Service Unavailable", "Gateway Time"},
		re:    reRemote5xx,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			return hit{class: Transient, code: CodeGitServerError, rank: rankTransport, reason: "the git server failed: " + m[1],
				remedy: "the server failed: wait for the outage to end; retrying"}, true
		},
	},
	{
		gates: []string{"hung up", "early EOF", "sideband packet", "index-pack", "remote failed to report status", "necessary objects", "bad pack header"},
		re:    reAftermath,
		build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
			h := hit{class: Transient, code: CodeGitDropped, tr: trNet, rank: rankAftermath, reason: "connection to the git server dropped (" + strings.ToLower(m[0]) + ")", remedy: remedyRetryNet}
			if strings.Contains(m[0], "report status") {
				h.code = CodeGitStatusUnknown
				h.reason = "the git server failed to report the push status"
				h.remedy = "the push may or may not have landed: check the remote ref (git ls-remote) before pushing again; retrying"
			}
			return h, true
		},
	},
}

const remedyLargeFile = "remove the large file from the commits (git rm --cached FILE, then amend or rewrite history) or track it with Git LFS"

// rejectionHit classifies git's porcelain rejection reasons.
func rejectionHit(remote bool, dst, why string) hit {
	branch := strings.TrimPrefix(strings.TrimPrefix(dst, "refs/heads/"), "refs/tags/")
	if branch == "" {
		branch = "BRANCH"
	}
	branch = clip(branch)
	on := ""
	if dst != "" {
		on = " on " + branch
	}
	h := hit{class: Structural, rank: rankRefusal, reason: "git push rejected: " + clip(why) + on}
	w := strings.ToLower(why)
	switch {
	case strings.Contains(w, "non-fast-forward"):
		h.code, h.remedy = CodeGitNonFastForward, "git pull --rebase origin "+branch+", then push again"
	case strings.Contains(w, "fetch first"):
		h.code, h.remedy = CodeGitFetchFirst, "git pull --rebase origin "+branch+", then push again"
	case strings.Contains(w, "stale info"):
		h.code, h.remedy = CodeGitStaleInfo, "git fetch origin "+branch+", check the new remote tip, then push --force-with-lease again"
	case strings.Contains(w, "already exists"):
		h.code, h.remedy = CodeGitRefExists, "the tag or ref already exists on the remote: use a new name, or delete the remote one first"
	case strings.Contains(w, "needs force"):
		h.code, h.remedy = CodeGitNeedsForce, "the remote ref moved in a way only a force push can change: rebase onto it, or push --force-with-lease if that is intended"
	case strings.Contains(w, "protected branch"):
		h.code, h.remedy = CodeGitProtected, remedyRules
	case strings.Contains(w, "repository rule"):
		h.code, h.remedy = CodeGitRules, remedyRules
	case strings.Contains(w, "shallow update not allowed"):
		h.code, h.remedy = CodeGitShallow, "the clone is shallow: git fetch --unshallow origin, then push again"
	case strings.Contains(w, "currently checked out"):
		h.code, h.remedy = CodeGitCheckedOut, "push to a bare repository or another branch (or set receive.denyCurrentBranch=updateInstead on the remote)"
	case strings.Contains(w, "workflow"):
		h.class, h.code, h.remedy = Policy, CodeGitWorkflow, "this token can never change .github/workflows: push without the workflow change, or use a token with the `workflow` scope (workflows: write)"
	case strings.Contains(w, "pre-receive hook declined"), strings.Contains(w, "hook declined"):
		h.code, h.remedy = CodeGitHookDeclined, "the server's hook refused these commits: read the remote: lines above and change the commits"
	case strings.Contains(w, "permission denied"), strings.Contains(w, "access denied"):
		h.class, h.code = Policy, CodeGitRefDenied
		h.remedy = "push with credentials that may update " + branch
	case strings.Contains(w, "atomic push failed"):
		h.code, h.remedy = CodeGitAtomic, "fix the rejected ref of this --atomic push, then push all of them again"
	case remote:
		// a reason we do not know ("failed to update ref", "unpacker error"):
		// neither a known refusal nor a known flake
		h.class, h.code = Unknown, CodeGitRemoteRejected
		h.remedy = "read the server's reason; add --retry-on or --stop-on if it recurs"
	default:
		h.code, h.remedy = CodeGitRejected, "read git's hint; change the push (pull, rebase or rename) and push again"
	}
	return h
}

// ghCodeHit classifies GitHub's pre-receive rule codes and quotes the rule
// lines that follow them.
func ghCodeHit(c *scanCtx, line, code string) hit {
	branch := ""
	if m := reGHRef.FindStringSubmatch(line); m != nil {
		branch = clip(m[1])
	}
	on := ""
	if branch != "" {
		on = " on " + branch
	}
	h := hit{class: Structural, rank: rankRule, code: CodeGitGitHubRule}
	switch code {
	case "GH006":
		h.code = CodeGitProtected
		h.reason = "git push rejected: protected branch" + on + " (GH006)"
		h.remedy = remedyRules
		h.extra = ruleLines(c, false)
	case "GH013":
		h.code = CodeGitRules
		h.extra = ruleLines(c, true)
		h.reason = "git push rejected: repository rule violations" + on + " (GH013)"
		h.remedy = remedyRules
		for _, e := range h.extra {
			if strings.Contains(strings.ToLower(e), "secret") {
				h.remedy = "remove the secret from the commits (rewrite them), or allow it through the push-protection link; otherwise " + remedyRules
				break
			}
		}
	case "GH001":
		h.code = CodeGitLargeFile
		h.reason = "git push rejected: large files (GH001)"
		h.remedy = remedyLargeFile
	case "GH007":
		h.code = CodeGitPrivateEmail
		h.reason = "git push rejected: commits would publish a private email address (GH007)"
		h.remedy = "set user.email to your noreply address, amend the commits (git commit --amend --reset-author), and push again"
	case "GH009":
		h.code = CodeGitSecret
		h.reason = "git push rejected: secrets detected (GH009)"
		h.remedy = "remove the secret from the commits (rewrite them), or allow it through the push-protection link"
	default:
		h.reason = "git push rejected by GitHub (" + code + ")"
		h.remedy = "read the remote: lines; change the commits or ask an admin"
	}
	return h
}

// ruleLines returns the "remote:" lines after a GH006/GH013 line that state
// the rules: the "- rule" items for GH013, the "error:" lines for GH006.
func ruleLines(c *scanCtx, items bool) []string {
	var out []string
	for _, l := range followingLines(c.text, c.lineEnd, lookAhead) {
		t := strings.TrimSpace(l)
		body, ok := strings.CutPrefix(t, "remote:")
		if !ok {
			break
		}
		body = strings.TrimSpace(body)
		switch {
		case body == "":
			continue
		case items && strings.HasPrefix(body, "- "):
		case !items && strings.HasPrefix(body, "error:") && !reGHCode.MatchString(body):
		default:
			continue
		}
		out = append(out, evidenceLine(t, 0))
		if len(out) == maxEvidenceLines-1 {
			break
		}
	}
	return out
}
