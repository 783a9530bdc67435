package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LogFile is the file the work tree's one unpushed commit adds.
const LogFile = "log/2026-12-01.md"

// Where buildRepo puts the repositories inside dir.
const (
	originDir    = "origin.git"
	workDir      = "work"
	colleagueDir = "colleague"
)

// gitEnv is the environment of the gits that build the world: the process's,
// without git's settings and proxies, and with neither the user's nor the
// system's git configuration.
func gitEnv() []string {
	// git's own variables (GIT_DIR, GIT_CONFIG_*, ...) and proxies
	dropEnv := []string{"GIT_", "HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "NO_PROXY="}
	var env []string
next:
	for _, kv := range os.Environ() {
		up := strings.ToUpper(kv)
		for _, p := range dropEnv {
			if strings.HasPrefix(up, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return append(env, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
}

// gitRunner runs git in the world's isolated environment.
type gitRunner struct {
	ctx context.Context
	env []string
}

func (g gitRunner) run(dir string, args ...string) error {
	cmd := exec.CommandContext(g.ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, g.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// identity sets a repository's local configuration: who commits, and
// nothing the user's configuration could change about a push of it.
func (g gitRunner) identity(dir, name, email string) error {
	for _, kv := range [][2]string{
		{"user.name", name},
		{"user.email", email},
		{"commit.gpgSign", "false"},
		{"push.gpgSign", "false"},
		// the repository's own (sample) hooks, not a global hooksPath's
		{"core.hooksPath", ".git/hooks"},
		// origin is a local path: allow the file transport whatever the user's config says
		{"protocol.file.allow", "always"},
	} {
		if err := g.run(dir, "config", "--local", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// commit writes content to file in the work tree dir and commits it.
func (g gitRunner) commit(dir, file, content, msg string) error {
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return err
	}
	if err := g.run(dir, "add", "--", file); err != nil {
		return err
	}
	return g.run(dir, "commit", "--quiet", "-m", msg)
}

// buildRepo builds, in dir, a bare origin and a work tree cloned from it;
// then a colleague pushes a commit to origin's main, the work tree fetches
// it and commits LogFile on top of the old tip. A push of the work tree's
// HEAD to main is then rejected non-fast-forward (not "fetch first": the
// work tree has the remote tip). It returns the work tree and the origin.
func buildRepo(ctx context.Context, dir string) (work, origin string, err error) {
	if dir == "" {
		return "", "", errors.New("no directory given")
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", fmt.Errorf("git is not installed: %w", err)
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	origin, work = filepath.Join(dir, originDir), filepath.Join(dir, workDir)
	colleague := filepath.Join(dir, colleagueDir)
	for _, p := range []string{origin, work, colleague} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("%s already exists: give the demo an empty directory", p)
		}
	}
	g := gitRunner{ctx: ctx, env: gitEnv()}
	steps := []func() error{
		func() error { return g.run(dir, "init", "--quiet", "--bare", "--initial-branch=main", origin) },
		func() error { return g.run(dir, "init", "--quiet", "--initial-branch=main", work) },
		func() error { return g.identity(work, "Demo User", "you@demo.test") },
		func() error {
			return g.commit(work, "README.md", "# Demo log\n\nOne file a day under log/.\n", "Start the log")
		},
		func() error { return g.run(work, "remote", "add", "origin", origin) },
		func() error { return g.run(work, "push", "--quiet", "--set-upstream", "origin", "main") },
		// someone else pushes to main
		func() error { return g.run(dir, "clone", "--quiet", origin, colleague) },
		func() error { return g.identity(colleague, "A Colleague", "colleague@demo.test") },
		func() error {
			return g.commit(colleague, "log/2026-11-30.md", "# 30 November 2026\n\nPublished three articles.\n", "log: 2026-11-30")
		},
		func() error { return g.run(colleague, "push", "--quiet", "origin", "HEAD:main") },
		func() error { return os.RemoveAll(colleague) },
		// the work tree learns of it, and commits on top of the old tip
		func() error { return g.run(work, "fetch", "--quiet", "origin") },
		func() error {
			return g.commit(work, LogFile, "# 1 December 2026\n\nRan the retrywise demo.\n", "log: 2026-12-01")
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return "", "", err
		}
	}
	return work, origin, nil
}
