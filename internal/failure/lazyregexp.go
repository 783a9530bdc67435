package failure

import (
	"regexp"
	"sync"
)

// LazyRegexp compiles its expression on first use, so that starting retrywise
// (`--help`, `version`) does not pay for compiling every recogniser (~5 ms).
type LazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// allRegexps lists every lazy expression, for the test that compiles them all.
var allRegexps []*LazyRegexp

// LazyRE returns an expression compiled on first use; it panics then if src is invalid.
func LazyRE(src string) *LazyRegexp {
	l := &LazyRegexp{src: src}
	allRegexps = append(allRegexps, l)
	return l
}

// BuiltinPatterns returns the source of every built-in recogniser's
// regular expression, for the team rules' tests of their cost estimate.
func BuiltinPatterns() []string {
	out := make([]string, len(allRegexps))
	for i, l := range allRegexps {
		out[i] = l.src
	}
	return out
}

func (l *LazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// MatchString reports whether the expression matches s (regexp.Regexp.MatchString).
func (l *LazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch of the expression.
func (l *LazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex of the expression.
func (l *LazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch of the expression.
func (l *LazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex of the expression.
func (l *LazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
