package tools

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
)

// The helpers below are those of the core's classify_test.go, for the
// recognisers' cases here.

// textCase is one tool output and what it must classify as.
type textCase struct {
	name       string
	tool       failure.Tool
	text       string
	exit       int
	class      failure.Class
	code       failure.Code // the exact code
	reason     string       // substring of Reason ("" = any)
	remedy     string       // substring of Remedy ("" = any)
	evidence   []string     // each must be a substring of some evidence line
	retryAfter time.Duration
}

func runTextCases(t *testing.T, cases []textCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exit := tc.exit
			if exit == 0 {
				exit = failure.NoExitCode
			}
			f := failure.FromText(tc.tool, tc.text, exit)
			checkFailure(t, f, tc.class, tc.code, tc.reason, tc.remedy, tc.evidence)
			if f.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, tc.retryAfter)
			}
			if err := textInvariants(f, tc.text, exit); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkFailure asserts the class and the code exactly (a case must name its
// code), and that the reason and remedy contain the given text when given.
func checkFailure(t *testing.T, f *failure.Failure, class failure.Class, code failure.Code, reason, remedy string, evidence []string) {
	t.Helper()
	if f == nil {
		t.Fatal("nil failure")
	}
	if code == "" {
		t.Fatalf("the case names no code (got %q)", f.Code)
	}
	if f.Code != code {
		t.Errorf("code = %q, want %q (reason %q)", f.Code, code, f.Reason)
	}
	if f.Class != class {
		t.Errorf("class = %v, want %v (reason %q, evidence %q)", f.Class, class, f.Reason, f.Evidence)
	}
	if !strings.Contains(f.Reason, reason) {
		t.Errorf("reason = %q, want it to contain %q", f.Reason, reason)
	}
	if !strings.Contains(f.Remedy, remedy) {
		t.Errorf("remedy = %q, want it to contain %q", f.Remedy, remedy)
	}
	for _, want := range evidence {
		found := false
		for _, e := range f.Evidence {
			found = found || strings.Contains(e, want)
		}
		if !found {
			t.Errorf("evidence %q lacks %q", f.Evidence, want)
		}
	}
}

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// The core's bounds on evidence (maxEvidenceLines, maxEvidenceLen).
const (
	maxEvidenceLines = 5
	maxEvidenceLen   = 300
)

// invariants holds for every failure: a kebab-case code, never unknown on a
// recognised class, a class in range, a one-line reason,
// a remedy, bounded evidence, and a wait only on a transient failure.
func invariants(f *failure.Failure) error {
	switch {
	case f == nil:
		return fmt.Errorf("nil failure")
	case f.Class < failure.Unknown || f.Class > failure.Absent:
		return fmt.Errorf("class %d out of range", f.Class)
	case (f.Class.Decision() == failure.Retry) != (f.Class == failure.Transient):
		return fmt.Errorf("decision %s for class %s", f.Class.Decision(), f.Class)
	case !codeRE.MatchString(string(f.Code)):
		return fmt.Errorf("code %q is not a kebab-case name", f.Code)
	case f.Class != failure.Unknown && !f.Recognised():
		return fmt.Errorf("a %s failure with the code %q", f.Class, f.Code)
	case f.Reason == "" || strings.ContainsAny(f.Reason, "\r\n"):
		return fmt.Errorf("reason %q is not one line", f.Reason)
	case f.Remedy == "":
		return fmt.Errorf("no remedy for %q", f.Reason)
	case len(f.Evidence) > maxEvidenceLines:
		return fmt.Errorf("%d evidence lines", len(f.Evidence))
	case f.RetryAfter < 0 || (f.RetryAfter > 0 && f.Class != failure.Transient):
		return fmt.Errorf("RetryAfter %v on a %s failure", f.RetryAfter, f.Class)
	}
	for _, e := range f.Evidence {
		if len(e) > maxEvidenceLen || e == "" || strings.ContainsAny(e, "\r\n") {
			return fmt.Errorf("bad evidence line %q", e)
		}
	}
	return nil
}

// uncut returns an evidence line without the marks of its cuts.
func uncut(e string) string {
	return strings.TrimSuffix(strings.TrimPrefix(e, redact.Cut), redact.Cut)
}

// runnerStamp is the timestamp GitHub's runner puts in front of every log
// line, which the core strips before it reads a text.
var runnerStamp = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*)?Z `)

// textInvariants adds: every evidence line, without its cut marks, is a
// substring of the text, its controls escaped (Printable), or names the exit code.
func textInvariants(f *failure.Failure, text string, exit int) error {
	if err := invariants(f); err != nil {
		return err
	}
	text = runnerStamp.ReplaceAllString(text, "")
	for _, e := range f.Evidence {
		if !strings.Contains(text, uncut(e)) && !strings.Contains(failure.Printable(text), uncut(e)) && e != failure.ExitEvidence(exit) {
			return fmt.Errorf("evidence %q is not in the input", e)
		}
	}
	return nil
}
