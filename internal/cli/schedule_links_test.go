package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestScheduleHistoryLinks: a symbolic link where the history's lock or a
// job's folder should be is refused with exit 78 and the link's path, and
// the file it points at is left as it was, by the scheduler and by --once.
func TestScheduleHistoryLinks(t *testing.T) {
	const text = "not the scheduler's\n"
	tests := []struct {
		name string
		link string // inside the history folder
		args []string
	}{
		{name: "lock, scheduler", link: ".lock"},
		{name: "lock, --once", link: ".lock", args: []string{"--once"}},
		{name: "lock, --once --job", link: ".lock", args: []string{"--once", "--job", "j"}},
		{name: "job folder, --once --job", link: "j", args: []string{"--once", "--job", "j"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, hist, out := t.TempDir(), t.TempDir(), t.TempDir()
			writeJob(t, dir, "version: 1\njobs:\n  j:\n    cron: \"* * * * *\"\n    steps: [{id: a, exec: {command: [sh, -c, \"echo ran\"]}}]\n")
			victim := filepath.Join(out, "victim")
			if tt.link == "j" {
				victim = filepath.Join(out, "20200101T000000.000Z.json") // rotation would remove it
			}
			if err := os.WriteFile(victim, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			target := victim
			if tt.link == "j" {
				target = out
			}
			link := filepath.Join(hist, tt.link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			r := jobRun(t, newProc(t), dir, append([]string{"schedule", "--history", hist, "--keep", "1"}, tt.args...)...)
			if b, err := os.ReadFile(victim); err != nil || string(b) != text {
				t.Errorf("%s was written through the link: %q %v", victim, b, err)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 1 {
				t.Errorf("written where the link points: %v", entries)
			}
			if strings.Contains(r.stdout, "ran") {
				t.Errorf("the job ran on a history that cannot record it:\n%s", r.stdout)
			}
			if r.code != exitcode.Config || !strings.Contains(r.stderr, link+" is a symbolic link") {
				t.Errorf("exit %d, want 78 naming %s\n%s", r.code, link, r.stderr)
			}
		})
	}
}
