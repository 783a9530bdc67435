package ghapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// TestAnswersAreBoundedWhileRead: an answer of any size, a 200 page or an
// error's body, costs at most MaxResponse of reading: a page too large is a
// structural http-body-too-large failure, an error keeps its status.
func TestAnswersAreBoundedWhileRead(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusInternalServerError, http.StatusForbidden} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var sent int64
			c, _, _ := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				// an endless JSON string: the client must stop reading
				io.WriteString(w, `{"message": "`)
				chunk := strings.Repeat("a", 64<<10)
				for sent < 4*MaxResponse && r.Context().Err() == nil {
					n, err := io.WriteString(w, chunk)
					sent += int64(n)
					if err != nil {
						return
					}
				}
			})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := c.Quota(context.Background())
			runtime.ReadMemStats(&after)
			var f *failure.Failure
			switch {
			case !errors.As(err, &f):
				t.Fatalf("err = %v, want a failure", err)
			case status == http.StatusOK && (f.Code != failure.CodeBodyTooLarge || f.Class != failure.Structural):
				t.Errorf("a 200 too large: %v, want a structural %s failure", err, failure.CodeBodyTooLarge)
			case status >= 400 && f.Trace.Status != status:
				// an error's status is the answer; its message is cut at the bound
				t.Errorf("a %d with a body too large: %v (status %d), want the status read", status, err, f.Trace.Status)
			}
			if sent >= 4*MaxResponse {
				t.Errorf("the server wrote all %d bytes: the client read past its bound", sent)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxResponse {
				t.Errorf("reading the answer allocated %d MiB, want at most %d MiB", alloc>>20, 8*MaxResponse>>20)
			}
		})
	}
	t.Run("an answer of exactly the bound is read", func(t *testing.T) {
		b := &boundedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 10))), left: 10}
		got, err := io.ReadAll(b)
		if err != nil || len(got) != 10 {
			t.Errorf("read %d bytes, err %v; want 10 and no error", len(got), err)
		}
		b = &boundedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 11))), left: 10}
		if _, err := io.ReadAll(b); err == nil {
			t.Error("11 bytes over a bound of 10 read without an error")
		}
	})
}
