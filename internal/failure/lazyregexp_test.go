package failure

import (
	"regexp"
	"testing"
)

func TestAllRegexpsCompile(t *testing.T) {
	if len(allRegexps) < 20 {
		t.Fatalf("only %d lazy expressions registered", len(allRegexps))
	}
	for _, l := range allRegexps {
		if _, err := regexp.Compile(l.src); err != nil {
			t.Errorf("%q: %v", l.src, err)
		}
	}
}
