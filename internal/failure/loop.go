package failure

import (
	"fmt"
	"time"
)

// MaxElapsed is the failure of attempt n cut short by the loop's own bound on
// elapsed time: transient (a later run may finish in time), with the cut
// attempt's own failure as its cause and evidence.
func MaxElapsed(n int, bound time.Duration, cut *Failure) *Failure {
	f := &Failure{Class: Transient, Code: CodeMaxElapsed, Reason: fmt.Sprintf("attempt %d was stopped at the max elapsed time of %s", n, bound),
		Remedy: "raise --max-elapsed if the step needs longer"}
	if cut != nil {
		f.Evidence, f.Trace, f.Err = cut.Evidence, cut.Trace, cut
	}
	return f
}
