package gitpush

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewRejectsAnUnusableDir: a --dir git cannot run in is a setting at
// fault, named with its path, before any git starts.
func TestNewRejectsAnUnusableDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	locked := filepath.Join(tmp, "locked")
	os.Mkdir(locked, 0o000)
	tests := []struct {
		name, dir, want string
		anyUser         bool // false: only a user that permissions bind sees it; root enters, so New accepts it
	}{
		{"missing", filepath.Join(tmp, "nonexistent"), "cannot push from " + filepath.Join(tmp, "nonexistent") + ": no such directory", true},
		{"under a file", filepath.Join(file, "sub"), "cannot push from " + filepath.Join(file, "sub") + ": not a directory", true},
		{"a file", file, "cannot push from " + file + ": not a directory", true},
		{"unreadable", locked, "cannot push from " + locked + ": permission denied", false},
		{"current", "", "", true},
		{"existing", tmp, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if !tt.anyUser && os.Geteuid() == 0 {
				want = "" // root enters any directory: git can run there
			}
			_, err := New(Options{Dir: tt.dir, Args: []string{"origin", "main"}})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("New(Dir: %q) = %q, want %q", tt.dir, got, want)
			}
			if strings.Contains(got, "fork/exec") {
				t.Errorf("blames git: %q", got)
			}
		})
	}
}
