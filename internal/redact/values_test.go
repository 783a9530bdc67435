package redact

import (
	"strings"
	"testing"
)

func TestStringEnv(t *testing.T) {
	testStrings(t, []stringTest{
		{"env token", "pushing with " + ghToken + " now", "pushing with *** now"},
		{"env token twice", ghToken + ghToken, "******"},
		{"env base64", "data " + b64(ghToken) + " end", "data *** end"},
		{"env base64 x-access-token", "AUTH " + b64("x-access-token:"+ghToken) + ".", "AUTH ***."},
		{"env base64 unpadded", "jwt." + strings.TrimRight(b64("x-access-token:"+ghToken), "=") + ".sig", "jwt.***.sig"},
		{"env api key", "key=k3y-v4lue", "key=***"},
		{"env lower-case name", "pw hunter22", "pw ***"},
		{"env secret with slash", "aws wJalrXUtnFEMI/K7MDENG", "aws ***"},
		{"env value trimmed", "cred padded-cred!", "cred ***!"},
		{"env path not masked", "PATH is /usr/local/bin:/usr/bin:/bin", "PATH is /usr/local/bin:/usr/bin:/bin"},
		{"env short value ignored", "abc def true", "abc def true"},
		{"env non-secret name", "visible-value", "visible-value"},
	})
}

func TestStringValues(t *testing.T) {
	testStrings(t, []stringTest{
		{"value", "use explicit-mask here", "use *** here"},
		{"value min length", "xyz but not ab", "*** but not ab"},
		{"nested values longest first", "[outer-inner-secret] [inner]", "[***] [***]"},
		{"value base64", "b " + b64("explicit-mask"), "b ***"},
	})
}

func TestOverlappingSecretsMaskedAsUnion(t *testing.T) {
	r := New(Options{Values: []string{"abcdef", "defghi", "zzz"}})
	for in, want := range map[string]string{
		"x abcdefghi y": "x *** y",
		"x defghiabc y": "x ***abc y",
		"zzzz":          "***",
		"abcdefabcdef":  "******",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMultiLineSecretMaskedPerLine(t *testing.T) {
	key := "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
	r := New(Options{Env: []string{"SSH_PRIVATE_KEY=" + key}})
	got := r.String("line MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n")
	if want := "line ***\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := r.String(key); got != Mask {
		t.Errorf("whole key: got %q", got)
	}
}

func TestPlainSettingsAreNotSecrets(t *testing.T) {
	r := New(Options{Env: []string{"KEYCHAIN=true", "USE_TOKEN_AUTH=false", "API_KEY=abcd1234secret"}})
	if got := r.String("verbose=true cache=false key=abcd1234secret"); got != "verbose=true cache=false key=***" {
		t.Errorf("got %q", got)
	}
}

func TestEnvNameGivenTwiceLastWins(t *testing.T) {
	r := New(Options{Env: []string{"GITHUB_TOKEN=shadowed-value", "PATH=/bin", "GITHUB_TOKEN=effective-value"}})
	got := r.String("shadowed-value effective-value")
	if want := "shadowed-value ***"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
