package ghapi

import (
	"strings"
	"testing"
)

func TestCheckRepo(t *testing.T) {
	for _, s := range []string{"o/r", "octo-cat/Hello-World", "mona_octo/x", "a1/.github", "o/r.git", "o/..x", "o/_r", "o/-r",
		strings.Repeat("a", 39) + "/" + strings.Repeat("r", 100)} {
		if _, _, err := ParseRepo(s); err != nil {
			t.Errorf("ParseRepo(%q) = %v, want ok", s, err)
		}
	}
	for _, s := range []string{"../x", "o/..", "o/.", "./r", "%2e%2e/x", "o/%2e%2e", "o/r?x=1", "o/r#f", "o/r/x", "o", "/r", "o/",
		"-o/r", "_o/r", "o.o/r", "o/r x", "o\n/r", "o/ré", strings.Repeat("a", 40) + "/r", "o/" + strings.Repeat("r", 101), "o/r%2Fx"} {
		if _, _, err := ParseRepo(s); err == nil {
			t.Errorf("ParseRepo(%q) = ok, want an error", s)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseRepo(%q): the error is not one line: %q", s, err)
		}
	}
}
