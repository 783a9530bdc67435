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
	reRejected    = LazyRE(`!\s*\[(rejected|remote rejected)\]\s+(\S+)\s+->\s+(\S+)\s+\((.+)\)`)
	reGHCode      = LazyRE(`\bGH0(\d\d)\b`)
	reGHRef       = LazyRE(`refs/heads/(\S+?)\.?(?:\s|$)`)
	rePermTo      = LazyRE(`Permission to (\S+?) denied to (.+?)\.?\s*$`)
	reAuthFailed  = LazyRE(`(?i)authentication failed(?: for '([^']*)')?`)
	reCouldRead   = LazyRE(`could not read (Username|Password) for '([^']*)'`)
	rePwdRemoved  = LazyRE(`(?i)password authentication (?:was removed|is not supported)|invalid username or (?:password|token)|invalid credentials`)
	reRepoMissing = LazyRE(`(?i)repository not found|repository:? '([^']*)'\s*not found|project you were looking for could not be found`)
	reRemoteRef   = LazyRE(`(?i)couldn't find remote ref (\S+)|remote branch (\S+) not found in upstream`)
	reNotRepo     = LazyRE(`'([^']*)' does not appear to be a git repository`)
	reRefspec     = LazyRE(`src refspec (\S+) does not match any`)
	reDubious     = LazyRE(`detected dubious ownership in repository at '([^']*)'`)
	reWorkflow    = LazyRE(`refusing to allow an? (GitHub App|OAuth App|Personal Access Token|\S+(?: \S+)?) to create or update workflow ` + "`?" + `([^` + "`" + `\s]*)`)
	reSizeLimit   = LazyRE(`(?i)file size limit|large files detected|exceeds maximum allowed size|pack exceeds|is larger than the maximum|object too large`)
	reSizeFile    = LazyRE(`File (\S+) is ([\d.]+ ?[KMG]i?B)`)
	reRPCcurl     = LazyRE(`RPC failed; (?:HTTP (\d{3}) )?curl (\d+)[ \t]*(.*)`)
	reRPCresult   = LazyRE(`RPC failed; result=(\d+), HTTP code = (\d{3})`)
	reUnableTo    = LazyRE(`unable to access '([^']*)': (.*)`)
	reRateLimited = LazyRE(`rate limited by '([^']*)', please try again (?:in (\S+) seconds?|later)`)
	reAftermath   = LazyRE(`(?i)hung up unexpectedly|early EOF|unexpected disconnect while reading sideband packet|index-pack failed|invalid index-pack output|remote failed to report status|did not send all necessary objects|protocol error: bad pack header`)
	reRemote5xx   = LazyRE(`remote:.*?(Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)`)
	reHintRejects = LazyRE(`Updates were rejected because (.*)`)
	reGitLabProt  = LazyRE(`You are not allowed to (push code to protected branches|force push code to a protected branch|push code to this project|\S+)`)
)

var gitMatchers = []Matcher{
	// frames: messages git relays from libcurl
	{
		Gates: []string{"RPC failed; "},
		RE:    reRPCcurl,
		Frame: true,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			if code := Atoi(m[1]); code >= 400 {
				h, ok := StatusHit(c, code, RankStatus)
				h.Reason = "git RPC failed: " + h.Reason
				return h, ok
			}
			curl := Atoi(m[2])
			if h, ok := c.Phrase(m[3]); ok && h.Rank >= RankTransport {
				h.Reason = fmt.Sprintf("git RPC failed, curl %d, %s", curl, h.Reason)
				return h, true
			}
			h := curlCodeHit(curl, m[3])
			h.Reason, h.Rank = "git RPC failed, "+h.Reason, RankCurlCode
			return h, true
		},
	},
	{
		Gates: []string{"HTTP code = "},
		RE:    reRPCresult,
		Frame: true,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			h, ok := StatusHit(c, Atoi(m[2]), RankStatus)
			h.Reason = "git RPC failed: " + h.Reason
			return h, ok
		},
	},
	{
		Gates: []string{"unable to access '"},
		RE:    reUnableTo,
		Frame: true,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			host := HostOf(m[1])
			c.Facts.URL = m[1]
			if h, ok := c.Phrase(m[2]); ok {
				h.Reason = "git cannot access " + host + ": " + h.Reason
				return h, true
			}
			return Hit{Class: Unknown, Code: CodeGitAccess, Rank: RankMention, Reason: "git cannot access " + host + ": " + Clip(m[2]),
				Remedy: "read git's message; add --retry-on or --stop-on if this failure recurs"}, true
		},
	},

	// rejections
	{
		Gates: []string{"rejected]"},
		RE:    reRejected,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return rejectionHit(m[1] == "remote rejected", m[3], m[4]), true
		},
	},
	{
		Gates: []string{"Updates were rejected because"},
		RE:    reHintRejects,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
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
			h.Rank = rankHint
			return h, true
		},
	},
	{
		Gates: []string{"GH0"},
		RE:    reGHCode,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) { return ghCodeHit(c, line, "GH0"+m[1]), true },
	},
	{
		Gates: []string{"to create or update workflow"},
		RE:    reWorkflow,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			file := strings.TrimRight(strings.Trim(m[2], "`'\")"), ".,")
			reason := "git push refused: the " + m[1] + " token may not update workflow files"
			if file != "" {
				reason += " (" + Clip(file) + ")"
			}
			// the token lacks a permission: policy, like any other
			return Hit{Class: Policy, Code: CodeGitWorkflow, Rank: RankRefusal + 1, Reason: reason,
				Remedy: "this token can never change .github/workflows: push without the workflow change, or use a token with the `workflow` scope (workflows: write)"}, true
		},
	},
	{
		Gates: []string{"file size limit", "arge files detected", "exceeds maximum allowed size", "pack exceeds", "larger than the maximum", "object too large", "Object too large"},
		RE:    reSizeLimit,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			reason := "git push rejected: file exceeds the server's size limit"
			if f := reSizeFile.FindStringSubmatch(line); f != nil {
				reason = "git push rejected: " + Clip(f[1]) + " is " + f[2] + ", over the server's file size limit"
			}
			return Hit{Class: Structural, Code: CodeGitLargeFile, Rank: RankRefusal, Reason: reason, Remedy: remedyLargeFile}, true
		},
	},
	{
		Gates: []string{"refusing to update checked out branch"},
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return rejectionHit(true, "", "branch is currently checked out"), true
		},
	},
	{
		Gates: []string{"does not appear to be a git repository"},
		RE:    reNotRepo,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeGitNotRemote, Rank: RankRefusal, Reason: "'" + Clip(m[1]) + "' is not a git remote or repository",
				Remedy: "the command line must change: name an existing remote (git remote -v) or a repository URL"}, true
		},
	},
	{
		Gates: []string{"ot a git repository"},
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			if !strings.Contains(line, "not a git repository") {
				return Hit{}, false
			}
			return Hit{Class: Structural, Code: CodeGitNotRepo, Rank: RankRefusal, Reason: "not inside a git repository",
				Remedy: "run git inside the repository (check out the repository first, or fix the working directory)"}, true
		},
	},
	{
		Gates: []string{"src refspec "},
		RE:    reRefspec,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeGitNoLocalRef, Rank: RankRefusal, Reason: "git push: no local ref " + Clip(m[1]),
				Remedy: "commit first, or push a ref that exists (git branch -a; e.g. git push origin HEAD:" + Clip(m[1]) + ")"}, true
		},
	},
	{
		Gates: []string{"dubious ownership"},
		RE:    reDubious,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			p := Clip(m[1])
			return Hit{Class: Structural, Code: CodeGitDubiousOwner, Rank: RankRefusal, Reason: "git refuses a repository owned by another user (" + p + ")",
				Remedy: "git config --global --add safe.directory " + p + " or retrywise --safe-directory"}, true
		},
	},
	{
		Gates: []string{"ouldn't find remote ref", "OULDN'T FIND REMOTE REF", "not found in upstream"},
		RE:    reRemoteRef,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			ref := m[1]
			if ref == "" {
				ref = m[2]
			}
			return Hit{Class: Absent, Code: CodeGitRemoteRefGone, Rank: RankRefusal, Reason: "remote ref " + Clip(ref) + " does not exist",
				Remedy: "create the branch or tag first (e.g. push it), or fetch a ref that exists (git ls-remote origin)"}, true
		},
	},

	// identity and ACL refusals
	{
		Gates: []string{"denied to "},
		RE:    rePermTo,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			who := strings.TrimSpace(m[2])
			remedy := "give " + Clip(who) + " write access to " + Clip(m[1]) + ", or push with credentials that have it"
			switch {
			case strings.Contains(who, "github-actions") || strings.Contains(who, "[bot]"):
				remedy = remedyActions
			case strings.Contains(strings.ToLower(who), "deploy key"):
				remedy = "the deploy key is read-only: enable \"Allow write access\" for it, or use another key"
			}
			return Hit{Class: Policy, Code: CodeGitPermission, Rank: RankRefusal, Reason: "permission to " + Clip(m[1]) + " denied to " + Clip(who), Remedy: remedy}, true
		},
	},
	{
		Gates: []string{"Write access to repository not granted"},
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeGitPermission, Rank: RankRefusal, Reason: "write access to repository not granted", Remedy: remedyActions}, true
		},
	},
	{
		Gates: []string{"uthentication failed", "UTHENTICATION FAILED"},
		RE:    reAuthFailed,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			reason := "authentication failed"
			if m[1] != "" {
				reason += " for " + HostOf(m[1])
			}
			return Hit{Class: Policy, Code: CodeGitAuthFailed, Rank: RankRefusal, Reason: reason, Remedy: remedyCreds}, true
		},
	},
	{
		Gates: []string{"could not read Username", "could not read Password"},
		RE:    reCouldRead,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeGitNoCredentials, Rank: RankRefusal, Reason: "no credentials for " + HostOf(m[2]) + " (git could not prompt for the " + strings.ToLower(m[1]) + ")",
				Remedy: remedyCreds}, true
		},
	},
	{
		Gates: []string{"assword authentication", "nvalid username or", "nvalid credentials"},
		RE:    rePwdRemoved,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeGitPasswordAuth, Rank: RankRefusal, Reason: "credentials rejected (password authentication is not accepted)", Remedy: remedyCreds}, true
		},
	},
	{
		Gates: []string{"epository not found", "EPOSITORY NOT FOUND", "not found", "could not be found"},
		RE:    reRepoMissing,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			reason := "repository not found (or the credentials cannot see it)"
			if m[1] != "" {
				reason = "repository " + HostOf(m[1]) + "/… not found (or the credentials cannot see it)"
				if u := strings.TrimSpace(m[1]); u != "" {
					reason = "repository " + Clip(u) + " not found (or the credentials cannot see it)"
				}
			}
			return Hit{Class: Policy, Code: CodeGitRepoNotFound, Rank: RankRefusal, Reason: reason, Remedy: remedyRepoAccess}, true
		},
	},
	{
		Gates: []string{"Permission denied (publickey", "Permission denied (keyboard", "Permission denied (password"},
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			if c.Tool != ToolGit && !strings.Contains(c.Text, "Could not read from remote repository") {
				return Hit{}, false // another program's ssh (sshMatchers)
			}
			return Hit{Class: Policy, Code: CodeGitSSHKey, Rank: RankRefusal, Reason: "SSH key rejected by the server",
				Remedy: "add the SSH public key to the account or as a deploy key, or load the right key (ssh-add, core.sshCommand)"}, true
		},
	},
	{
		Gates: []string{"HTTP Basic: Access denied"},
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeGitAuthFailed, Rank: RankRefusal, Reason: "HTTP Basic access denied", Remedy: remedyCreds}, true
		},
	},
	{
		Gates: []string{"You are not allowed to "},
		RE:    reGitLabProt,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			if strings.Contains(m[1], "protected branch") {
				return Hit{Class: Structural, Code: CodeGitProtected, Rank: RankRefusal, Reason: "git push rejected: protected branch",
					Remedy: "open a merge request, or ask a maintainer to change the branch protection"}, true
			}
			return Hit{Class: Policy, Code: CodeGitNotAllowed, Rank: RankRefusal, Reason: "not allowed to " + Clip(m[1]),
				Remedy: "ask for a role on the project that allows this, or use other credentials"}, true
		},
	},

	// transient git messages
	{
		Gates: []string{"rate limited by '"},
		RE:    reRateLimited,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			h := Hit{Class: Transient, Code: CodeGitRateLimited, Rank: RankRateLimit, Reason: "git rate limited by " + HostOf(m[1]), Remedy: RemedyRateLimit}
			if n, err := strconv.Atoi(m[2]); err == nil && n >= 0 && n < 1<<31 {
				h.RetryAfter = time.Duration(n) * time.Second
				h.Reason += fmt.Sprintf(", retry in %ds", n)
			}
			return h, true
		},
	},
	{
		Gates: []string{"Internal Server Error", "Bad Gateway", "Service Unavailable", "Gateway Time"},
		RE:    reRemote5xx,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeGitServerError, Rank: RankTransport, Reason: "the git server failed: " + m[1],
				Remedy: "the server failed: wait for the outage to end; retrying"}, true
		},
	},
	{
		Gates: []string{"hung up", "early EOF", "sideband packet", "index-pack", "remote failed to report status", "necessary objects", "bad pack header"},
		RE:    reAftermath,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			h := Hit{Class: Transient, Code: CodeGitDropped, Trace: TrNet, Rank: RankAftermath, Reason: "connection to the git server dropped (" + strings.ToLower(m[0]) + ")", Remedy: remedyRetryNet}
			if strings.Contains(m[0], "report status") {
				h.Code = CodeGitStatusUnknown
				h.Reason = "the git server failed to report the push status"
				h.Remedy = "the push may or may not have landed: check the remote ref (git ls-remote) before pushing again; retrying"
			}
			return h, true
		},
	},
}

const remedyLargeFile = "remove the large file from the commits (git rm --cached FILE, then amend or rewrite history) or track it with Git LFS"

// rejectionHit classifies git's porcelain rejection reasons.
func rejectionHit(remote bool, dst, why string) Hit {
	branch := strings.TrimPrefix(strings.TrimPrefix(dst, "refs/heads/"), "refs/tags/")
	if branch == "" {
		branch = "BRANCH"
	}
	branch = Clip(branch)
	on := ""
	if dst != "" {
		on = " on " + branch
	}
	h := Hit{Class: Structural, Rank: RankRefusal, Reason: "git push rejected: " + Clip(why) + on}
	w := strings.ToLower(why)
	switch {
	case strings.Contains(w, "non-fast-forward"):
		h.Code, h.Remedy = CodeGitNonFastForward, "git pull --rebase origin "+branch+", then push again"
	case strings.Contains(w, "fetch first"):
		h.Code, h.Remedy = CodeGitFetchFirst, "git pull --rebase origin "+branch+", then push again"
	case strings.Contains(w, "stale info"):
		h.Code, h.Remedy = CodeGitStaleInfo, "git fetch origin "+branch+", check the new remote tip, then push --force-with-lease again"
	case strings.Contains(w, "already exists"):
		h.Code, h.Remedy = CodeGitRefExists, "the tag or ref already exists on the remote: use a new name, or delete the remote one first"
	case strings.Contains(w, "needs force"):
		h.Code, h.Remedy = CodeGitNeedsForce, "the remote ref moved in a way only a force push can change: rebase onto it, or push --force-with-lease if that is intended"
	case strings.Contains(w, "protected branch"):
		h.Code, h.Remedy = CodeGitProtected, remedyRules
	case strings.Contains(w, "repository rule"):
		h.Code, h.Remedy = CodeGitRules, remedyRules
	case strings.Contains(w, "shallow update not allowed"):
		h.Code, h.Remedy = CodeGitShallow, "the clone is shallow: git fetch --unshallow origin, then push again"
	case strings.Contains(w, "currently checked out"):
		h.Code, h.Remedy = CodeGitCheckedOut, "push to a bare repository or another branch (or set receive.denyCurrentBranch=updateInstead on the remote)"
	case strings.Contains(w, "workflow"):
		h.Class, h.Code, h.Remedy = Policy, CodeGitWorkflow, "this token can never change .github/workflows: push without the workflow change, or use a token with the `workflow` scope (workflows: write)"
	case strings.Contains(w, "pre-receive hook declined"), strings.Contains(w, "hook declined"):
		h.Code, h.Remedy = CodeGitHookDeclined, "the server's hook refused these commits: read the remote: lines above and change the commits"
	case strings.Contains(w, "permission denied"), strings.Contains(w, "access denied"):
		h.Class, h.Code = Policy, CodeGitRefDenied
		h.Remedy = "push with credentials that may update " + branch
	case strings.Contains(w, "atomic push failed"):
		h.Code, h.Remedy = CodeGitAtomic, "fix the rejected ref of this --atomic push, then push all of them again"
	case remote:
		// a reason we do not know ("failed to update ref", "unpacker error"):
		// neither a known refusal nor a known flake
		h.Class, h.Code = Unknown, CodeGitRemoteRejected
		h.Remedy = "read the server's reason; add --retry-on or --stop-on if it recurs"
	default:
		h.Code, h.Remedy = CodeGitRejected, "read git's hint; change the push (pull, rebase or rename) and push again"
	}
	return h
}

// ghCodeHit classifies GitHub's pre-receive rule codes and quotes the rule
// lines that follow them.
func ghCodeHit(c *ScanCtx, line, code string) Hit {
	branch := ""
	if m := reGHRef.FindStringSubmatch(line); m != nil {
		branch = Clip(m[1])
	}
	on := ""
	if branch != "" {
		on = " on " + branch
	}
	h := Hit{Class: Structural, Rank: rankRule, Code: CodeGitGitHubRule}
	switch code {
	case "GH006":
		h.Code = CodeGitProtected
		h.Reason = "git push rejected: protected branch" + on + " (GH006)"
		h.Remedy = remedyRules
		h.Extra = ruleLines(c, false)
	case "GH013":
		h.Code = CodeGitRules
		h.Extra = ruleLines(c, true)
		h.Reason = "git push rejected: repository rule violations" + on + " (GH013)"
		h.Remedy = remedyRules
		for _, e := range h.Extra {
			if strings.Contains(strings.ToLower(e), "secret") {
				h.Remedy = "remove the secret from the commits (rewrite them), or allow it through the push-protection link; otherwise " + remedyRules
				break
			}
		}
	case "GH001":
		h.Code = CodeGitLargeFile
		h.Reason = "git push rejected: large files (GH001)"
		h.Remedy = remedyLargeFile
	case "GH007":
		h.Code = CodeGitPrivateEmail
		h.Reason = "git push rejected: commits would publish a private email address (GH007)"
		h.Remedy = "set user.email to your noreply address, amend the commits (git commit --amend --reset-author), and push again"
	case "GH009":
		h.Code = CodeGitSecret
		h.Reason = "git push rejected: secrets detected (GH009)"
		h.Remedy = "remove the secret from the commits (rewrite them), or allow it through the push-protection link"
	default:
		h.Reason = "git push rejected by GitHub (" + code + ")"
		h.Remedy = "read the remote: lines; change the commits or ask an admin"
	}
	return h
}

// ruleLines returns the "remote:" lines after a GH006/GH013 line that state
// the rules: the "- rule" items for GH013, the "error:" lines for GH006.
func ruleLines(c *ScanCtx, items bool) []string {
	var out []string
	for _, l := range FollowingLines(c.Text, c.LineEnd, lookAhead) {
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
		out = append(out, EvidenceLineAt(t, 0))
		if len(out) == maxEvidenceLines-1 {
			break
		}
	}
	return out
}
