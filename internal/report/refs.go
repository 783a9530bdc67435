package report

import (
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// Ref is one ref of a multi-ref step (git push): what happened to it.
type Ref struct {
	// From is the local ref or object; "" for a deletion.
	From string `json:"from,omitempty"`
	// To is the remote ref, e.g. refs/heads/main.
	To string `json:"to"`
	// Status is the ref's fate in a few words: "pushed (new branch)", "up to date", "rejected (non-fast-forward)".
	Status string `json:"status"`
	// OK is true when the ref was pushed or is up to date.
	OK bool `json:"ok"`
	// Class is the ref's failure class; None when OK.
	Class failure.Class `json:"class,omitempty"`
	// Reason is the ref's failure in one line; empty when OK.
	Reason string `json:"reason,omitempty"`
	// Landed is true when an earlier attempt's push of this ref landed although its connection broke.
	Landed bool `json:"landed,omitempty"`
}

// refLine renders one ref for the terminal, e.g.
// "refs/heads/main: rejected (non-fast-forward) [structural]".
func refLine(r Ref) string {
	var b strings.Builder
	b.WriteString(shortRef(r.To))
	b.WriteString(": ")
	b.WriteString(r.Status)
	if r.Landed {
		b.WriteString(", landed by an earlier attempt")
	}
	if r.Class != failure.None {
		fmt.Fprintf(&b, " [%s]", r.Class)
	}
	return b.String()
}

func shortRef(ref string) string {
	return strings.TrimPrefix(ref, "refs/heads/")
}
