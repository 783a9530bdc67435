package failure

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

func TestParseExitCodes(t *testing.T) {
	for in, want := range map[string][]int{
		"":             nil,
		"1":            {1},
		"1,2,5-7":      {1, 2, 5, 6, 7},
		" 7 , 3-4 ,3 ": {3, 4, 7},
		"0-2,255":      {0, 1, 2, 255},
	} {
		got, err := ParseExitCodes(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseExitCodes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"x", "1,", ",1", "-1", "5-3", "256", "1-", "1--2", "+3", "1.5", "2-300"} {
		if got, err := ParseExitCodes(in); err == nil {
			t.Errorf("ParseExitCodes(%q) = %v, want an error", in, got)
		}
	}
}

func TestRulesApply(t *testing.T) {
	transient := func() *Failure {
		f := New(Transient, CurlCode(28), "curl 28, operation timed out", "retry", "curl: (28) x")
		f.RetryAfter = time.Second
		return f
	}
	policy := New(Policy, HTTPCode(403), "HTTP 403 Forbidden", "grant")
	text := "step 1 ok\nERROR: quota exhausted for project p\nE: lock held by pid 42\n"
	for _, tc := range []struct {
		name     string
		r        Rules
		exit     int
		base     *Failure
		class    Class
		reason   string
		evidence string
		code     Code
	}{
		{"no rules keep the base", Rules{}, 1, policy, Policy, "HTTP 403", "", "http-403"},
		{"stop-on turns a retry into a stop", Rules{StopOn: []*regexp.Regexp{regexp.MustCompile(`quota exhausted`)}}, 1, transient(), Unknown, "matched --stop-on quota exhausted", "ERROR: quota exhausted for project p", "rule-stop-on"},
		{"stop-on keeps a stop class", Rules{StopOn: []*regexp.Regexp{regexp.MustCompile(`quota`)}}, 1, policy, Policy, "HTTP 403", "", "http-403"},
		{"stop-on-exit", Rules{StopOnExit: []int{3}}, 3, transient(), Unknown, "exit code 3 matched --stop-on-exit", "exit code 3", "rule-stop-on-exit"},
		{"retry-on", Rules{RetryOn: []*regexp.Regexp{regexp.MustCompile(`^E: lock held`)}}, 100, policy, Transient, "matched --retry-on ^E: lock held", "E: lock held by pid 42", "rule-retry-on"},
		{"retry-on-exit", Rules{RetryOnExit: []int{75}}, 75, nil, Transient, "exit code 75 matched --retry-on-exit", "exit code 75", "rule-retry-on-exit"},
		{"stop wins over retry", Rules{RetryOn: []*regexp.Regexp{regexp.MustCompile(`lock`)}, StopOnExit: []int{100}}, 100, transient(), Unknown, "--stop-on-exit", "", "rule-stop-on-exit"},
		{"stop-on names the rule for an unrecognised base", Rules{StopOn: []*regexp.Regexp{regexp.MustCompile(`quota`)}}, 1, nil, Unknown, "matched --stop-on quota", "quota exhausted", "rule-stop-on"},
		{"non-matching rules", Rules{RetryOn: []*regexp.Regexp{regexp.MustCompile(`nope`)}, RetryOnExit: []int{2}}, 1, policy, Policy, "HTTP 403", "", "http-403"},
		{"nil base, no rules", Rules{}, 1, nil, Unknown, "unrecognised failure (exit 1)", "", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.r.Apply(text, tc.exit, tc.base)
			var ev []string
			if tc.evidence != "" {
				ev = []string{tc.evidence}
			}
			checkFailure(t, f, tc.class, tc.code, tc.reason, "", ev)
			if err := invariants(f); err != nil {
				t.Error(err)
			}
		})
	}
	// a retry rule keeps the server's wait
	f := Rules{RetryOn: []*regexp.Regexp{regexp.MustCompile(`lock`)}}.Apply(text, 1, transient())
	if f.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v", f.RetryAfter)
	}
}
