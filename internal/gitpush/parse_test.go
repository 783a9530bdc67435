package gitpush

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/failure"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args     []string
		repo     string
		refspecs []string
	}{
		{nil, "", nil},
		{[]string{"origin", "main"}, "origin", []string{"main"}},
		{[]string{"--force-with-lease", "-o", "ci.skip", "origin", "HEAD:refs/heads/x"}, "origin", []string{"HEAD:refs/heads/x"}},
		{[]string{"--push-option", "a=b", "--atomic", "up", "a", "b"}, "up", []string{"a", "b"}},
		{[]string{"--push-option=a", "--tags", "https://x-access-token:t0k@h/r.git"}, "https://x-access-token:t0k@h/r.git", nil},
		{[]string{"-fo", "v", "origin"}, "origin", nil},
		{[]string{"-ov", "origin"}, "origin", nil},
		{[]string{"--repo", "mirror", "--all"}, "mirror", nil},
		{[]string{"--repo=mirror"}, "mirror", nil},
		{[]string{"-u", "--", "origin", "-weird"}, "origin", []string{"-weird"}},
	}
	for _, tt := range tests {
		p := parseArgs(tt.args)
		if p.repo != tt.repo || !slices.Equal(p.refspecs, tt.refspecs) {
			t.Errorf("parseArgs(%q) = %q %q, want %q %q", tt.args, p.repo, p.refspecs, tt.repo, tt.refspecs)
		}
	}
}

func TestParseRefLine(t *testing.T) {
	tests := []struct {
		line string
		want failure.PushRef
		ok   bool
	}{
		{"*\trefs/heads/main:refs/heads/main\t[new branch]", failure.PushRef{Flag: '*', From: "refs/heads/main", To: "refs/heads/main", Summary: "[new branch]"}, true},
		{" \trefs/heads/main:refs/heads/main\t92ec6e9..fcc47fe", failure.PushRef{Flag: ' ', From: "refs/heads/main", To: "refs/heads/main", Summary: "92ec6e9..fcc47fe"}, true},
		{"+\trefs/heads/x:refs/heads/x\t1a2b3c...4d5e6f (forced update)", failure.PushRef{Flag: '+', From: "refs/heads/x", To: "refs/heads/x", Summary: "1a2b3c...4d5e6f", Reason: "forced update"}, true},
		{"!\trefs/heads/main:refs/heads/main\t[remote rejected] (pre-receive hook declined)", failure.PushRef{Flag: '!', From: "refs/heads/main", To: "refs/heads/main", Summary: "[remote rejected]", Reason: "pre-receive hook declined"}, true},
		{"-\t:refs/heads/old\t[deleted]", failure.PushRef{Flag: '-', To: "refs/heads/old", Summary: "[deleted]"}, true},
		{"=\trefs/tags/v1:refs/tags/v1\t[up to date]", failure.PushRef{Flag: '=', From: "refs/tags/v1", To: "refs/tags/v1", Summary: "[up to date]"}, true},
		{"To https://h/r.git", failure.PushRef{}, false},
		{"Done", failure.PushRef{}, false},
		{"remote: error: x", failure.PushRef{}, false},
		{"!\tno-colon\t[rejected]", failure.PushRef{}, false},
	}
	for _, tt := range tests {
		got, ok := parseRefLine(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseRefLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPorcelainWriterAcrossWrites(t *testing.T) {
	var p porcelain
	out := "To http://h/r.git\n*\trefs/heads/a:refs/heads/a\t[new branch]\n!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)\nDone\n"
	for i := 0; i < len(out); i += 7 {
		p.Write([]byte(out[i:min(i+7, len(out))]))
	}
	refs, to := p.result()
	if to != "http://h/r.git" || len(refs) != 2 || refs[1].Reason != "fetch first" || !p.done {
		t.Errorf("refs %+v, to %q, done %v", refs, to, p.done)
	}
	p.reset()
	if refs, _ := p.result(); len(refs) != 0 {
		t.Errorf("reset kept %+v", refs)
	}
}

func TestGitEnv(t *testing.T) {
	env, err := gitEnv([]string{"PATH=/bin"}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := environ.Lookup(env, "GIT_HTTP_LOW_SPEED_LIMIT"); v != "1024" {
		t.Errorf("low speed limit = %q, want 1024", v)
	}
	if v, _ := environ.Lookup(env, "GIT_HTTP_LOW_SPEED_TIME"); v != "30" {
		t.Errorf("low speed time = %q, want 30", v)
	}
	env, _ = gitEnv([]string{"GIT_HTTP_LOW_SPEED_LIMIT=5", "GIT_HTTP_LOW_SPEED_TIME=7"}, "", false)
	if a, _ := environ.Lookup(env, "GIT_HTTP_LOW_SPEED_LIMIT"); a != "5" || len(env) != 2 {
		t.Errorf("the user's low-speed settings were overridden: %q", env)
	}

	// --safe-directory appends after the user's own command-scope config
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	env, err = gitEnv([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=x"}, sub, true)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(repo)
	for _, want := range []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=" + real, "GIT_CONFIG_KEY_0=user.name"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %q: %q", want, env)
		}
	}
	if _, err := gitEnv([]string{"GIT_CONFIG_COUNT=many"}, sub, true); err == nil {
		t.Error("a malformed GIT_CONFIG_COUNT was accepted")
	}
}
