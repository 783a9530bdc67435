package schedule

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHistorySaveRotateLast(t *testing.T) {
	tests := []struct {
		name   string
		keep   int
		starts []time.Time // saved in this order
		want   []string    // the names left, oldest first
		last   time.Time
	}{
		{
			name:   "keep 3 of 5",
			keep:   3,
			starts: []time.Time{t0, t0.Add(time.Minute), t0.Add(2 * time.Minute), t0.Add(3 * time.Minute), t0.Add(4*time.Minute + 1500*time.Microsecond)},
			want:   []string{"20250303T100200.000Z.json", "20250303T100300.000Z.json", "20250303T100400.001Z.json"},
			last:   t0.Add(4*time.Minute + time.Millisecond),
		},
		{
			name:   "saved out of order: the oldest go",
			keep:   2,
			starts: []time.Time{t0.Add(2 * time.Hour), t0, t0.Add(time.Hour)},
			want:   []string{"20250303T110000.000Z.json", "20250303T120000.000Z.json"},
			last:   t0.Add(2 * time.Hour),
		},
		{
			name:   "a zone is written in UTC",
			keep:   0,
			starts: []time.Time{t0.In(time.FixedZone("X", 3*3600))},
			want:   []string{"20250303T100000.000Z.json"},
			last:   t0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state", "retrywise")
			h, err := OpenHistory(dir, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("folder %v %v, want 0700", fi.Mode(), err)
			}
			if _, ok, err := h.Last("publish"); ok || err != nil {
				t.Fatalf("Last before any save: %v %v", ok, err)
			}
			var paths []string
			for i, s := range tt.starts {
				p, err := h.Save("publish", s, []byte(`{"n":`+string(rune('0'+i))+`}`))
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			entries, err := os.ReadDir(filepath.Join(dir, "publish"))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name()) // temporary files included: none may be left
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("files %v, want %v", names, tt.want)
			}
			lastPath := paths[len(paths)-1]
			if b, err := os.ReadFile(lastPath); err != nil || string(b) != `{"n":`+string(rune('0'+len(paths)-1))+`}` {
				t.Errorf("%s: %q %v", lastPath, b, err)
			}
			if fi, err := os.Stat(lastPath); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("report mode %v %v, want 0600", fi.Mode(), err)
			}
			last, ok, err := h.Last("publish")
			if err != nil || !ok || !last.Equal(tt.last) {
				t.Errorf("Last = %v %v %v, want %v", last, ok, err, tt.last)
			}
			if _, ok, _ := h.Last("other"); ok {
				t.Error("Last of a job with no report")
			}
			reports, err := h.Reports("publish")
			if err != nil || len(reports) != len(tt.want) || filepath.Base(reports[len(reports)-1]) != tt.want[len(tt.want)-1] {
				t.Errorf("Reports = %v %v", reports, err)
			}
		})
	}
}

func TestHistoryJobNames(t *testing.T) {
	h, err := OpenHistory(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		job string
		ok  bool
	}{
		{"publish", true},
		{"nightly-sync_2", true},
		{"", false},
		{"..", false},
		{".lock", false},
		{"a/b", false},
		{"../escape", false},
	}
	for _, tt := range tests {
		_, err := h.Save(tt.job, t0, []byte("{}"))
		if (err == nil) != tt.ok {
			t.Errorf("Save(%q) = %v, want ok %v", tt.job, err, tt.ok)
		}
		if _, _, err := h.Last(tt.job); (err == nil) != tt.ok {
			t.Errorf("Last(%q) = %v, want ok %v", tt.job, err, tt.ok)
		}
	}
}

func TestHistoryLock(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenHistory(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := OpenHistory(dir, 0) // its own open of the lock file, as another process's
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := first.Lock()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		before func()
		locked bool
	}{
		{name: "held", locked: true},
		{name: "held, asked again", locked: true},
		{name: "released", before: func() { unlock(); unlock() }},
	}
	for _, tt := range tests {
		if tt.before != nil {
			tt.before()
		}
		un, err := second.Lock()
		var le *LockedError
		switch {
		case tt.locked && !errors.As(err, &le):
			t.Fatalf("%s: Lock = %v, want a *LockedError", tt.name, err)
		case tt.locked:
			if le.PID != os.Getpid() || le.Path != filepath.Join(dir, ".lock") {
				t.Errorf("%s: %+v, want pid %d at %s", tt.name, le, os.Getpid(), filepath.Join(dir, ".lock"))
			}
		case err != nil:
			t.Fatalf("%s: Lock = %v", tt.name, err)
		default:
			un()
		}
	}
}

func TestDefaultDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  error
	}{
		{name: "XDG_STATE_HOME", env: map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, want: "/x/state/retrywise"},
		{name: "HOME", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/state/retrywise"},
		{name: "relative XDG_STATE_HOME is ignored", env: map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, want: "/home/u/.local/state/retrywise"},
		{name: "empty XDG_STATE_HOME", env: map[string]string{"XDG_STATE_HOME": "", "HOME": "/home/u"}, want: "/home/u/.local/state/retrywise"},
		{name: "neither", env: map[string]string{}, err: ErrNoStateDir},
	}
	for _, tt := range tests {
		got, err := DefaultDir(tt.env)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%s: DefaultDir = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestHistoryFolderIsReadWithinItsBound: a job's folder that something
// else filled past the bound is refused while it is read, naming the bound;
// at the bound it is read.
func TestHistoryFolderIsReadWithinItsBound(t *testing.T) {
	defer func(n int) { folderEntries = n }(folderEntries)
	folderEntries = 3000
	dir := t.TempDir()
	h, err := OpenHistory(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Save("publish", t0, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < folderEntries; i++ {
		if err := os.WriteFile(filepath.Join(dir, "publish", fmt.Sprintf("junk-%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := h.Reports("publish"); err != nil || len(got) != 1 {
		t.Fatalf("at the bound: %v %v, want the one report", got, err)
	}
	os.WriteFile(filepath.Join(dir, "publish", "junk-over"), nil, 0o600)
	if _, err := h.Reports("publish"); err == nil || !strings.Contains(err.Error(), "more than 3000 entries") {
		t.Errorf("past the bound: %v, want an error naming it", err)
	}
}
