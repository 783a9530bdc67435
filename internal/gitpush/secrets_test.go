package gitpush

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/gittest"
)

// TestPushRegistersRemoteCredentials: the credentials of the push URL, from
// the remote's git config (its password, or its user when it has none; a
// pushurl wins over url), are handed to Secrets before the first push.
func TestPushRegistersRemoteCredentials(t *testing.T) {
	for _, tt := range []struct {
		name, key, url, want string
		args                 []string
	}{
		{"url password", "remote.origin.url", "http://alice:Rem0te-Pw-1@127.0.0.1:9/x.git", "Rem0te-Pw-1", []string{"origin", "main"}},
		{"pushurl password", "remote.origin.pushurl", "https://bob:Rem0te-Pw-2@127.0.0.1:9/x.git", "Rem0te-Pw-2", []string{"origin", "main"}},
		{"token as user", "remote.origin.url", "http://ghs_Rem0teTok3n@127.0.0.1:9/x.git", "ghs_Rem0teTok3n", nil},
		{"percent-encoded password", "remote.origin.url", "http://carol:Rem0te%2BPw-3@127.0.0.1:9/x.git", "Rem0te+Pw-3", []string{"origin"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, work, env := fileRepo(t)
			gittest.Git(t, env, work, "config", tt.key, tt.url)
			var got []string
			r := run(t, Options{Dir: work, Env: env, Args: tt.args, Secrets: func(v ...string) { got = append(got, v...) }})
			if !slices.Contains(got, tt.want) {
				t.Errorf("Secrets got %q, want %q\n%s", got, tt.want, r)
			}
			if strings.Contains(r.stderr+r.stdout, tt.want) {
				t.Logf("note: git printed the credential (masked by the caller): %s", r.stderr)
			}
		})
	}
}
