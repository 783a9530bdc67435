package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/step"
)

// zeros is a reader that never ends: stdin that is /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestDataFileIsBoundedWhileRead: a request body is held in memory to be
// sent on each attempt, so --data-file FILE and --data-file - (stdin) are
// read to at most step.MaxRequestBody: past it, exit 78 before anything is
// sent, having read no more than the bound (an endless stdin included).
func TestDataFileIsBoundedWhileRead(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(step.MaxRequestBody + 1) // sparse: no disk, all zeros
	f.Close()
	for _, tt := range []struct {
		name  string
		stdin io.Reader
		arg   string
	}{{"file", nil, big}, {"stdin", zeros{}, "-"}} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			c := &Command{Stdout: &out, Stderr: &errb, Clock: clock.NewFake(time.Now(), true), Version: "test", Rand: noJitter}
			c.Stdin = tt.stdin
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			code := c.Main(context.Background(), []string{"retrywise", "http", "--method", "POST", "--data-file", tt.arg, srv.URL})
			runtime.ReadMemStats(&after)
			if code != exitcode.Config || !strings.Contains(errb.String(), "more than 64 MiB") {
				t.Errorf("exit %d, want 78 naming the bound:\n%s", code, errb.String())
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*step.MaxRequestBody {
				t.Errorf("allocated %d MiB reading a body over %d MiB", alloc>>20, step.MaxRequestBody>>20)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
