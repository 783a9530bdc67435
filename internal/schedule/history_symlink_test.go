package schedule

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// victimText is what a file the history must never write holds.
const victimText = "the victim's own content\n"

// writeVictim writes a file the history must leave alone and returns its path.
func writeVictim(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "victim")
	if err := os.WriteFile(p, []byte(victimText), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkVictim fails the test unless the file at p still holds victimText.
func checkVictim(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != victimText {
		t.Errorf("%s was written through the history: %q %v", p, b, err)
	}
}

// checkRefused fails the test unless err is an *EntryError naming path.
func checkRefused(t *testing.T, err error, path string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error; want a refusal naming %s", path)
		return
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("the error %q does not name %s", err, path)
	}
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Path != path {
		t.Errorf("the error %q is not an *EntryError at %s", err, path)
	}
}

// TestHistoryLockRefusesWhatIsNotAFile: the lock is a regular file in the
// history folder, opened without following a symbolic link; a link (to a
// file outside, to one inside, to nowhere, to a folder) or another kind of
// file where it should be is refused with its path, and nothing it points
// at is created, truncated or written.
func TestHistoryLockRefusesWhatIsNotAFile(t *testing.T) {
	tests := []struct {
		name string
		// make puts something at lock, with out a folder outside the
		// history and victim a file there; it returns the file that must
		// stay unchanged ("" for none) and one that must not appear.
		make func(t *testing.T, dir, lock, out string) (victim, absent string)
	}{
		{name: "a link to a file outside", make: func(t *testing.T, dir, lock, out string) (string, string) {
			v := writeVictim(t, out)
			symlink(t, v, lock)
			return v, ""
		}},
		{name: "a relative link to a file inside", make: func(t *testing.T, dir, lock, out string) (string, string) {
			v := writeVictim(t, dir)
			symlink(t, "victim", lock)
			return v, ""
		}},
		{name: "a link to nothing", make: func(t *testing.T, dir, lock, out string) (string, string) {
			p := filepath.Join(out, "created")
			symlink(t, p, lock)
			return "", p
		}},
		{name: "a link to a folder", make: func(t *testing.T, dir, lock, out string) (string, string) {
			symlink(t, out, lock)
			return "", ""
		}},
		{name: "a folder", make: func(t *testing.T, dir, lock, out string) (string, string) {
			if err := os.Mkdir(lock, 0o700); err != nil {
				t.Fatal(err)
			}
			return "", ""
		}},
		{name: "a fifo", make: func(t *testing.T, dir, lock, out string) (string, string) {
			if err := syscall.Mkfifo(lock, 0o600); err != nil {
				t.Skip("no fifo:", err)
			}
			return "", ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			h, err := OpenHistory(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(dir, ".lock")
			victim, absent := tt.make(t, dir, lock, out)
			unlock, err := h.Lock()
			if err == nil {
				unlock()
			}
			checkRefused(t, err, lock)
			var le *LockedError
			if errors.As(err, &le) {
				t.Errorf("refused as held (%v): it is not a lock", err)
			}
			if victim != "" {
				checkVictim(t, victim)
			}
			if absent != "" {
				if _, err := os.Lstat(absent); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s was created through the link: %v", absent, err)
				}
			}
			if entries, _ := os.ReadDir(out); victim == "" && len(entries) != 0 {
				t.Errorf("the folder the link points at was written: %v", entries)
			}
		})
	}
}

// TestHistorySaveRefusesLinks: a job's folder and its reports are a real
// folder and regular files in the history folder. A link where a report is
// to be written, or a job folder that is a link (to a folder outside or to
// another job's) or a file, is refused with its path; nothing is written
// or removed where it points.
func TestHistorySaveRefusesLinks(t *testing.T) {
	tests := []struct {
		name string
		// make sets up the history folder dir; out is a folder outside it.
		// It returns the path Save must refuse and a file to check.
		make func(t *testing.T, dir, out string) (refused, victim string)
	}{
		{name: "the report is a link to a file outside", make: func(t *testing.T, dir, out string) (string, string) {
			mkdir(t, filepath.Join(dir, "j"))
			v := writeVictim(t, out)
			p := filepath.Join(dir, "j", "20250303T100000.000Z.json")
			symlink(t, v, p)
			return p, v
		}},
		{name: "the report is a folder", make: func(t *testing.T, dir, out string) (string, string) {
			p := filepath.Join(dir, "j", "20250303T100000.000Z.json")
			mkdir(t, p)
			return p, ""
		}},
		{name: "the job folder is a link to a folder outside", make: func(t *testing.T, dir, out string) (string, string) {
			v := filepath.Join(out, "20250303T090000.000Z.json") // an old report rotation would remove
			if err := os.WriteFile(v, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "j")
			symlink(t, out, p)
			return p, v
		}},
		{name: "the job folder is a link to another job's", make: func(t *testing.T, dir, out string) (string, string) {
			mkdir(t, filepath.Join(dir, "other"))
			v := filepath.Join(dir, "other", "20250303T090000.000Z.json")
			if err := os.WriteFile(v, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "j")
			symlink(t, "other", p)
			return p, v
		}},
		{name: "the job folder is a file", make: func(t *testing.T, dir, out string) (string, string) {
			p := filepath.Join(dir, "j")
			if err := os.WriteFile(p, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			return p, p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			h, err := OpenHistory(dir, 1)
			if err != nil {
				t.Fatal(err)
			}
			refused, victim := tt.make(t, dir, out)
			_, err = h.Save("j", t0, []byte(`{"new":true}`))
			checkRefused(t, err, refused)
			if victim != "" {
				checkVictim(t, victim)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 1 {
				t.Errorf("written where the link points: %v", entries)
			}
			if _, _, err := h.Last("j"); err == nil && strings.Contains(tt.name, "job folder is a link") {
				t.Error("Last read the job's reports through a link")
			}
		})
	}
}

// TestHistoryFolderMayBeALink: the folder the user names may itself be a
// symbolic link (or be reached through one): the lock and the reports go
// where it points.
func TestHistoryFolderMayBeALink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "state")
	symlink(t, real, link)
	h, err := OpenHistory(link, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := h.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(real, ".lock")); err != nil {
		t.Errorf("the lock is not in the linked folder: %v", err)
	}
	p, err := h.Save("j", t0, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(link, "j", "20250303T100000.000Z.json") {
		t.Errorf("saved as %s", p)
	}
	if _, err := os.Stat(filepath.Join(real, "j", "20250303T100000.000Z.json")); err != nil {
		t.Errorf("the report is not in the linked folder: %v", err)
	}
	if last, ok, err := h.Last("j"); err != nil || !ok || !last.Equal(t0) {
		t.Errorf("Last = %v %v %v", last, ok, err)
	}
}

// TestHistoryLockKeepsARegularFile: a regular lock file left by an earlier
// holder is reused, its pid replaced, as before.
func TestHistoryLockKeepsARegularFile(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, ".lock")
	if err := os.WriteFile(lock, []byte("99999999\nold"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHistory(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := h.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if b, _ := os.ReadFile(lock); string(b) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock holds %q, want this pid", b)
	}
}

// symlink makes a symbolic link at link to target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// mkdir makes the folder p and its parents.
func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestSchedulerRefusesLinkedJobFolder: a job folder that is a symbolic link
// stops Serve and Once at the start with exitcode.Config and its path
// logged, before any run: a run's report could not be recorded.
func TestSchedulerRefusesLinkedJobFolder(t *testing.T) {
	for _, mode := range []string{"serve", "once", "once --job"} {
		t.Run(mode, func(t *testing.T) {
			clk := clock.NewFake(t0, false)
			r := newFakeRun(clk)
			h := openHistory(t, 0, nil)
			link := filepath.Join(h.Dir(), "j")
			symlink(t, t.TempDir(), link)
			l := newLogs()
			s := &Scheduler{Triggers: []Trigger{{Job: "j", Cron: []string{"0 10 * * *"}, CatchUp: true}}, Run: r.run, Clock: clk, History: h, Log: l.add}
			var code int
			switch mode {
			case "serve":
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				code = s.Serve(ctx)
			case "once":
				code = s.Once(t.Context(), "")
			default:
				code = s.Once(t.Context(), "j")
			}
			if code != exitcode.Config || !strings.Contains(l.all(), link+" is a symbolic link") {
				t.Errorf("%s = %d, want 78 naming %s; log:\n%s", mode, code, link, l.all())
			}
			if calls := r.Calls(); len(calls) != 0 {
				t.Errorf("ran %v", calls)
			}
		})
	}
}

// TestRunReportRefusedByALinkMadeDuringTheRun: a job folder replaced by a
// link while the job runs: its report is not saved there, the log names
// the link once, and the run's code stands.
func TestRunReportRefusedByALinkMadeDuringTheRun(t *testing.T) {
	clk := clock.NewFake(t0, false)
	h := openHistory(t, 0, map[string][]time.Time{"j": {t0.Add(-time.Hour)}})
	out := t.TempDir()
	link := filepath.Join(h.Dir(), "j")
	l := newLogs()
	s := &Scheduler{
		Triggers: []Trigger{{Job: "j", Cron: []string{"0 10 * * *"}}}, Clock: clk, History: h, Log: l.add,
		Run: func(ctx context.Context, job string) (int, []byte) {
			if err := os.RemoveAll(link); err != nil {
				t.Error(err)
			}
			symlink(t, out, link)
			return exitcode.Policy, []byte("{}")
		},
	}
	if code := s.Once(t.Context(), "j"); code != exitcode.Policy {
		t.Errorf("Once = %d, want the run's 77; log:\n%s", code, l.all())
	}
	if n := strings.Count(l.all(), link+" is a symbolic link"); n != 1 {
		t.Errorf("the link is named %d times, want once; log:\n%s", n, l.all())
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the report was written where the link points: %v", entries)
	}
}
