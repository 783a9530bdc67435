package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestScheduleHistoryMasked: a history file gets the final mask pass of
// run --report: an http body's access_token and password values, a
// registered secret used as a JSON object key, and its escaped forms.
func TestScheduleHistoryMasked(t *testing.T) {
	const keySecret = "KeyAsSecret-77x"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"at-history-1","password":"pw-history-2","`+keySecret+`":1,"refresh_token":"rt-history-3","note":"p\u00e4ss"}`)
	}))
	defer srv.Close()
	dir, hist := t.TempDir(), t.TempDir()
	writeJob(t, dir, fmt.Sprintf(`version: 1
jobs:
  j:
    env: {API_TOKEN: %q}
    steps:
      - id: get
        http: {url: %q}
`, keySecret, srv.URL))
	r := jobRun(t, newProc(t), dir, "schedule", "--once", "--job", "j", "--history", hist)
	paths := historyReports(t, hist, "j")
	if len(paths) != 1 {
		t.Fatalf("exit %d, %d reports\n%s", r.code, len(paths), r.stderr)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"at-history-1", "pw-history-2", "rt-history-3", keySecret} {
		if strings.Contains(string(b), s) || strings.Contains(r.stderr+r.stdout, s) {
			t.Errorf("%q in the history file or output:\n%s\n%s", s, b, r.stderr)
		}
	}
}
