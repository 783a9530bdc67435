package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// BenchmarkHTTPCommand measures a whole `retrywise http URL` run in-process
// (flags, redactor, a fresh transport and connection, the step, the report)
// against a plain http.Client.Do of the same request on a fresh transport, so
// both pay for a new connection.
func BenchmarkHTTPCommand(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"id":42}`) }))
	defer srv.Close()
	b.Run("plain-client-new-conn", func(b *testing.B) {
		for b.Loop() {
			t := http.DefaultTransport.(*http.Transport).Clone()
			resp, err := (&http.Client{Transport: t}).Get(srv.URL + "/x")
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			t.CloseIdleConnections()
		}
	})
	b.Run("retrywise-http", func(b *testing.B) {
		c := &Command{Stdout: io.Discard, Stderr: io.Discard, Env: os.Environ(), Clock: clock.NewFake(time.Now(), true), Rand: noJitter}
		args := []string{"retrywise", "http", "--field", "id=.id", srv.URL + "/x"}
		for b.Loop() {
			if code := c.Main(context.Background(), args); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
	})
}
