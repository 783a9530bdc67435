package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/hindsight"
)

// TestHistoryBook: the hindsight book lives beside a job's reports, is
// never taken for a report, round-trips through a Memory, and a symbolic
// link in its place is refused without writing where it points.
func TestHistoryBook(t *testing.T) {
	dir := t.TempDir()
	h, err := OpenHistory(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if data, err := h.ReadBook("j"); err != nil || data != nil {
		t.Fatalf("absent book: %q, %v", data, err)
	}
	m := hindsight.Open(h, "j", hindsight.Rule{After: 3})
	fp := failure.Fingerprint{Class: failure.Transient, Kind: failure.KindNetwork, Target: "a.example"}
	m.Failed("s", fp, failure.CodeTimeout, time.Unix(1e9, 0))
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := h.Save("j", time.Unix(1e9+int64(i), 0), []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	if paths, _ := h.Reports("j"); len(paths) != 2 {
		t.Errorf("reports = %v (the book is not one, and is never rotated)", paths)
	}
	if again := hindsight.Open(h, "j", hindsight.Rule{After: 3}); len(again.Records("s")) != 1 || again.Warning != "" {
		t.Fatalf("reopened: %+v %q", again.Records("s"), again.Warning)
	}

	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(dir, "j", "hindsight.json")
	os.Remove(book)
	if err := os.Symlink(outside, book); err != nil {
		t.Fatal(err)
	}
	var ee *EntryError
	if _, err := h.ReadBook("j"); !errors.As(err, &ee) {
		t.Errorf("ReadBook through a link: %v", err)
	}
	if err := h.WriteBook("j", []byte("{}")); !errors.As(err, &ee) {
		t.Errorf("WriteBook through a link: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}
