package docgen

import (
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
