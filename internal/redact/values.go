package redact

// The literal-values rules: secret environment variables (rule 3) and
// explicit values (rule 4), each also masked in its base64 forms.

import (
	"encoding/base64"
	"strings"

	"github.com/retrywise/retrywise/internal/environ"
)

// gitBasicUser is the user name git and GitHub use with token credentials.
const gitBasicUser = "x-access-token:"

// envNameMarkers are the upper-case fragments that make an environment
// variable secret.
var envNameMarkers = []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "CREDENTIAL"}

// envSecrets returns the literal forms of the secret values in env, a
// KEY=VALUE list; of a name given twice only the last value counts, as in
// os/exec.
func envSecrets(env []string) []string {
	var vals []string
	for name, value := range environ.Map(env) {
		if secretEnvName(name) && !plainSetting(value) {
			vals = appendSecret(vals, value, MinEnvValueLen)
		}
	}
	return vals
}

// plainSetting reports whether a secret-named variable holds an ordinary
// setting word (KEYCHAIN=true, GIT_ASKPASS_TOKEN=none) rather than a secret;
// masking it would hide every "true" in the output.
func plainSetting(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false", "yes", "no", "none", "null", "nil", "unset", "empty", "enabled", "disabled", "on", "off":
		return true
	}
	return false
}

// secretEnvName reports whether an environment variable name marks a secret.
func secretEnvName(name string) bool {
	up := strings.ToUpper(name)
	for _, m := range envNameMarkers {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// appendSecret appends the literal forms of secret v to dst: v trimmed of
// white space, each line of a multi-line v (the Writer sees one line at a
// time), and the base64 encodings of v and of "x-access-token:"+v, padded and
// unpadded, as sent in HTTP basic authentication.
func appendSecret(dst []string, v string, minLen int) []string {
	t := strings.TrimSpace(v)
	if len(t) < minLen {
		return dst
	}
	dst = append(dst, t)
	if strings.ContainsAny(t, "\r\n") {
		for _, line := range strings.FieldsFunc(t, isEOL) {
			if line = strings.TrimSpace(line); len(line) >= minLen {
				dst = append(dst, line)
			}
		}
	}
	raws := []string{t}
	if t != v {
		raws = append(raws, v)
	}
	for _, raw := range raws {
		for _, plain := range []string{raw, gitBasicUser + raw} {
			enc := base64.StdEncoding.EncodeToString([]byte(plain))
			dst = append(dst, enc)
			if short := strings.TrimRight(enc, "="); short != enc {
				dst = append(dst, short)
			}
		}
	}
	return dst
}

func isEOL(c rune) bool { return c == '\n' || c == '\r' }
