// Package gittest gives tests real git repositories: an environment isolated
// from the user's git configuration, work and bare repositories, and a smart
// HTTP server backed by the real git http-backend behind a fault-injecting
// front. Nothing here fakes git; every git command is the real binary.
package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// InstallHint is the command that installs what these helpers run.
const InstallHint = "apt-get install -y git"

// RequireGit fails the test, with the install command, when git or its
// http-backend is missing; it returns git's exec path (git --exec-path).
func RequireGit(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed; install it with: %s", InstallHint)
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v; reinstall git with: %s", err, InstallHint)
	}
	dir := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(dir, "git-http-backend")); err != nil {
		t.Fatalf("git-http-backend is missing from %s; install it with: %s", dir, InstallHint)
	}
	return dir
}

// isolatedPrefixes are the environment variables Env drops from the process's
// environment: git's own settings (GIT_DIR, GIT_CONFIG_*), the user's home and
// config folders, and proxies (tests talk only to 127.0.0.1).
var isolatedPrefixes = []string{"GIT_", "HOME=", "XDG_CONFIG_HOME=", "HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "NO_PROXY="}

// Env returns an environment for git isolated from the user's configuration:
// HOME and GIT_CONFIG_GLOBAL in a fresh temp folder (the global config sets
// init.defaultBranch=main and nothing else), GIT_CONFIG_NOSYSTEM=1,
// GIT_TERMINAL_PROMPT=0, a fixed author and committer, and no proxy.
func Env(t testing.TB) []string {
	t.Helper()
	RequireGit(t)
	home := t.TempDir()
	global := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(global, []byte("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
next:
	for _, kv := range os.Environ() {
		up := strings.ToUpper(kv)
		for _, p := range isolatedPrefixes {
			if strings.HasPrefix(up, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL="+global,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.test",
		"GIT_COMMITTER_NAME=Test Committer", "GIT_COMMITTER_EMAIL=committer@example.test",
	)
}

// Git runs git with env in dir and returns its stdout without the trailing
// newline; it fails the test when git fails.
func Git(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := RunGit(env, dir, args...)
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s%s", strings.Join(args, " "), dir, err, out, errOut)
	}
	return strings.TrimRight(out, "\n")
}

// RunGit runs git with env in dir and returns its stdout and stderr.
func RunGit(env []string, dir string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("git", args...)
	cmd.Env, cmd.Dir = env, dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// NewBare creates an empty bare repository at path (created if missing) that
// accepts pushes over HTTP (http.receivepack=true).
func NewBare(t testing.TB, env []string, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, env, path, "init", "--quiet", "--bare", "--initial-branch=main")
	Git(t, env, path, "config", "http.receivepack", "true")
	return path
}

// NewWork creates a work repository in a temp folder with one commit on main
// and the remote origin at remoteURL ("" for none); it returns its path.
func NewWork(t testing.TB, env []string, remoteURL string) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, env, dir, "init", "--quiet", "--initial-branch=main")
	Commit(t, env, dir, "README", "hello\n", "initial commit")
	if remoteURL != "" {
		Git(t, env, dir, "remote", "add", "origin", remoteURL)
	}
	return dir
}

// Clone clones url into a temp folder and returns its path.
func Clone(t testing.TB, env []string, url string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	Git(t, env, "", "clone", "--quiet", url, dir)
	return dir
}

// Commit writes content to file in the work repository dir, commits it with
// msg and returns the new commit's id.
func Commit(t testing.TB, env []string, dir, file, content, msg string) string {
	t.Helper()
	p := filepath.Join(dir, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, env, dir, "add", "--", file)
	Git(t, env, dir, "commit", "--quiet", "-m", msg)
	return Git(t, env, dir, "rev-parse", "HEAD")
}

// Hook installs an executable hook script (such as pre-receive) in the bare
// repository at bare.
func Hook(t testing.TB, bare, name, script string) {
	t.Helper()
	p := filepath.Join(bare, "hooks", name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Rev returns the commit id ref points to in the repository at dir.
func Rev(t testing.TB, env []string, dir, ref string) string {
	t.Helper()
	return Git(t, env, dir, "rev-parse", "--verify", "--quiet", ref)
}

// FileURL returns the file:// URL of a local path.
func FileURL(path string) string { return "file://" + filepath.ToSlash(path) }
