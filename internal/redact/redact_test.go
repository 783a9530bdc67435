package redact

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
)

const ghToken = "ghp_xxxSecret123"

var testEnv = []string{
	"GITHUB_TOKEN=" + ghToken,
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/home/runner",
	"MY_API_KEY=k3y-v4lue",
	"db_password=hunter22",
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
	"GIT_CREDENTIALS= padded-cred \n",
	"SHORT_TOKEN=abc",
	"CI=true",
	"DISPLAY_NAME=visible-value",
	"MALFORMED_TOKEN_NO_EQUALS",
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestString(t *testing.T) {
	r := New(Options{Env: testEnv, Values: []string{"explicit-mask", "ab", "xyz", "  ", "outer-inner-secret", "inner"}})
	tests := []struct {
		name, in, want string
	}{
		// Rule 1: URL userinfo.
		{"url password", "git clone https://x-access-token:tok-1a2b@github.com/o/r.git",
			"git clone https://x-access-token:***@github.com/o/r.git"},
		{"url token as user", "fetching https://tok-1a2b@example.com/x", "fetching https://***@example.com/x"},
		{"url empty password masks user", "https://tok-1a2b:@host/x", "https://***:@host/x"},
		{"url other scheme", "postgres://app:pw-9z@db:5432/x", "postgres://app:***@db:5432/x"},
		{"url ssh user", "ssh://git@github.com/o/r", "ssh://***@github.com/o/r"},
		{"url at in password", "fatal: unable to access 'https://u:p@ss@host/x': 403",
			"fatal: unable to access 'https://u:***@host/x': 403"},
		{"url two on a line", "a=http://u:p1@h1/ b=ftp://t0k@h2", "a=http://u:***@h1/ b=ftp://***@h2"},
		{"url at in path untouched", "https://host:8080/users/@me?x=a@b", "https://host:8080/users/@me?x=a@b"},
		{"url then email untouched", "see https://example.com and mail me@example.com", "see https://example.com and mail me@example.com"},
		{"url empty userinfo untouched", "https://@host/x", "https://@host/x"},
		{"scp-like untouched", "git@github.com:o/r.git", "git@github.com:o/r.git"},

		// Rule 2: credential headers.
		{"bearer", "Authorization: Bearer eyJhbGciOi.x.y", "Authorization: Bearer ***"},
		{"basic lower", "authorization: basic eHg6eXk=", "authorization: basic ***"},
		{"no space after colon", "Authorization:Bearer abc123", "Authorization:Bearer ***"},
		{"no scheme", "Authorization: abc123", "Authorization: ***"},
		{"proxy", "Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic ***"},
		{"curl verbose crlf", "> Authorization: token abc123\r\n> Accept: */*\r\n",
			"> Authorization: token ***\r\n> Accept: */*\r\n"},
		{"api key", "X-Api-Key: abc", "X-Api-Key: ***"},
		{"private token", "Private-Token: x", "Private-Token: ***"},
		{"other weak names", "Client-Secret: s\nX-Passwd: p\nGit-Credential: c\nDB_PASSWORD: d",
			"Client-Secret: ***\nX-Passwd: ***\nGit-Credential: ***\nDB_PASSWORD: ***"},
		{"trailing blanks kept", "X-Api-Key: abc  \r\n", "X-Api-Key: ***  \r\n"},
		{"cookie", "Cookie: a=1; b=2", "Cookie: ***"},
		{"set-cookie verbose", "< Set-Cookie: sid=xyz; Path=/\r\n", "< Set-Cookie: ***\r\n"},
		{"yaml key", "  github_token: abc123\n  other: v\n", "  github_token: ***\n  other: v\n"},
		{"yaml list", "- api_key: abc123", "- api_key: ***"},
		{"extraheader quoted", "git -c 'http.https://github.com/.extraheader=AUTHORIZATION: basic eHl6dw==' fetch origin",
			"git -c 'http.https://github.com/.extraheader=AUTHORIZATION: basic ***' fetch origin"},
		{"extraheader config", "git config --local http.https://github.com/.extraheader AUTHORIZATION: basic eHl6dw==",
			"git config --local http.https://github.com/.extraheader AUTHORIZATION: basic ***"},
		{"extraheader unquoted", "http.extraheader=AUTHORIZATION: basic eHl6dw==", "http.extraheader=AUTHORIZATION: basic ***"},
		{"curl -H quoted", `curl -sS -H 'Authorization: token abc123' -H "X-Api-Key: k1k1" https://api.example.com/x`,
			`curl -sS -H 'Authorization: token ***' -H "X-Api-Key: ***" https://api.example.com/x`},
		{"curl -H unquoted", "curl -H X-Api-Key:k1k1 https://api.example.com/x", "curl -H X-Api-Key:*** https://api.example.com/x"},
		{"curl --header quoted", `curl --header "Private-Token: glpat-1" https://x`, `curl --header "Private-Token: ***" https://x`},
		{"token in prose untouched", "error: invalid token: unexpected '}'", "error: invalid token: unexpected '}'"},
		{"empty value untouched", "token:\n  nested: 1\n", "token:\n  nested: 1\n"},
		{"plain headers untouched", "Content-Type: application/json\r\nKeep-Alive: timeout=5\r\nAuthor: Jane <jane@example.com>\r\n",
			"Content-Type: application/json\r\nKeep-Alive: timeout=5\r\nAuthor: Jane <jane@example.com>\r\n"},
		{"file:line untouched", "    token_test.go:42: got 1, want 2\nsrc/keymap.c:7:1: warning: x", "    token_test.go:42: got 1, want 2\nsrc/keymap.c:7:1: warning: x"},
		{"timestamps untouched", "2024-01-02T10:22:01Z step 1: ok", "2024-01-02T10:22:01Z step 1: ok"},
		{"idempotent", "Authorization: Bearer ***", "Authorization: Bearer ***"},

		// Rule 3: secret environment values.
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

		// Rule 4: explicit values.
		{"value", "use explicit-mask here", "use *** here"},
		{"value min length", "xyz but not ab", "*** but not ab"},
		{"nested values longest first", "[outer-inner-secret] [inner]", "[***] [***]"},
		{"value base64", "b " + b64("explicit-mask"), "b ***"},

		{"empty", "", ""},
		{"unicode untouched", "naïve ☃ 日本語\n", "naïve ☃ 日本語\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
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

func TestAdd(t *testing.T) {
	r := New(Options{})
	const s = "late secret s3cr3t-late"
	if got := r.String(s); got != s {
		t.Fatalf("before Add: %q", got)
	}
	r.Add("s3cr3t-late", "no", "")
	if got, want := r.String(s), "late secret ***"; got != want {
		t.Errorf("after Add: got %q, want %q", got, want)
	}
	r.Add("s3cr3t-late") // duplicate is a no-op
	if got, want := r.String("no"), "no"; got != want {
		t.Errorf("short value masked: %q", got)
	}
}

func TestZeroRedactor(t *testing.T) {
	var r Redactor
	if got, want := r.String("https://tok@h/ x"), "https://***@h/ x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r.Add("zero-secret")
	if got, want := r.String("a zero-secret"), "a ***"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStringCleanInputDoesNotAllocate(t *testing.T) {
	r := New(Options{Env: testEnv})
	in := "2024-01-02T10:22:01Z ok: fetched https://github.com/o/r (3 objects) user@example.com\n"
	if got := r.String(in); got != in {
		t.Fatalf("changed: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { r.String(in) }); n != 0 {
		t.Errorf("String allocated %v times on clean input", n)
	}
}

func TestConcurrentAddAndString(t *testing.T) {
	r := New(Options{Env: testEnv})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g%2 == 0 {
					r.Add(strings.Repeat("s", 3+i%5) + "-added")
				}
				if got := r.String("t " + ghToken); got != "t ***" {
					t.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkString(b *testing.B) {
	r := New(Options{Env: benchEnv()})
	corpus := string(benchCorpus())
	for _, bc := range []struct{ name, in string }{
		{"1MiB", corpus},
		{"line", "2024-01-02T10:22:01.1234567Z error: failed to push some refs to 'https://github.com/o/r.git'\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				r.String(bc.in)
			}
		})
	}
}

func TestPlainSettingsAreNotSecrets(t *testing.T) {
	r := New(Options{Env: []string{"KEYCHAIN=true", "USE_TOKEN_AUTH=false", "API_KEY=abcd1234secret"}})
	if got := r.String("verbose=true cache=false key=abcd1234secret"); got != "verbose=true cache=false key=***" {
		t.Errorf("got %q", got)
	}
}
