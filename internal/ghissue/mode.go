package ghissue

import (
	"fmt"
	"strings"
)

// Mode is the value of the action's report-issue input.
type Mode int

// The three values of report-issue.
const (
	// Off never touches issues (report-issue: false, the default).
	Off Mode = iota
	// On reports in an issue, except under act (report-issue: true).
	On
	// Force reports in an issue under act too (report-issue: force).
	Force
)

// ParseMode reads report-issue: false, true or force in any case, around
// white space; "" is false (the input not given).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "false":
		return Off, nil
	case "true":
		return On, nil
	case "force":
		return Force, nil
	}
	return Off, fmt.Errorf("invalid report-issue %q: want false, true or force", s)
}

// String returns the input value that selects m.
func (m Mode) String() string {
	switch m {
	case On:
		return "true"
	case Force:
		return "force"
	}
	return "false"
}

// Enabled reports whether an issue is to be opened, commented or closed,
// and when it is not, why (one sentence for the log). Under act (a local
// run, where an issue on the real repository would be noise) only Force
// reports.
func (m Mode) Enabled(underAct bool) (bool, string) {
	switch {
	case m == Force:
		return true, ""
	case m == On && underAct:
		return false, "report-issue skipped under act (ACT=true); set report-issue: force to report in an issue from act too"
	case m == On:
		return true, ""
	}
	return false, "report-issue is false"
}

// UnderAct reports whether the process runs under act, which sets ACT=true.
func UnderAct(getenv func(string) string) bool { return getenv("ACT") == "true" }
