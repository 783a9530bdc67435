package gitpush

import (
	"context"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// --rebase-on-reject N: on a non-fast-forward rejection of the checked-out
// branch, fetch the remote branch, rebase onto it and push again, at most N
// times in a run. This changes the request (the commits pushed are new), so
// it is reported as such and not counted as a retry. A conflict aborts the
// rebase, leaving the worktree as it was, and stops with the conflicting files.

// rebaseCandidate reports whether res is a non-fast-forward rejection that
// --rebase-on-reject may answer: exactly one ref rejected as non-fast-forward
// or fetch first (refs of an atomic push rejected with it aside).
func (s *Step) rebaseCandidate(res pushResult) bool {
	if s.rebases >= s.opts.RebaseOnReject || res.fail == nil || res.fail.Class != failure.Structural {
		return false
	}
	_, ok := nonFastForward(res)
	return ok
}

// nonFastForward returns the one ref rejected as non-fast-forward or fetch
// first, by the codes failure gave the rejected refs (refs of an atomic
// push rejected with it aside).
func nonFastForward(res pushResult) (failure.PushRef, bool) {
	var found []failure.PushRef
	for i, r := range res.refs {
		if !r.Rejected() {
			continue
		}
		var code failure.Code
		if i < len(res.verdict.Refs) && res.verdict.Refs[i] != nil {
			code = res.verdict.Refs[i].Code
		}
		switch code {
		case failure.CodeGitAtomic:
			continue
		case failure.CodeGitNonFastForward, failure.CodeGitFetchFirst:
			found = append(found, r)
		default:
			return failure.PushRef{}, false
		}
	}
	if len(found) != 1 {
		return failure.PushRef{}, false
	}
	return found[0], true
}

// rebase fetches the rejected branch and rebases the checked-out branch onto
// it; it returns nil when the push may be sent again, or the failure that
// ends the attempt.
func (s *Step) rebase(ctx context.Context, res pushResult) *failure.Failure {
	ref, _ := nonFastForward(res)
	branch := ref.Branch()
	head, f := s.git(ctx, false, "symbolic-ref", "--quiet", "HEAD")
	head = strings.TrimSpace(head)
	if f != nil || (ref.From != head && ref.From != "HEAD") {
		s.note("--rebase-on-reject: not rebasing, because %s is not the checked-out branch (%s)", ref.From, orNone(head))
		return res.fail
	}
	s.rebases++
	rem := s.resolveRemote(ctx)
	if _, f := s.git(ctx, true, "fetch", "--no-tags", "--", rem.name, ref.To); f != nil {
		f = cloneFailure(f)
		f.Reason = "--rebase-on-reject: git fetch " + rem.name + " " + ref.To + " failed: " + f.Reason
		return f
	}
	onto, f := s.git(ctx, false, "rev-parse", "--verify", "FETCH_HEAD^{commit}")
	if f != nil {
		return f
	}
	onto = strings.TrimSpace(onto)
	before, _ := s.git(ctx, false, "rev-parse", "HEAD")
	before = strings.TrimSpace(before)
	if _, rf := s.git(ctx, true, "rebase", "--no-autostash", onto); rf != nil {
		return s.rebaseFailed(ctx, ref, rem.name, onto, rf)
	}
	after, _ := s.git(ctx, false, "rev-parse", "HEAD")
	s.note("--rebase-on-reject: %s was rejected as %s; rebased it onto %s/%s (%s), from %s to %s, and pushed again (rebase %d of %d). This changed the request: the commits pushed are new; it is not counted as a retry",
		branch, ref.Reason, rem.name, branch, short(onto), short(before), short(strings.TrimSpace(after)), s.rebases, s.opts.RebaseOnReject)
	return nil
}

// rebaseFailed aborts a stopped rebase, so the worktree is as it was, and
// returns the structural failure listing the conflicting files.
func (s *Step) rebaseFailed(ctx context.Context, ref failure.PushRef, remoteName, onto string, rf *failure.Failure) *failure.Failure {
	branch := ref.Branch()
	conflicts, _ := s.git(ctx, false, "diff", "--name-only", "--diff-filter=U")
	files := strings.Fields(conflicts)
	_, inProgress := s.git(ctx, false, "rev-parse", "--verify", "--quiet", "REBASE_HEAD")
	aborted := ""
	if inProgress == nil || len(files) > 0 {
		if _, af := s.git(ctx, true, "rebase", "--abort"); af == nil {
			aborted = "; the rebase was aborted and the worktree is as it was"
		} else {
			aborted = "; git rebase --abort failed too: run it by hand"
		}
	}
	return failure.FromRebase(failure.Rebase{
		Branch: branch, Remote: remoteName, Onto: short(onto), Conflicts: files,
		Aborted: aborted, Cause: rf, RefLine: ref.Line(),
	})
}

func orNone(s string) string {
	if s == "" {
		return "detached HEAD"
	}
	return s
}

func cloneFailure(f *failure.Failure) *failure.Failure {
	c := *f
	c.Evidence = append([]string(nil), f.Evidence...)
	return &c
}
