package docgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	text := "# Page\n\n" + Begin("a") + "\nold\n<!-- end generated -->\n\nafter\n"
	got, err := Replace(text, map[string]string{"a": "| x |\n|---|\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Page\n\n" + Begin("a") + "\n\n| x |\n|---|\n\n<!-- end generated -->\n\nafter\n"
	if got != want {
		t.Errorf("Replace =\n%q\nwant\n%q", got, want)
	}
	if again, _ := Replace(got, map[string]string{"a": "| x |\n|---|\n"}); again != got {
		t.Errorf("Replace is not idempotent:\n%q", again)
	}
	for name, bad := range map[string]string{
		"missing": "# Page\n",
		"twice":   Begin("a") + "\n<!-- end generated -->\n" + Begin("a") + "\n<!-- end generated -->\n",
		"no end":  Begin("a") + "\nold\n",
	} {
		if _, err := Replace(bad, map[string]string{"a": "new"}); err == nil {
			t.Errorf("%s: Replace succeeds", name)
		}
	}
}

func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte(Begin("a")+"\nold\n<!-- end generated -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := Sync(path, map[string]string{"a": "new"}, false)
	if err != nil || len(stale) != 1 {
		t.Fatalf("Sync = %v, %v; want [a]", stale, err)
	}
	if stale, err = Sync(path, map[string]string{"a": "new"}, true); err != nil || len(stale) != 1 {
		t.Fatalf("Sync with update = %v, %v; want [a]", stale, err)
	}
	if stale, err = Sync(path, map[string]string{"a": "new"}, false); err != nil || len(stale) != 0 {
		t.Fatalf("Sync after update = %v, %v; want none", stale, err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "\nnew\n") {
		t.Errorf("the file holds %q", b)
	}
}
