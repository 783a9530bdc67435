package redact

import (
	"strings"
	"testing"
)

// TestFileSecrets: the values of a job file's secret-looking keys, in block
// and flow style, quoted or not, and of mask/token lists.
func TestFileSecrets(t *testing.T) {
	src := `version: 1
jobs:
  j:
    env:
      API_TOKEN: "tok-file-1"
      DEPLOY_PASSWORD: 'pw-file-2'
      PLAIN: visible-value
    steps:
      - id: a
        env: {GH_SECRET: sec-file-3, OTHER: shown-1}
        mask: [mask-file-4, "mask-file-5"]
        http:
          headers: {X-Api-Key: key-file-6, Authorization: "Bearer bear-file-7"}
        token: tok-file-8
        timeout: tok-file-1
`
	got := strings.Join(FileSecrets([]byte(src)), "|")
	for _, want := range []string{"tok-file-1", "pw-file-2", "sec-file-3", "mask-file-4", "mask-file-5", "key-file-6", "bear-file-7", "tok-file-8"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s not found in %q", want, got)
		}
	}
	for _, plain := range []string{"visible-value", "shown-1", "tok-file-1\n"} {
		if strings.Contains(got, plain) {
			t.Errorf("%q taken for a secret: %q", plain, got)
		}
	}
}

// TestArgSecretsHeaderWithoutColon: a credential header written without
// its colon (-H 'X-Api-Key sekret') is still a credential.
func TestArgSecretsHeaderWithoutColon(t *testing.T) {
	for _, args := range [][]string{
		{"http", "-H", "X-Api-Key sekret-1", "--bogus"},
		{"http", "--header", "Authorization Bearer sekret-1", "--bogus"},
		{"http", "--header=Private-Token sekret-1", "--bogus"},
		{"http", "-H", "api-key   sekret-1"},
	} {
		r := New(Options{Values: ArgSecrets(args)})
		if got := r.String(strings.Join(args, " ")); strings.Contains(got, "sekret-1") {
			t.Errorf("%q: %q", args, got)
		}
	}
	args := []string{"http", "-H", "X-Team platform-visible"}
	if got := New(Options{Values: ArgSecrets(args)}).String(strings.Join(args, " ")); !strings.Contains(got, "platform-visible") {
		t.Errorf("a plain header masked: %q", got)
	}
}
