package failure

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles its expression on first use, so that starting retrywise
// (`--help`, `version`) does not pay for compiling every recogniser (~5 ms).
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// allRegexps lists every lazy expression, for the test that compiles them all.
var allRegexps []*lazyRegexp

// lazyRE returns an expression compiled on first use; it panics then if src is invalid.
func lazyRE(src string) *lazyRegexp {
	l := &lazyRegexp{src: src}
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

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}

func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
