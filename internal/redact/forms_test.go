package redact

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// jsonString returns s as a JSON string literal, HTML-escaped as
// json.Marshal does it, or not, as an Encoder with SetEscapeHTML(false).
func jsonString(s string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// escapedSecrets hold every character JSON escapes: & < > (HTML), " and \,
// a control character, a line break, U+2028 and a slash (escaped as \/ by
// some encoders).
var escapedSecrets = []string{
	"hunter2&more",
	"pa\"ss\\word",
	"a<b>c-secret",
	"tab\tsecret",
	"line1\nline2-secret",
	"sep\u2028secret",
	"wJalr/K7MDENG/bPxRfi",
	"nul\x01byte-secret",
}

func TestStringJSONEscapedSecrets(t *testing.T) {
	r := New(Options{Values: escapedSecrets})
	for _, secret := range escapedSecrets {
		for _, html := range []bool{true, false} {
			enc := jsonString(secret, html)
			slashed := strings.ReplaceAll(enc, "/", `\/`)
			quoted := strconv.Quote(secret)
			for _, in := range []string{
				`{"detail":` + enc + `}`,
				`{"detail":` + slashed + `}`,
				"error: " + quoted + " rejected",
			} {
				got := r.String(in)
				if strings.Contains(got, strings.Trim(enc, `"`)) || strings.Contains(got, strings.Trim(slashed, `"`)) ||
					strings.Contains(got, strings.Trim(quoted, `"`)) || !strings.Contains(got, Mask) {
					t.Errorf("secret %q (html %v): String(%q) = %q", secret, html, in, got)
				}
			}
		}
	}
}

func TestStringPercentEncodedSecrets(t *testing.T) {
	const secret = "wJalr/K7+MDENG=x y&z"
	r := New(Options{Env: []string{"AWS_SECRET_ACCESS_KEY=" + secret}})
	full := func(s string, hex string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%"+hex, s[i])
		}
		return b.String()
	}
	for name, enc := range map[string]string{
		"query":       url.QueryEscape(secret),
		"path":        url.PathEscape(secret),
		"query lower": lowerHex(url.QueryEscape(secret)),
		"full upper":  full(secret, "%02X"),
		"full lower":  full(secret, "%02x"),
	} {
		in := "GET /login?secret=" + enc + "&page=2 HTTP/1.1"
		if got, want := r.String(in), "GET /login?secret=***&page=2 HTTP/1.1"; got != want {
			t.Errorf("%s: String(%q) = %q, want %q", name, in, got, want)
		}
	}
}

func TestStringBasicAuthForms(t *testing.T) {
	const token = "glcbt-64_JobT0ken-abcdefXYZ"
	r := New(Options{Env: []string{"CI_JOB_TOKEN=" + token, "T1_TOKEN=" + token[1:], "T2_TOKEN=" + token[2:]}})
	tests := []stringTest{
		{"gitlab-ci-token user", "remote: basic " + b64("gitlab-ci-token:"+token), "remote: basic ***"},
		{"token as user alone", "auth " + b64(token+":") + " sent", "auth *** sent"},
		{"unpadded token as user", "auth " + strings.TrimRight(b64(token+":"), "=") + " sent", "auth *** sent"},
		{"token as user of x-oauth-basic", "cred=" + b64(token+":x-oauth-basic") + ";", "cred=***;"},
		{"unaligned token as user", "cred=" + b64(token[1:]+":x-oauth-basic") + ";", "cred=***;"},
		{"unaligned token as user 2", "cred=" + b64(token[2:]+":x") + ";", "cred=***;"},
	}
	// Any user, whatever its length (so at each of the three base64 alignments).
	for _, user := range []string{"a", "ab", "abc", "alice", "bob-the-builder", "oauth2"} {
		tests = append(tests, stringTest{"user " + user + " in json", `{"u":"` + b64(user+":"+token) + `"}`, `{"u":"***"}`},
			stringTest{"user " + user + " in text", "server echoed " + b64(user+":"+token) + " back", "server echoed *** back"})
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("%s: String(%q)\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestStringCredentialPatterns(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("A1b2C3d4E5", 3) + "f6g7h8"         // 36 characters after the prefix
	pat := "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz" // fine-grained
	testStrings(t, []stringTest{
		{"basic in free text", "remote: sent basic " + b64("someone:unknown-pass") + " to the server",
			"remote: sent basic *** to the server"},
		{"Basic in JSON", `{"auth":"Basic ` + b64("u:p4ss-w0rd") + `"}`, `{"auth":"Basic ***"}`},
		{"basic prose untouched", "uses basic authentication here", "uses basic authentication here"},
		{"Bearer in free text", "retrying with Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl now", "retrying with Bearer *** now"},
		{"bearer prose untouched", "the bearer token expired; Bearer realm=\"GitHub\"", "the bearer token expired; Bearer realm=\"GitHub\""},
		{"github classic token", "token " + ghp + " is invalid", "token *** is invalid"},
		{"github app token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "***"},
		{"github fine-grained token", "use " + pat, "use ***"},
		{"gitlab token", "PRIVATE glpat-x1Y2z3A4b5C6d7E8f9G0 end", "PRIVATE *** end"},
		{"token prefix in a word untouched", "aghp_" + strings.Repeat("x", 36), "aghp_" + strings.Repeat("x", 36)},
		{"short token-like untouched", "ghp_short", "ghp_short"},
		{"json token field", `{"token": "opaque-value-1", "expires_at": "2026-01-01"}`, `{"token": "***", "expires_at": "2026-01-01"}`},
		{"json password field", `{"user":"ci","password":"hunter-pw-99"}`, `{"user":"ci","password":"***"}`},
		{"json field escaped quote", `{"client_secret": "a\"b\\c", "ok": true}`, `{"client_secret": "***", "ok": true}`},
		{"json field in escaped json", `body: "{\"access_token\":\"at-9999\",\"n\":1}"`, `body: "{\"access_token\":\"***\",\"n\":1}"`},
		{"json authorization keeps scheme", `{"Authorization": "Bearer opaque"}`, `{"Authorization": "Bearer ***"}`},
		{"json plain field untouched", `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`,
			`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`},
		{"json non-string untouched", `{"token_count": 12, "keys": []}`, `{"token_count": 12, "keys": []}`},
	})
}

// TestStringCutFragments: a text cut at Cut never shows the part of a
// secret on the kept side of the cut.
func TestStringCutFragments(t *testing.T) {
	const token = "ghp_Str4ddl3T0kenValue0123456789abcd" // 36 bytes
	r := New(Options{Env: []string{"GITHUB_TOKEN=" + token}, Values: []string{"pass phrase with spaces"}})
	tests := []struct{ name, in, want string }{
		{"prefix before the cut", "fatal: auth with " + token[:28] + Cut, "fatal: auth with ***" + Cut},
		{"suffix after the cut", Cut + token[20:] + " was rejected", Cut + "*** was rejected"},
		{"prefix with blanks", "pw pass phrase wi" + Cut, "pw ***" + Cut},
		{"whole secret before the cut", "a " + token + " b" + Cut, "a *** b" + Cut},
		{"unknown token format cut", "with ghp_abc" + Cut, "with ***" + Cut},
		{"url userinfo cut before @", "fetch https://x-access-token:ghs_1234" + Cut, "fetch https://***" + Cut},
		{"url host cut untouched", "fetch https://github.com/o/r" + Cut, "fetch https://github.com/o/r" + Cut},
		{"host cut untouched", "fetch https://github.co" + Cut, "fetch https://github.co" + Cut},
		{"two-byte fragment kept", "word gh" + Cut, "word gh" + Cut},
		{"ellipsis in prose untouched", "Retrying in 4 seconds" + Cut + " (attempt 2/10)", "Retrying in 4 seconds" + Cut + " (attempt 2/10)"},
		{"unrelated word untouched", "remote: Counting objects" + Cut, "remote: Counting objects" + Cut},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("%s: String(%q)\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"ghp_" + strings.Repeat("a1", 18), true},
		{"Bearer abc.def-123", true},
		{"Authorization: token x", true},
		{"https://u:pw-1@h/", true},
		{"Authorization=Bearer ghp_x", true},
		{"X-Api-Key=k3y", true},
		{"10s", false},
		{"main", false},
		{"https://example.com/x", false},
		{"Content-Type: application/json", false},
	} {
		if got := looksSecret(tt.in); got != tt.want {
			t.Errorf("looksSecret(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestArgSecrets(t *testing.T) {
	args := []string{"http", "--mask", "m4sk-value", "--mask=second-m4sk", "-mask", "third-m4sk", "--token", "tok-value-1",
		"--header", "Authorization=Bearer hdr-bearer-1", "-H", "X-Api-Key: k3y-value-2", "--timeout", "ghp_" + strings.Repeat("Z9", 18),
		"--url", "https://api.example.com/x", "--method", "POST", "--", "curl", "-u", "user:pw-value-3", "https://example.com"}
	r := New(Options{Values: ArgSecrets(args)})
	in := strings.Join(args, " ")
	got := r.String(in)
	for _, secret := range []string{"m4sk-value", "second-m4sk", "third-m4sk", "tok-value-1", "hdr-bearer-1", "k3y-value-2", "Z9Z9", "pw-value-3"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q not masked: %s", secret, got)
		}
	}
	for _, kept := range []string{"--timeout", "https://api.example.com/x", "POST", "curl", "https://example.com"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q masked: %s", kept, got)
		}
	}
}
