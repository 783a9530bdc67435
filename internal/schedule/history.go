package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/retry"
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
//
// The folder itself is resolved once, when it is opened: its path may be,
// or pass through, a symbolic link. Inside it nothing is followed: the
// lock and each report are regular files and each job's folder a folder,
// opened relative to the folder (an os.Root) without following a symbolic
// link; a link or another kind of file where one of them should be is an
// *EntryError naming its path, and nothing is created, truncated, written
// or removed where it points.
type History struct {
	dir  string
	root *os.Root
	keep int
}

// OpenHistory opens the history folder dir, creating it 0700, keeping the
// newest keep reports of each job (DefaultKeep when keep is 0 or less).
// dir may be a symbolic link to a folder; it is resolved here, once.
func OpenHistory(dir string, keep int) (*History, error) {
	if keep <= 0 {
		keep = DefaultKeep
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &History{dir: dir, root: root, keep: keep}, nil
}

// Dir returns the history folder.
func (h *History) Dir() string { return h.dir }

// Close releases the folder; a lock taken stays held until its unlock.
func (h *History) Close() error { return h.root.Close() }

// EntryError says an entry of the history folder is not what the
// scheduler keeps there: a symbolic link, or another kind of file, where
// its lock, a job's folder or a report should be. The scheduler neither
// follows nor replaces it.
type EntryError struct {
	// Path is the entry.
	Path string
	// Found says what it is: "a symbolic link to /etc/passwd", "a folder".
	Found string
	// Want says what it should be: "a regular file", "a folder".
	Want string
}

// Error names the entry, what it is and what it should be.
func (e *EntryError) Error() string {
	return fmt.Sprintf("history: %s is %s, not %s: refusing to follow or replace it (remove it if it is not the scheduler's)", e.Path, e.Found, e.Want)
}

// entryError describes name in r, at path, whose Lstat is fi, as not want.
func entryError(r *os.Root, name, path string, fi fs.FileInfo, want string) *EntryError {
	found := "a " + fi.Mode().Type().String()
	switch t := fi.Mode().Type(); {
	case t&fs.ModeSymlink != 0:
		found = "a symbolic link"
		if to, err := r.Readlink(name); err == nil {
			found += " to " + strconv.Quote(to)
		}
	case t.IsDir():
		found = "a folder"
	case t.IsRegular():
		found = "a regular file"
	case t&fs.ModeNamedPipe != 0:
		found = "a named pipe"
	case t&fs.ModeSocket != 0:
		found = "a socket"
	case t&fs.ModeDevice != 0:
		found = "a device"
	}
	return &EntryError{Path: path, Found: found, Want: want}
}

// maxOpenTries bounds the looks and opens of one entry that another
// process removes or creates in between.
const maxOpenTries = 3

// openRegular opens the regular file name (one component) in r, at path,
// for reading and writing, creating it 0600 when absent (O_CREATE|O_EXCL,
// which never follows a link), never truncating it: a symbolic link or
// another kind of file there is an *EntryError, and so is a file that is
// not the one looked at (swapped in between), before anything is written.
func openRegular(r *os.Root, name, path string) (*os.File, error) {
	for range maxOpenTries {
		fi, err := r.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
			if errors.Is(err, fs.ErrExist) {
				continue // created meanwhile: look again
			}
			return f, err
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, entryError(r, name, path, fi, "a regular file")
		}
		f, err := r.OpenFile(name, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
			f.Close()
			return nil, &EntryError{Path: path, Found: "a file replaced while it was opened", Want: "the regular file looked at"}
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s: created and removed while it was opened, %d times", path, maxOpenTries)
}

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
// lock file holds it; an *EntryError, with nothing written, when DIR/.lock
// is a symbolic link or not a regular file. unlock releases it; calling it again does nothing.
func (h *History) Lock() (unlock func(), err error) {
	path := filepath.Join(h.dir, lockName)
	f, err := openRegular(h.root, lockName, path)
	var ee *EntryError
	if errors.As(err, &ee) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("history lock %s: %w", path, err)
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

// DefaultLockWait is how long "schedule --once --job" waits, by default,
// for the history's lock another process holds; MaxLockWait is the most
// it may be asked to wait (--lock-wait).
const (
	DefaultLockWait = time.Minute
	MaxLockWait     = time.Hour
)

// LockPoll is how often LockWithin tries the lock again while it waits.
const LockPoll = 250 * time.Millisecond

// LockWithin takes the history's lock as Lock does, but while another
// process holds it tries again every LockPoll on clk, for at most wait in
// all (wait/LockPoll tries, rounded up, after the first): then it returns
// the last *LockedError, which names the holder. It returns ctx's cause as
// soon as ctx ends (a signal), and at once any error but a held lock.
// waiting, when not nil, is told of the holder once, when the wait begins.
func (h *History) LockWithin(ctx context.Context, clk clock.Clock, wait time.Duration, waiting func(*LockedError)) (unlock func(), err error) {
	perr := retry.Poll(ctx, clk, LockPoll, min(wait, MaxLockWait), func(n int) bool {
		unlock, err = h.Lock()
		var le *LockedError
		if !errors.As(err, &le) {
			return false
		}
		if n == 1 && wait > 0 && waiting != nil {
			waiting(le)
		}
		return true
	})
	if perr != nil && !errors.Is(perr, retry.ErrPollExpired) {
		return nil, perr
	}
	return unlock, err
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

// jobDir returns the name and the path of job's folder, or an error when
// job cannot name a folder.
func (h *History) jobDir(job string) (name, path string, err error) {
	if job == "" || strings.HasPrefix(job, ".") || strings.ContainsAny(job, `/\`) || strings.ContainsRune(job, 0) {
		return "", "", fmt.Errorf("history: %q is not a job name", job)
	}
	name = jobDirName(job)
	return name, filepath.Join(h.dir, name), nil
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

// jobRoot opens job's folder in the history folder, its path beside; with
// create it makes it 0700 when absent, else a nil Root says there is none.
// A symbolic link (to a folder outside, or to another job's) or anything
// but a folder there is an *EntryError; so is a folder swapped in between
// the look and the open.
func (h *History) jobRoot(job string, create bool) (r *os.Root, path string, err error) {
	name, path, err := h.jobDir(job)
	if err != nil {
		return nil, "", err
	}
	for range maxOpenTries {
		fi, err := h.root.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !create:
			return nil, path, nil
		case errors.Is(err, fs.ErrNotExist):
			if err := h.root.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, path, fmt.Errorf("history: %w", err)
			}
			continue // look at what is there now
		case err != nil:
			return nil, path, fmt.Errorf("history: %w", err)
		case !fi.IsDir():
			return nil, path, entryError(h.root, name, path, fi, "a folder")
		}
		r, err := h.root.OpenRoot(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, fmt.Errorf("history: %w", err)
		}
		if st, err := r.Stat("."); err != nil || !os.SameFile(fi, st) {
			r.Close()
			return nil, path, &EntryError{Path: path, Found: "a folder replaced while it was opened", Want: "the folder looked at"}
		}
		return r, path, nil
	}
	return nil, path, fmt.Errorf("history: %s: created and removed while it was opened, %d times", path, maxOpenTries)
}

// Check returns an *EntryError when job's folder is a symbolic link or
// not a folder; nil when it is one or is absent.
func (h *History) Check(job string) error {
	r, _, err := h.jobRoot(job, false)
	if r != nil {
		r.Close()
	}
	return err
}

// Save writes report as JOB/START.json (START in UTC, to the millisecond),
// atomically: a new temporary file in the same folder (O_CREATE|O_EXCL),
// synced, then renamed into place. A symbolic link or another kind of
// file at JOB or at JOB/START.json is an *EntryError, with nothing written.
// Then it removes the job's oldest reports beyond the newest keep. It
// returns the report's path.
func (h *History) Save(job string, start time.Time, report []byte) (path string, err error) {
	jr, dir, err := h.jobRoot(job, true)
	if err != nil {
		return "", err
	}
	defer jr.Close()
	name := start.UTC().Format(startLayout) + ".json"
	if path, err = replaceFile(jr, dir, name, report); err != nil {
		return "", err
	}
	if err := h.rotate(jr); err != nil {
		return path, err
	}
	return path, nil
}

// replaceFile writes data as name in jr (whose path is dir), atomically:
// a new temporary file in the same folder (O_CREATE|O_EXCL), synced, then
// renamed into place. A symbolic link or another kind of file at name is
// an *EntryError, with nothing written. It returns the file's path.
func replaceFile(jr *os.Root, dir, name string, data []byte) (path string, err error) {
	path = filepath.Join(dir, name)
	if fi, err := jr.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return "", entryError(jr, name, path, fi, "a regular file")
	}
	tmp, tmpName, err := createTemp(jr)
	if err != nil {
		return "", fmt.Errorf("history: save %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = jr.Remove(tmpName)
		}
	}()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// rename(2) replaces whatever took the name since the look (a
		// link included: the link, never what it points at).
		err = jr.Rename(tmpName, name)
	}
	if err != nil {
		return "", fmt.Errorf("history: save %s: %w", path, err)
	}
	syncDir(jr)
	return path, nil
}

// bookName is the name of a job's hindsight book in its folder.
const bookName = "hindsight.json"

// ReadBook returns job's hindsight book (package hindsight) as written, at
// most hindsight.MaxBookSize+1 bytes; none when absent. A symbolic link or
// another kind of file there is an *EntryError.
func (h *History) ReadBook(job string) ([]byte, error) {
	jr, dir, err := h.jobRoot(job, false)
	if err != nil || jr == nil {
		return nil, err
	}
	defer jr.Close()
	path := filepath.Join(dir, bookName)
	fi, err := jr.Lstat(bookName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("history: %w", err)
	case !fi.Mode().IsRegular():
		return nil, entryError(jr, bookName, path, fi, "a regular file")
	}
	f, err := jr.OpenFile(bookName, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		return nil, &EntryError{Path: path, Found: "a file replaced while it was opened", Want: "the regular file looked at"}
	}
	return io.ReadAll(io.LimitReader(f, hindsight.MaxBookSize+1))
}

// WriteBook replaces job's hindsight book, atomically (as Save writes a report).
func (h *History) WriteBook(job string, data []byte) error {
	jr, dir, err := h.jobRoot(job, true)
	if err != nil {
		return err
	}
	defer jr.Close()
	_, err = replaceFile(jr, dir, bookName, data)
	return err
}

// createTemp creates a new temporary file .tmp-N.json in r, 0600, with
// O_CREATE|O_EXCL (a name taken, a link included, is another try).
func createTemp(r *os.Root) (*os.File, string, error) {
	var err error
	for range 10 {
		name := fmt.Sprintf(".tmp-%d.json", rand.Uint64())
		var f *os.File
		if f, err = r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, "", err
}

// syncDir makes a rename in r durable, as far as the system allows.
func syncDir(r *os.Root) {
	if d, err := r.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// rotate removes the oldest reports in r beyond the newest keep.
func (h *History) rotate(r *os.Root) error {
	names, err := reports(r)
	if err != nil {
		return err
	}
	for _, n := range names[:max(0, len(names)-h.keep)] {
		if err := r.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("history: rotate: %w", err)
		}
	}
	return nil
}

// MaxFolderEntries bounds the entries of a job's history folder that are
// read: rotation keeps it to --keep reports, so a folder past the bound was
// filled by something else, and listing it is refused rather than read
// without end.
const MaxFolderEntries = 100_000

// folderEntries is the bound reports applies: MaxFolderEntries, lowered by
// tests.
var folderEntries = MaxFolderEntries

// reports returns the names of the reports (regular files) in r, oldest
// first; none when r is nil (no folder). It reads the folder in pieces, to
// at most MaxFolderEntries entries.
func reports(r *os.Root) ([]string, error) {
	if r == nil {
		return nil, nil
	}
	d, err := r.Open(".")
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	var names []string
	for seen := 0; ; {
		entries, err := d.ReadDir(1024)
		for _, e := range entries {
			if _, ok := reportStart(e.Name()); ok && e.Type().IsRegular() {
				names = append(names, e.Name())
			}
		}
		if seen += len(entries); seen > folderEntries {
			return nil, fmt.Errorf("history: %s holds more than %d entries; rotation keeps far fewer, so something else filled it: clear it", r.Name(), folderEntries)
		}
		if errors.Is(err, io.EOF) || (err == nil && len(entries) == 0) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	sort.Strings(names)
	return names, nil
}

// jobReports returns the names of job's reports, oldest first, and its
// folder (nil when it has none, to be closed otherwise) and path.
func (h *History) jobReports(job string) (names []string, r *os.Root, dir string, err error) {
	r, dir, err = h.jobRoot(job, false)
	if err != nil {
		return nil, nil, dir, err
	}
	names, err = reports(r)
	if err != nil && r != nil {
		r.Close()
		r = nil
	}
	return names, r, dir, err
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
	names, r, dir, err := h.jobReports(job)
	if r != nil {
		r.Close()
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths, err
}

// LastAt returns the start of job's newest report not dated after now;
// ok is false when it has none. A report dated after now (a clock that
// jumped back) is ignored, so it cannot make a job "not due" until then;
// the next Save removes it.
func (h *History) LastAt(job string, now time.Time) (start time.Time, ok bool, err error) {
	names, r, _, err := h.jobReports(job)
	if r != nil {
		r.Close()
	}
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
	names, r, _, err := h.jobReports(job)
	if r == nil || err != nil {
		return nil, err
	}
	defer r.Close()
	var dropped []string
	for i := len(names) - 1; i >= 0; i-- {
		if start, _ := reportStart(names[i]); !start.After(now) {
			break
		}
		if err := r.Remove(names[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dropped, fmt.Errorf("history: rotate: %w", err)
		}
		dropped = append(dropped, names[i])
	}
	return dropped, nil
}
