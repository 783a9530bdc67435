package cli

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestHTTPRedirectDropsRegisteredSecretHeader: the http command's client
// drops, on a redirect to another host (here another port of 127.0.0.1),
// a header whose value is a registered secret (--mask) and the credential
// headers, and keeps them on the same host.
func TestHTTPRedirectDropsRegisteredSecretHeader(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	defer target.Close()
	from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/final", http.StatusFound)
	}))
	defer from.Close()
	r := runCLI(t, "", nil, "http", "--mask", "Reg1stered-V4lue", "-H", "X-Thing: Reg1stered-V4lue", "-H", "Api-Key: dev-to-key-1", "-H", "X-Team: platform", from.URL+"/start")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get("X-Thing") != "" || got.Get("Api-Key") != "" || got.Get("X-Team") != "platform" {
		t.Errorf("headers after the redirect: %v", got)
	}
}
