package cli

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// escapedSecret holds every character JSON escapes (HTML ones included).
const escapedSecret = `pa"ss\word&more<x>`

// escapedForms are the ways escapedSecret may be written: raw, Go-quoted,
// JSON-encoded with and without HTML escapes.
func escapedForms() []string {
	html, _ := json.Marshal(escapedSecret)
	return []string{escapedSecret, strings.Trim(strconv.Quote(escapedSecret), `"`), strings.Trim(string(html), `"`),
		`pa\"ss\\word&more<x>`, `ss\\word`, `ss\\\\word`, "hunter", "more<x>", `more\u003cx`}
}

// showsPart returns a part (6 bytes or more, from either end) of secret that
// out shows, or "".
func showsPart(out, secret string) string {
	for n := len(secret) - 1; n >= 6; n-- {
		if p := secret[:n]; strings.Contains(out, p) {
			return p
		}
		if p := secret[len(secret)-n:]; strings.Contains(out, p) {
			return p
		}
	}
	if strings.Contains(out, secret) {
		return secret
	}
	return ""
}

// TestProbeJSONMasksEscapedSecrets: the proxy's answer quotes a secret that
// JSON escapes; probe --json masks the results before encoding them.
func TestProbeJSONMasksEscapedSecrets(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{DenyHeader: http.Header{"X-Deny-Reason": {"bad credential " + escapedSecret}}})
	defer gw.Close()
	for _, args := range [][]string{{"probe", "--json", "dev.to"}, {"probe", "dev.to"}} {
		r := runCLI(t, "", []string{"HTTPS_PROXY=" + gw.URL, "UPSTREAM_PASSWORD=" + escapedSecret}, args...)
		for _, form := range escapedForms() {
			if strings.Contains(r.stdout+r.stderr, form) {
				t.Errorf("%v shows %q:\n%s%s", args, form, r.stdout, r.stderr)
			}
		}
		if r.code != exitcode.Policy || !strings.Contains(r.stdout, "bad credential ***") {
			t.Errorf("%v: exit %d, want %d and the masked reason:\n%s%s", args, r.code, exitcode.Policy, r.stdout, r.stderr)
		}
	}
}

// TestValidateJSONMasksEscapedSecrets: a job file's bad value that holds a
// secret is quoted by the error; validate masks it in text and in JSON.
func TestValidateJSONMasksEscapedSecrets(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yml")
	yml := "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        http: {url: \"https://example.com\", timeout: '" + escapedSecret + "'}\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		r := runCLI(t, "", []string{"DEPLOY_SECRET=" + escapedSecret}, "validate", "--config", file, "--format", format)
		for _, form := range escapedForms() {
			if strings.Contains(r.stdout+r.stderr, form) {
				t.Errorf("--format %s shows %q:\n%s%s", format, form, r.stdout, r.stderr)
			}
		}
		if r.code != exitcode.Config || !strings.Contains(r.stdout+r.stderr, "***") {
			t.Errorf("--format %s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
	}
}

// cutToken is a token placed across the 300-byte evidence cut.
const cutToken = "ghp_Str4ddl3T0kenValue0123456789ab" // 34 bytes

// cutLine is a git failure line with cutToken starting at byte at.
func cutLine(at int) string {
	head := "fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403 "
	return head + strings.Repeat("x", at-len(head)) + " " + cutToken + " and more words after the token"
}

// TestClassifyTokenAcrossEvidenceCut: classify, as text and as JSON, never
// shows a part of a token that the evidence cut goes through.
func TestClassifyTokenAcrossEvidenceCut(t *testing.T) {
	for at := 266; at < 300; at += 3 {
		for _, args := range [][]string{{"classify"}, {"classify", "--json"}} {
			r := runCLI(t, cutLine(at)+"\n", []string{"GITHUB_TOKEN=" + cutToken}, args...)
			if p := showsPart(r.stdout+r.stderr, cutToken); p != "" || r.code != exitcode.OK {
				t.Fatalf("%v, token at byte %d: exit %d, shows %q:\n%s%s", args, at, r.code, p, r.stdout, r.stderr)
			}
		}
	}
}

// TestExecTokenAcrossEvidenceCut: a real process prints a token across the
// evidence cut; stderr's report and the JSON report show no part of it.
func TestExecTokenAcrossEvidenceCut(t *testing.T) {
	for _, at := range []int{270, 280, 290} {
		rep := filepath.Join(t.TempDir(), "r.json")
		r := runCLI(t, "", []string{"GITHUB_TOKEN=" + cutToken, "LINE=" + cutLine(at)}, "exec", "--report", rep, "--", "sh", "-c", `echo "$LINE" >&2; exit 128`)
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		if p := showsPart(r.stdout+r.stderr+string(b), cutToken); p != "" || r.code != exitcode.Policy {
			t.Fatalf("token at byte %d: exit %d, shows %q:\n%s%s\n%s", at, r.code, p, r.stdout, r.stderr, b)
		}
	}
}

// TestExecMasksEncodedSecretForms: a real process echoes the environment's
// token as a server or git's remote: lines would relay it: basic
// credentials of any user, the token as a user alone, percent-encoded, and
// in the JSON fields of a body; none of it is printed or reported.
func TestExecMasksEncodedSecretForms(t *testing.T) {
	const token = "glcbt-64_J0bT0ken/Value+x"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	lines := []string{
		"remote: HTTP Basic: Access denied. Credentials " + b64("gitlab-ci-token:"+token),
		"remote: Authorization: Basic " + b64("alice:"+token),
		"remote: " + b64("deploy-bot:"+token) + " was rejected",
		"cred " + b64(token+":") + " (user-only URL)",
		"GET /api?private_token=" + url.QueryEscape(token) + " 401",
		"path " + url.PathEscape(token),
		`{"token": "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "password": "an-unknown-pw-1", "message": "Bad credentials"}`,
		"fatal: Authentication failed for 'https://gitlab.example.com/o/r.git/'",
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", []string{"CI_JOB_TOKEN=" + token, "OUT=" + strings.Join(lines, "\n")}, "exec", "--report", rep, "--", "sh", "-c", `echo "$OUT"; echo "$OUT" >&2; exit 128`)
	b, _ := os.ReadFile(rep)
	all := r.stdout + r.stderr + string(b)
	secrets := []string{token, url.QueryEscape(token), url.PathEscape(token), "ghs_16C7e42F", "an-unknown-pw-1"}
	for _, l := range lines[:4] {
		f := strings.Fields(l)
		for _, w := range f {
			if len(w) > 20 {
				secrets = append(secrets, w[len(w)-16:]) // the token's part of each base64 form
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%q shown:\n%s", s, all)
		}
	}
	if r.code != exitcode.Policy || !strings.Contains(r.stdout, `"message": "Bad credentials"`) {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
}

// TestUsageErrorsMasked: a usage error never echoes a credential from the
// command line, the environment or a bad flag value.
func TestUsageErrorsMasked(t *testing.T) {
	const ghp = "ghp_UsageT0kenValue0123456789abcdefgh"
	const pw = "Hunter2-UsagePass"
	tests := []struct {
		name string
		env  []string
		args []string
	}{
		{"bad header", nil, []string{"http", "--header", "Authorization=Bearer " + ghp, "https://127.0.0.1:1/"}},
		{"bad header unknown token", nil, []string{"http", "-H", "X-Api-Key=" + pw, "https://127.0.0.1:1/"}},
		{"token as timeout", nil, []string{"exec", "--timeout", ghp, "--", "true"}},
		{"masked value as timeout", nil, []string{"exec", "--mask", pw, "--timeout", pw, "--", "true"}},
		{"env secret as duration", []string{"DEPLOY_TOKEN=" + pw}, []string{"push", "--timeout", pw}},
		{"token as flag", nil, []string{"exec", "--" + ghp, "--", "true"}},
		{"token as command", nil, []string{ghp}},
		{"token as classify argument", nil, []string{"classify", ghp}},
		{"token as max-attempts", nil, []string{"exec", "--max-attempts", ghp, "--", "true"}},
		{"bearer as status", nil, []string{"classify", "--status", "Bearer " + pw}},
		{"classify header", nil, []string{"classify", "--header", "Authorization=Bearer " + ghp}},
		{"github-quota token with bad timeout", nil, []string{"github-quota", "--token", pw, "--timeout", pw}},
	}
	for _, tt := range tests {
		r := runCLI(t, "", tt.env, tt.args...)
		all := r.stdout + r.stderr
		if r.code != exitcode.Usage || !strings.HasPrefix(lastLine(r.stderr), "retrywise: ") {
			t.Errorf("%s: exit %d, want %d with the reason last:\n%s", tt.name, r.code, exitcode.Usage, all)
		}
		for _, s := range []string{ghp, pw, ghp[:12], pw[:10]} {
			if strings.Contains(all, s) {
				t.Errorf("%s: shows %q:\n%s", tt.name, s, all)
			}
		}
	}
}
