package gitpush

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/environ"
)

// Defaults for git's low-speed limit: a transfer below DefaultLowSpeedLimit
// bytes/s for DefaultLowSpeedTime seconds is abandoned, so a stalled server
// becomes a transient failure instead of a hang.
const (
	// DefaultLowSpeedLimit is GIT_HTTP_LOW_SPEED_LIMIT when unset (1 KiB/s).
	DefaultLowSpeedLimit = 1024
	// DefaultLowSpeedTime is GIT_HTTP_LOW_SPEED_TIME when unset (30 s).
	DefaultLowSpeedTime = 30
)

// gitEnv returns the environment of every git that retrywise runs: base
// (nil means retrywise's own) with the low-speed defaults when unset and,
// for safeDir, the repository added to safe.directory through
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n (never the user's
// config files).
func gitEnv(base []string, dir string, safeDir bool) ([]string, error) {
	if base == nil {
		base = os.Environ()
	}
	env := append([]string(nil), base...)
	if _, ok := environ.Lookup(env, "GIT_HTTP_LOW_SPEED_LIMIT"); !ok {
		env = append(env, "GIT_HTTP_LOW_SPEED_LIMIT="+strconv.Itoa(DefaultLowSpeedLimit))
	}
	if _, ok := environ.Lookup(env, "GIT_HTTP_LOW_SPEED_TIME"); !ok {
		env = append(env, "GIT_HTTP_LOW_SPEED_TIME="+strconv.Itoa(DefaultLowSpeedTime))
	}
	if !safeDir {
		return env, nil
	}
	top, err := repoTop(dir)
	if err != nil {
		return nil, err
	}
	return addConfig(env, "safe.directory", top)
}

// addConfig appends one command-scope config entry to env through
// GIT_CONFIG_COUNT, after any entries already there.
func addConfig(env []string, key, value string) ([]string, error) {
	n := 0
	if v, ok := environ.Lookup(env, "GIT_CONFIG_COUNT"); ok && strings.TrimSpace(v) != "" {
		var err error
		if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 0 {
			return nil, fmt.Errorf("GIT_CONFIG_COUNT=%q is not a count", v)
		}
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") {
			out = append(out, kv)
		}
	}
	return append(out,
		fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, key),
		fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, value),
		fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1)), nil
}

// repoTop returns the real path of the work tree holding dir (the folder
// with .git), or of dir itself when none does (a bare repository): the path
// git compares with safe.directory. It runs no git, since git itself refuses
// a repository of dubious ownership.
func repoTop(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}

// SafeDirectoryEnv returns env with the repository holding dir (or dir
// itself) added to safe.directory for every git that runs with it,
// through GIT_CONFIG_COUNT: for a workspace owned by another user, as in
// a container action, without touching any config file.
func SafeDirectoryEnv(env []string, dir string) ([]string, error) {
	top, err := repoTop(dir)
	if err != nil {
		return nil, err
	}
	return addConfig(env, "safe.directory", top)
}
