package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// DefaultKeep is how many reports of a job a History keeps when keep is 0 or less.
const DefaultKeep = 100

// startLayout names a report by its run's start, in UTC, sortable as text.
const startLayout = "20060102T150405.000Z"

// lockName is the lock file's name in the history folder.
const lockName = ".lock"

// ErrNoStateDir says DefaultDir found neither XDG_STATE_HOME nor HOME.
var ErrNoStateDir = errors.New("no folder for the run history: set XDG_STATE_HOME or HOME, or name the folder")

// DefaultDir returns the default history folder from env:
// $XDG_STATE_HOME/retrywise (when absolute, as the XDG spec requires), else
// $HOME/.local/state/retrywise, else ErrNoStateDir.
func DefaultDir(env map[string]string) (string, error) {
	if x := env["XDG_STATE_HOME"]; x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "retrywise"), nil
	}
	if h := env["HOME"]; h != "" {
		return filepath.Join(h, ".local", "state", "retrywise"), nil
	}
	return "", ErrNoStateDir
}

// History is a folder of run reports, JOB/START.json, newest kept, with
// the lock that makes one process at a time its scheduler.
type History struct {
	dir  string
	keep int
}

// OpenHistory opens the history folder dir, creating it 0700, keeping the
// newest keep reports of each job (DefaultKeep when keep is 0 or less).
func OpenHistory(dir string, keep int) (*History, error) {
	if keep <= 0 {
		keep = DefaultKeep
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &History{dir: dir, keep: keep}, nil
}

// Dir returns the history folder.
func (h *History) Dir() string { return h.dir }

// LockedError says another process holds the history's lock.
type LockedError struct {
	// Path is the lock file.
	Path string
	// PID is the holder's process id as it wrote it; 0 if unreadable.
	PID int
}

// Error names the lock file and its holder.
func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("%s is held by another process", e.Path)
	}
	return fmt.Sprintf("%s is held by process %d", e.Path, e.PID)
}

// Lock takes the history's lock (flock on DIR/.lock, the holder's pid
// written in it) without waiting: a *LockedError when another open of the
// lock file holds it. unlock releases it; calling it again does nothing.
func (h *History) Lock() (unlock func(), err error) {
	path := filepath.Join(h.dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history lock: %w", err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, PID: readPID(f)}
		}
		return nil, fmt.Errorf("history lock %s: %w", path, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("history lock %s: %w", path, err)
	}
	return sync.OnceFunc(func() {
		_ = flock(f, syscall.LOCK_UN)
		f.Close()
	}), nil
}

// flock applies how to f's open file description.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = syscall.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}

// readPID reads the pid a lock holder wrote; 0 if there is none.
func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// maxJobDir is the longest job name, in bytes, used as its folder's name
// as it is; a longer one is cut to jobDirKeep bytes and followed by "~" and
// 16 hex digits of its SHA-256, so that any name fits the 255 bytes a file
// name may have and two long names that share their start stay apart.
const (
	maxJobDir  = 128
	jobDirKeep = 96
)

// jobDir returns the folder of job's reports, or an error when job cannot
// name a folder.
func (h *History) jobDir(job string) (string, error) {
	if job == "" || strings.HasPrefix(job, ".") || strings.ContainsAny(job, `/\`) || strings.ContainsRune(job, 0) {
		return "", fmt.Errorf("history: %q is not a job name", job)
	}
	return filepath.Join(h.dir, jobDirName(job)), nil
}

// jobDirName is the name of job's folder (maxJobDir).
func jobDirName(job string) string {
	if len(job) <= maxJobDir {
		return job
	}
	keep := jobDirKeep
	for keep > 0 && !utf8.RuneStart(job[keep]) {
		keep--
	}
	sum := sha256.Sum256([]byte(job))
	return job[:keep] + "~" + hex.EncodeToString(sum[:8])
}

// Save writes report as JOB/START.json (START in UTC, to the millisecond),
// atomically: a temporary file in the same folder, synced, then renamed.
// Then it removes the job's oldest reports beyond the newest keep. It
// returns the report's path.
func (h *History) Save(job string, start time.Time, report []byte) (path string, err error) {
	dir, err := h.jobDir(job)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	path = filepath.Join(dir, start.UTC().Format(startLayout)+".json")
	tmp, err := os.CreateTemp(dir, ".tmp-*.json")
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(report)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return "", fmt.Errorf("history: save %s: %w", path, err)
	}
	syncDir(dir)
	if err := h.rotate(dir); err != nil {
		return path, err
	}
	return path, nil
}

// syncDir makes a rename in dir durable, as far as the system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// rotate removes the oldest reports in dir beyond the newest keep.
func (h *History) rotate(dir string) error {
	names, err := reports(dir)
	if err != nil {
		return err
	}
	for _, n := range names[:max(0, len(names)-h.keep)] {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("history: rotate: %w", err)
		}
	}
	return nil
}

// reports returns the report file names in dir, oldest first; none when
// dir does not exist.
func reports(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var names []string
	for _, e := range entries {
		if _, ok := reportStart(e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// reportStart reads the start a report's file name holds.
func reportStart(name string) (time.Time, bool) {
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(startLayout, stem)
	return t, err == nil
}

// Reports returns the paths of job's reports, oldest first.
func (h *History) Reports(job string) ([]string, error) {
	dir, err := h.jobDir(job)
	if err != nil {
		return nil, err
	}
	names, err := reports(dir)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths, err
}

// Last returns the start of job's newest report, read from its file name;
// ok is false when the job has none.
func (h *History) Last(job string) (start time.Time, ok bool, err error) {
	dir, err := h.jobDir(job)
	if err != nil {
		return time.Time{}, false, err
	}
	names, err := reports(dir)
	if err != nil || len(names) == 0 {
		return time.Time{}, false, err
	}
	start, _ = reportStart(names[len(names)-1])
	return start, true, nil
}

// LastAt returns the start of job's newest report not dated after now;
// ok is false when it has none. A report dated after now (a clock that
// jumped back) is ignored, so it cannot make a job "not due" until then;
// the next Save removes it.
func (h *History) LastAt(job string, now time.Time) (start time.Time, ok bool, err error) {
	dir, err := h.jobDir(job)
	if err != nil {
		return time.Time{}, false, err
	}
	names, err := reports(dir)
	if err != nil {
		return time.Time{}, false, err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if start, _ = reportStart(names[i]); !start.After(now) {
			return start, true, nil
		}
	}
	return time.Time{}, false, nil
}

// DropFuture removes job's reports dated after now: left by a clock that
// jumped back, or a folder copied from a machine ahead, they would
// otherwise stay the newest, and never be rotated, until the clock catches
// up. The scheduler calls it after each Save; it returns the names removed.
func (h *History) DropFuture(job string, now time.Time) ([]string, error) {
	dir, err := h.jobDir(job)
	if err != nil {
		return nil, err
	}
	names, err := reports(dir)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for i := len(names) - 1; i >= 0; i-- {
		if start, _ := reportStart(names[i]); !start.After(now) {
			break
		}
		if err := os.Remove(filepath.Join(dir, names[i])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dropped, fmt.Errorf("history: rotate: %w", err)
		}
		dropped = append(dropped, names[i])
	}
	return dropped, nil
}
