package gitpush

import (
	"context"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// After an attempt failed on the network, the push may have landed before
// the connection broke. When a later attempt is refused as non-fast-forward
// or stale, or finds the ref up to date, the remote ref is compared with the
// local commit once (git ls-remote): equal means the earlier push landed.
// Never on the success path of a first attempt.

// landedCandidate reports whether res holds an answer that a landed push
// would explain: a ref up to date, or rejected as non-fast-forward, fetch
// first or stale info (the codes failure gave the rejected refs).
func landedCandidate(res pushResult) bool {
	for i := range res.refs {
		if landedReason(res, i) {
			return true
		}
	}
	return false
}

func landedReason(res pushResult, i int) bool {
	r := res.refs[i]
	if r.Flag == '=' {
		return true
	}
	if !r.Rejected() || r.From == "" || i >= len(res.verdict.Refs) || res.verdict.Refs[i] == nil {
		return false
	}
	switch res.verdict.Refs[i].Code {
	case failure.CodeGitNonFastForward, failure.CodeGitFetchFirst, failure.CodeGitStaleInfo:
		return true
	}
	return false
}

// checkLanded compares, once, the remote refs that a landed push would
// explain with the local commits; rejected refs that match become landed,
// and when no rejection is left the attempt succeeds.
func (s *Step) checkLanded(ctx context.Context, res *pushResult) {
	s.landedChecked = true
	var idx []int
	var froms, tos []string
	for i, r := range res.refs {
		if landedReason(*res, i) && r.From != "" {
			idx = append(idx, i)
			froms = append(froms, r.From)
			tos = append(tos, r.To)
		}
	}
	if len(idx) == 0 {
		return
	}
	// porcelain names full refs (refs/heads/main) or object ids, never options
	local, f := s.git(ctx, false, append([]string{"rev-parse"}, froms...)...)
	if f != nil {
		s.note("could not check whether the push of attempt %d landed: git rev-parse failed (%s)", s.networkAttempt, f.Reason)
		return
	}
	localIDs := strings.Fields(local)
	rem := s.resolveRemote(ctx)
	out, f := s.git(ctx, false, append([]string{"ls-remote", "--", rem.name}, tos...)...)
	if f != nil {
		s.note("could not check whether the push of attempt %d landed: git ls-remote failed (%s: %s)", s.networkAttempt, f.Class, f.Reason)
		return
	}
	remoteIDs := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if id, ref, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok {
			remoteIDs[ref] = id
		}
	}
	changed := false
	for k, i := range idx {
		if k >= len(localIDs) {
			break
		}
		r := res.refs[i]
		if got := remoteIDs[r.To]; got == "" || got != localIDs[k] {
			continue
		}
		res.landed[i] = true
		s.note("%s: the push of attempt %d landed although its connection broke: git ls-remote shows %s at %s, the local commit",
			r.Branch(), s.networkAttempt, r.To, short(localIDs[k]))
		if r.Rejected() {
			res.refs[i] = failure.PushRef{Flag: '=', From: r.From, To: r.To, Summary: "[up to date]"}
			changed = true
		}
	}
	if !changed {
		return
	}
	exit := res.exit
	if !anyRejected(res.refs) {
		exit = 0
	}
	res.verdict = failure.FromPush(failure.PushInput{Remote: rem.name, Refs: res.refs, Text: res.output, ExitCode: exit, Setting: s.opts.Setting})
	res.fail = res.verdict.Failure
}

// short abbreviates a commit id for notes.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
