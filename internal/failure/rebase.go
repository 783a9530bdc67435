package failure

import (
	"fmt"
	"strings"
)

// Rebase describes a --rebase-on-reject rebase of a rejected branch that
// did not go through.
type Rebase struct {
	// Branch is the rejected branch; Remote the remote's name.
	Branch, Remote string
	// Onto is the remote commit the rebase was onto (abbreviated).
	Onto string
	// Conflicts are the files left conflicting; none when it failed otherwise.
	Conflicts []string
	// Aborted says what became of the rebase ("; the rebase was aborted ..."), "" when nothing was left to abort.
	Aborted string
	// Cause is git rebase's own failure.
	Cause *Failure
	// RefLine is the rejected ref's porcelain line.
	RefLine string
}

// FromRebase classifies a rebase that stopped: structural either way, since
// the remote's commits must be integrated by hand; a conflict names its files.
func FromRebase(r Rebase) *Failure {
	f := &Failure{Class: Structural, Code: CodeGitRebaseFailed}
	if r.Cause != nil {
		f.Err = r.Cause
	}
	cause := ""
	if r.Cause != nil {
		cause = r.Cause.Reason
	}
	if len(r.Conflicts) > 0 {
		files := strings.Join(r.Conflicts, ", ")
		f.Code = CodeGitRebaseConflict
		f.Reason = fmt.Sprintf("--rebase-on-reject: rebasing %s onto %s/%s (%s) conflicts in %s%s", r.Branch, r.Remote, r.Branch, r.Onto, files, r.Aborted)
		f.Remedy = fmt.Sprintf("integrate the remote commits by hand: git pull --rebase %s %s, resolve the conflicts in %s, git rebase --continue, then push again", r.Remote, r.Branch, files)
		for _, file := range r.Conflicts {
			f.Evidence = append(f.Evidence, EvidenceLineAt("conflict: "+file, 0))
		}
	} else {
		f.Reason = fmt.Sprintf("--rebase-on-reject: git rebase of %s onto %s/%s failed: %s%s", r.Branch, r.Remote, r.Branch, cause, r.Aborted)
		f.Remedy = fmt.Sprintf("rebase by hand (commit or stash local changes first): git pull --rebase %s %s, then push again", r.Remote, r.Branch)
	}
	if r.Cause != nil {
		f.Evidence = append(f.Evidence, r.Cause.Evidence...)
	}
	if r.RefLine != "" {
		f.Evidence = append(f.Evidence, r.RefLine)
	}
	return f
}
