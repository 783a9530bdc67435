package cli

import (
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestFlagErrorsNameFlagsAsDocumented: a malformed flag is named as the docs
// and --help name it, two dashes for a long flag and one for a short alias.
func TestFlagErrorsNameFlagsAsDocumented(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"exec", "--exit-code", "1", "--", "true"}, "retrywise: flag provided but not defined: --exit-code (see --help)\n"},
		{[]string{"exec", "-exit-code", "1", "--", "true"}, "retrywise: flag provided but not defined: --exit-code (see --help)\n"},
		{[]string{"exec", "--timeout", "x", "--", "true"}, `retrywise: invalid value "x" for flag --timeout: want a duration such as 10s, 1m30s or 2h (see --help)` + "\n"},
		{[]string{"exec", "--timeout"}, "retrywise: flag needs an argument: --timeout (see --help)\n"},
		{[]string{"http", "--absent-ok=maybe", "http://127.0.0.1:1/"}, `retrywise: invalid boolean value "maybe" for --absent-ok: want true or false (see --help)` + "\n"},
		{[]string{"http", "--max-attempts", `" for flag -y: `, "http://127.0.0.1:1/"}, `retrywise: invalid value "\" for flag -y: " for flag --max-attempts: want a whole number (see --help)` + "\n"},
		{[]string{"http", "-X"}, "retrywise: flag needs an argument: -X (see --help)\n"},
		{[]string{"classify", "-Z"}, "retrywise: flag provided but not defined: -Z (see --help)\n"},
		{[]string{"exec", "---timeout", "1s"}, "retrywise: bad flag syntax: ---timeout (see --help)\n"},
	}
	for _, tt := range tests {
		r := runCLI(t, "", nil, tt.args...)
		if r.code != exitcode.Usage || r.stderr != tt.want {
			t.Errorf("%q: exit %d, stderr %q\nwant exit 64, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
