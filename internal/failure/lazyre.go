package failure

import (
	"regexp"
	"sync"
)

// The recognisers hold about a hundred regular expressions. Compiling them
// when the package initialises costs every run of retrywise several
// milliseconds, also runs that never classify anything (a push that
// succeeds), so each is compiled on its first use instead.

// lazyRegexp is a regular expression compiled on first use; it has the
// methods of *regexp.Regexp that the recognisers call.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// lineMatcher is what a matcher needs of its regular expression; both
// *regexp.Regexp and *lazyRegexp have it.
type lineMatcher interface {
	FindStringSubmatchIndex(s string) []int
}

// allPatterns lists every lazyRegexp, so a test can compile them all; it is
// only appended to while the package initialises.
var allPatterns []*lazyRegexp

// compileLazy returns expr as a regular expression compiled on first use; an
// invalid expr panics then (TestPatternsCompile compiles every one).
func compileLazy(expr string) *lazyRegexp {
	l := &lazyRegexp{expr: expr}
	allPatterns = append(allPatterns, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// String returns the expression.
func (l *lazyRegexp) String() string { return l.expr }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// MatchString is regexp.Regexp.MatchString.
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }
