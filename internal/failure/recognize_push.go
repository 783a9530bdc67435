package failure

import (
	"fmt"
	"strings"
)

// `git push --porcelain` states each ref's fate on a line of its own
// ("<flag>\t<from>:<to>\t<summary> (<reason>)"); FromPush classifies every
// rejected ref and the push as a whole, the worst ref deciding, and quotes the
// remote's own words ("remote:" lines) as evidence.

// PushRef is one ref line of `git push --porcelain`.
type PushRef struct {
	// Flag is git's flag: ' ' fast-forward, '+' forced update, '-' deleted,
	// '*' new ref, '=' up to date, '!' rejected or failed to push.
	Flag byte
	// From is the local ref or object pushed; "" for a deletion.
	From string
	// To is the remote ref, e.g. refs/heads/main.
	To string
	// Summary is "[rejected]", "[remote rejected]", "[new branch]", "abc123..def456" and the like.
	Summary string
	// Reason is the parenthesised reason, e.g. "non-fast-forward"; "" when there is none.
	Reason string
}

// Rejected reports whether the ref was not updated (flag '!').
func (r PushRef) Rejected() bool { return r.Flag == '!' }

// Branch returns To without its refs/heads/ or refs/tags/ prefix.
func (r PushRef) Branch() string {
	return strings.TrimPrefix(strings.TrimPrefix(r.To, "refs/heads/"), "refs/tags/")
}

// Line renders the ref as git's porcelain line (tabs as spaces), for evidence.
func (r PushRef) Line() string {
	s := fmt.Sprintf("%c %s:%s %s", r.Flag, r.From, r.To, r.Summary)
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	return s
}

// Status describes the ref's fate in a few words: "pushed (new branch)",
// "up to date", "rejected (non-fast-forward)".
func (r PushRef) Status() string {
	sum := strings.Trim(r.Summary, "[]")
	switch r.Flag {
	case '=':
		return "up to date"
	case '!':
		if r.Reason != "" {
			return sum + " (" + r.Reason + ")"
		}
		return sum
	case '-':
		return "deleted"
	case '+':
		return "force-pushed (" + sum + ")"
	case '*':
		return "pushed (" + sum + ")"
	}
	return "pushed (" + sum + ")"
}

// PushInput is what one `git push --porcelain` attempt printed.
type PushInput struct {
	// Remote is the remote's name (or URL) as the user gave it, for remedies; "" means origin.
	Remote string
	// Refs are the porcelain ref lines, in order.
	Refs []PushRef
	// Text is git's output, stderr and stdout, for the remote: lines and transport errors.
	Text string
	// ExitCode is git's exit status; NoExitCode when it did not exit normally.
	ExitCode int
	// Setting names a setting of the push, with its value, as the surface
	// that runs it writes it, for remedies ("rebase-on-reject: 1" in a job
	// file); nil means the command line's flag (FlagSetting).
	Setting func(name, value string) string
}

// FlagSetting names a setting as the command line writes it: "--name value".
func FlagSetting(name, value string) string { return "--" + name + " " + value }

// PushVerdict is FromPush's answer.
type PushVerdict struct {
	// Failure is the push's failure, that of its worst ref; nil when every ref
	// was pushed or is up to date.
	Failure *Failure
	// Refs holds one entry per input ref: its failure, or nil when it is fine.
	Refs []*Failure
}

// remedyPushAuth is the remedy of a push whose credentials were refused
// when the recogniser's own remedy does not already name the token.
const remedyPushAuth = "the server refused these credentials for a push: in GitHub Actions give the job `permissions: contents: write` and push with a token that has write access to this repository; elsewhere check the token (its scopes, expiry and access to the repository)"

// maxPushEvidence bounds the evidence of a push failure: the rejection and
// the remote's own lines.
const maxPushEvidence = 8

// FromPush classifies one push attempt. A push whose every ref is pushed or
// up to date, with exit status 0, succeeded. Otherwise the worst rejected ref
// decides (Worse), unless git's output holds a more specific refusal of the
// same or a worse class (GitHub's GHnnn rules, workflow and size limits,
// permission denials), whose own words then lead the evidence. A push that
// failed before any ref line (network, authentication) is classified from its
// output alone.
func FromPush(in PushInput) PushVerdict {
	v := PushVerdict{Refs: make([]*Failure, len(in.Refs))}
	worst := -1
	for i, r := range in.Refs {
		if !r.Rejected() {
			continue
		}
		v.Refs[i] = fromPushRef(in.Remote, r, in.Setting)
		if worst < 0 || Worse(v.Refs[i].Class, v.Refs[worst].Class) ||
			(v.Refs[i].Class == v.Refs[worst].Class && collateral(in.Refs[worst]) && !collateral(r)) {
			worst = i
		}
	}
	if worst < 0 && in.ExitCode == 0 {
		return v
	}
	text, rank, ok := classifyPushText(in.Text)
	if worst < 0 {
		if !ok {
			text = unrecognised(in.Text, in.ExitCode)
		}
		if text.Class == Policy && !strings.Contains(text.Remedy, "token") && text.Trace.AuthRefused {
			text.Remedy = remedyPushAuth
		}
		v.Failure = text
		return v
	}
	ref := in.Refs[worst]
	f := cloneFailure(v.Refs[worst])
	if n := countRejected(in.Refs) - 1; n > 0 {
		f.Reason += fmt.Sprintf(" (and %s)", pluralRefs(n))
	}
	if ok && rank >= RankRefusal && !Worse(f.Class, text.Class) {
		// The server's own refusal says more than the porcelain reason.
		f = text
		f.Evidence = appendEvidence(f.Evidence, ref.Line())
	}
	if strings.Contains(ref.Summary, "remote") {
		f.Evidence = appendEvidence(f.Evidence, RemoteLines(in.Text, maxPushEvidence)...)
	}
	v.Failure = f
	return v
}

// classifyPushText classifies git's output and returns the verdict with the
// rank of the hit that decided it; ok is false when nothing was recognised.
func classifyPushText(text string) (*Failure, int, bool) {
	c := &ScanCtx{Text: text, Tool: ToolGit, ms: allMatchers(), keys: gateKeys()}
	hits := c.scan()
	f, ok := c.resolve(hits)
	if !ok {
		return nil, 0, false
	}
	return f, hits[bestHit(hits)].Rank, true
}

// fromPushRef classifies one rejected ref of a push to remote ("" means
// origin), the remedies' settings named by setting (PushInput.Setting;
// nil: as flags).
func fromPushRef(remote string, r PushRef, setting func(name, value string) string) *Failure {
	if setting == nil {
		setting = FlagSetting
	}
	if remote == "" {
		remote = "origin"
	}
	h := rejectionHit(strings.Contains(r.Summary, "remote"), r.To, r.Reason)
	branch := Clip(r.Branch())
	if branch == "" {
		branch = "BRANCH"
	}
	remote = Clip(remote)
	w := strings.ToLower(r.Reason)
	switch {
	case strings.Contains(w, "non-fast-forward"), strings.Contains(w, "fetch first"):
		h.Remedy = fmt.Sprintf("the remote %s has commits that your %s lacks: git pull --rebase %s %s (resolve any conflicts), then push again; or let retrywise do it with %s", branch, branch, remote, branch, setting("rebase-on-reject", "1"))
	case strings.Contains(w, "stale info"):
		h.Remedy = fmt.Sprintf("the remote %s moved since you last fetched it: git fetch %s %s, check the new tip (git log %s/%s), then push --force-with-lease again", branch, remote, branch, remote, branch)
	case collateral(r):
		h.Code = CodeGitAtomic
		h.Reason = "git push rejected: " + branch + " not pushed because another ref of the atomic push was rejected"
		h.Remedy = "fix the rejected ref of this --atomic push, then push all of them again"
	}
	return &Failure{Class: h.Class, Code: h.Code, Reason: h.Reason, Remedy: h.Remedy, Evidence: []string{r.Line()}}
}

// collateral reports whether r failed only because another ref of an atomic
// push was rejected.
func collateral(r PushRef) bool { return strings.Contains(r.Reason, "atomic push failed") }

// Worse reports whether class a is a worse final answer for a multi-ref push
// than b: policy, then structural, unknown, transient, absent; a ref that
// cannot be pushed decides before one that might pass on a retry.
func Worse(a, b Class) bool { return severity(a) > severity(b) }

func severity(c Class) int {
	switch c {
	case Policy:
		return 5
	case Structural:
		return 4
	case Unknown:
		return 3
	case Transient:
		return 2
	}
	return 1
}

// RemoteLines returns up to max of the remote's own lines ("remote: ..."),
// trimmed, without blank lines and progress meters (counting, compressing,
// resolving deltas).
func RemoteLines(text string, max int) []string {
	var out []string
	for rest := text; rest != "" && len(out) < max; {
		i := strings.IndexAny(rest, "\r\n")
		line := rest
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		t := strings.TrimSpace(line)
		body, ok := strings.CutPrefix(t, "remote:")
		if !ok || strings.TrimSpace(body) == "" || remoteProgress(body) {
			continue
		}
		out = append(out, EvidenceLineAt(t, 0))
	}
	return out
}

// remoteProgress reports whether a remote: line is a progress meter.
func remoteProgress(body string) bool {
	b := strings.TrimSpace(body)
	for _, p := range []string{"Counting objects", "Compressing objects", "Resolving deltas", "Enumerating objects", "Total ", "Processed ", "Checking connectivity"} {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

func countRejected(refs []PushRef) int {
	n := 0
	for _, r := range refs {
		if r.Rejected() {
			n++
		}
	}
	return n
}

func pluralRefs(n int) string {
	if n == 1 {
		return "1 more ref"
	}
	return fmt.Sprintf("%d more refs", n)
}

func cloneFailure(f *Failure) *Failure {
	c := *f
	c.Evidence = append([]string(nil), f.Evidence...)
	return &c
}

// appendEvidence appends lines not already quoted, up to maxPushEvidence.
func appendEvidence(ev []string, lines ...string) []string {
next:
	for _, l := range lines {
		if l == "" || len(ev) >= maxPushEvidence {
			continue
		}
		for _, e := range ev {
			if e == l || strings.Contains(e, l) || strings.Contains(l, e) {
				continue next
			}
		}
		ev = append(ev, l)
	}
	return ev
}

// git push's refusals before it contacts the remote, when the command line
// does not say what to push: they are structural (the command must change).
var (
	reNoUpstream = LazyRE(`The current branch (\S+) has no upstream branch`)
	reDetached   = LazyRE(`You are not currently on a branch`)
	reUpstreamNm = LazyRE(`upstream branch of your current branch does not match`)
)

var pushMatchers = []Matcher{
	{
		Gates: []string{"has no upstream branch"},
		RE:    reNoUpstream,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			b := Clip(m[1])
			return Hit{Class: Structural, Code: CodeGitNoUpstream, Rank: RankRefusal, Reason: "git push: the current branch " + b + " has no upstream branch",
				Remedy: "name the remote and the branch: git push --set-upstream origin " + b + " (retrywise push -- -u origin " + b + ")"}, true
		},
	},
	{
		Gates: []string{"not currently on a branch"},
		RE:    reDetached,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeGitDetached, Rank: RankRefusal, Reason: "git push: HEAD is detached, so there is no current branch to push",
				Remedy: "name what to push: git push origin HEAD:refs/heads/BRANCH"}, true
		},
	},
	{
		Gates: []string{"does not match"},
		RE:    reUpstreamNm,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeGitUpstreamName, Rank: RankRefusal, Reason: "git push: the upstream branch's name differs from the current branch's (push.default=simple)",
				Remedy: "name the destination: git push origin HEAD:UPSTREAM-BRANCH, or git push origin HEAD to push a branch of the same name"}, true
		},
	},
}
