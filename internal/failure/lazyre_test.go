package failure

import (
	"regexp"
	"testing"
)

func TestPatternsCompile(t *testing.T) {
	if len(allPatterns) < 50 {
		t.Fatalf("only %d lazy patterns registered", len(allPatterns))
	}
	for _, p := range allPatterns {
		if _, err := regexp.Compile(p.expr); err != nil {
			t.Errorf("pattern %q: %v", p.expr, err)
		}
	}
}
