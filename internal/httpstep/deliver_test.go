package httpstep

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// cutServer serves body, cut off after half of it on the first request.
func cutServer(t *testing.T, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		if hits.Add(1) == 1 {
			io.WriteString(w, body[:len(body)/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestDeliverCutOffBody: a body cut off mid-way is a transient failure; into
// --output it is retried into a fresh file, on stdout the part already written
// cannot be taken back, so it is not retried.
func TestDeliverCutOffBody(t *testing.T) {
	full := strings.Repeat("0123456789", 1000)

	srv, _ := cutServer(t, full)
	dir := t.TempDir()
	out := filepath.Join(dir, "body.txt")
	s, err := New(Options{URL: srv.URL, OutputFile: out})
	if err != nil {
		t.Fatal(err)
	}
	f := failure.FromError(s.Attempt(context.Background(), 1))
	if f == nil || f.Class != failure.Transient {
		t.Fatalf("--output, cut off: %v, want a transient failure", f)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("--output, cut off: left %v", entries)
	}
	if ok, why := s.CanRetry(f); !ok {
		t.Fatalf("--output, cut off: not retried: %s", why)
	}
	if err := s.Attempt(context.Background(), 2); err != nil {
		t.Fatalf("--output, retried: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != full {
		t.Errorf("--output holds %d bytes, want %d", len(b), len(full))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	srv, _ = cutServer(t, full)
	var stdout bytes.Buffer
	s, err = New(Options{URL: srv.URL, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	f = failure.FromError(s.Attempt(context.Background(), 1))
	if f == nil || f.Class != failure.Transient || stdout.Len() == 0 {
		t.Fatalf("stdout, cut off: %v after %d bytes, want a transient failure after some", f, stdout.Len())
	}
	if ok, why := s.CanRetry(f); ok || !strings.Contains(why, "already written to stdout") || !strings.Contains(s.RefusalRemedy(), "--output FILE") {
		t.Errorf("stdout, cut off: CanRetry = %v %q, remedy %q", ok, why, s.RefusalRemedy())
	}
}

// TestDeliverValue: Result.Value carries a JSON body of at most 64 KiB.
func TestDeliverValue(t *testing.T) {
	big := `"` + strings.Repeat("x", maxValueBody) + `"`
	tests := []struct {
		name, body, want string // want "" means no value
	}{
		{"json", `{"id":42}`, `{"id":42}`},
		{"not json", "plain text", ""},
		{"json over 64 KiB", big, ""},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tt.body) }))
		var stdout bytes.Buffer
		s, err := New(Options{URL: srv.URL, Stdout: &stdout})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Attempt(context.Background(), 1)
		srv.Close()
		res := s.Result()
		if err != nil || !res.Found || string(res.Value) != tt.want || stdout.String() != tt.body {
			t.Errorf("%s: %v, found %v, value %.40q, stdout %d bytes; want value %.40q and the whole body", tt.name, err, res.Found, res.Value, stdout.Len(), tt.want)
		}
	}
}

// TestDeliverMaxBody: a body over MaxBody fails the attempt as structural
// (http-body-too-large), whether its length is declared or not; stdout gets
// at most MaxBody bytes and --output is not written.
func TestDeliverMaxBody(t *testing.T) {
	const limit = 1000
	tests := []struct {
		name     string
		size     int
		declared bool
		wantFail bool
	}{
		{"under", limit - 1, false, false},
		{"at the bound", limit, false, false},
		{"one byte over", limit + 1, false, true},
		{"far over, chunked", 100 * limit, false, true},
		{"declared at the bound", limit, true, false},
		{"declared over", limit + 1, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.declared {
					w.Header().Set("Content-Length", fmt.Sprint(tt.size))
				}
				for left := tt.size; left > 0; left -= 100 {
					io.WriteString(w, strings.Repeat("x", min(left, 100)))
					w.(http.Flusher).Flush() // chunked unless declared
				}
			}))
			defer srv.Close()
			for _, toFile := range []bool{false, true} {
				var stdout bytes.Buffer
				dir := t.TempDir()
				out := ""
				if toFile {
					out = filepath.Join(dir, "body.out")
				}
				s, err := New(Options{URL: srv.URL, Stdout: &stdout, OutputFile: out, MaxBody: limit})
				if err != nil {
					t.Fatal(err)
				}
				var f *failure.Failure
				if err := s.Attempt(context.Background(), 1); err != nil {
					f = failure.FromError(err)
				}
				if tt.wantFail {
					if f == nil || f.Class != failure.Structural || f.Code != failure.CodeBodyTooLarge {
						t.Fatalf("file %v: %v, want http-body-too-large", toFile, f)
					}
					if f.Class.Decision() != failure.Stop {
						t.Errorf("a body too large is retried")
					}
				} else if f != nil {
					t.Fatalf("file %v: %v, want success", toFile, f)
				}
				if stdout.Len() > limit {
					t.Errorf("stdout got %d bytes, over the bound", stdout.Len())
				}
				if toFile {
					entries, _ := os.ReadDir(dir)
					if tt.wantFail != (len(entries) == 0) {
						t.Errorf("--output: %d files left", len(entries))
					}
					if b, err := os.ReadFile(out); !tt.wantFail && (err != nil || len(b) != tt.size) {
						t.Errorf("--output holds %d bytes, want %d", len(b), tt.size)
					}
				} else if !tt.wantFail && stdout.Len() != tt.size {
					t.Errorf("stdout got %d bytes, want %d", stdout.Len(), tt.size)
				}
			}
		})
	}
}
