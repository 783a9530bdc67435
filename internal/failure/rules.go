package failure

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/retrywise/retrywise/internal/codes"
)

// Rules are user rules from the exec command line (--retry-on, --stop-on,
// --retry-on-exit, --stop-on-exit), applied on top of the built-in
// classification. Patterns match one line of output at a time.
type Rules struct {
	RetryOn, StopOn         []*regexp.Regexp
	RetryOnExit, StopOnExit []int
}

// ParseExitCodes parses a list such as "1,2,5-7" into sorted, distinct exit
// codes (0-255). Blank input gives no codes.
func ParseExitCodes(s string) ([]int, error) {
	out, err := codes.Parse(s, 0, 255, "exit code")
	if err != nil {
		return nil, fmt.Errorf("exit codes %q: %w", s, err)
	}
	return out.Ints(), nil
}

// Apply returns the classification after the user rules. Stop rules win: a
// base that already stops is kept, a transient one becomes Unknown ("matched
// --stop-on REGEX"). Otherwise retry rules make the failure Transient
// ("matched --retry-on REGEX"). The evidence is the matching line (or the
// exit code). base may be nil; the result never is.
func (r Rules) Apply(text string, exitCode int, base *Failure) *Failure {
	if base == nil {
		base = unrecognised(text, exitCode)
	}
	if line, re, ok := matchLine(text, r.StopOn); ok {
		return stopBy(base, CodeRuleStopOn, "matched --stop-on "+re, line)
	}
	if exitCode >= 0 && slices.Contains(r.StopOnExit, exitCode) {
		return stopBy(base, CodeRuleStopOnExit, fmt.Sprintf("exit code %d matched --stop-on-exit", exitCode), ExitEvidence(exitCode))
	}
	if line, re, ok := matchLine(text, r.RetryOn); ok {
		return retryBy(base, CodeRuleRetryOn, "matched --retry-on "+re, line)
	}
	if exitCode >= 0 && slices.Contains(r.RetryOnExit, exitCode) {
		return retryBy(base, CodeRuleRetryOnExit, fmt.Sprintf("exit code %d matched --retry-on-exit", exitCode), ExitEvidence(exitCode))
	}
	return base
}

// stopBy applies a stop rule: a built-in verdict that already stops is
// kept (it says more); a transient or unrecognised one becomes Unknown.
func stopBy(base *Failure, code Code, reason, evidence string) *Failure {
	if base.Class != Transient && base.Recognised() {
		return base
	}
	return &Failure{Class: Unknown, Code: code, Reason: reason, Remedy: "a --stop-on rule says this failure will not pass on a retry", Evidence: []string{evidence}, Trace: base.Trace, Err: base.Err}
}

// retryBy applies a retry rule: the failure becomes Transient.
func retryBy(base *Failure, code Code, reason, evidence string) *Failure {
	return &Failure{Class: Transient, Code: code, Reason: reason, Remedy: "retrying, as a --retry-on rule asks", Evidence: []string{evidence}, RetryAfter: base.RetryAfter, Trace: base.Trace, Err: base.Err}
}

// matchLine returns the first line of text matched by any of res.
func matchLine(text string, res []*regexp.Regexp) (line, re string, ok bool) {
	if len(res) == 0 {
		return "", "", false
	}
	for rest := text; rest != ""; {
		i := strings.IndexAny(rest, "\r\n")
		l := rest
		if i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		for _, r := range res {
			if r == nil {
				continue
			}
			if loc := r.FindStringIndex(l); loc != nil {
				return evidenceLine(l, loc[0]), r.String(), true
			}
		}
	}
	return "", "", false
}
