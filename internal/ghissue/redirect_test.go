package ghissue

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/ghapi/ghapitest"
	"github.com/retrywise/retrywise/internal/httpstep"
)

// The failure issue's requests (the list, the create), redirected with
// each status to another port, another host or another scheme, reach the
// target without the token; to the same origin, with it, and the issue is
// still opened.
func TestFailedRedirectsKeepTheTokenHome(t *testing.T) {
	const issues = "/api/v3/repos/octo-org/nightly/issues"
	var (
		mu                     sync.Mutex
		method, status, target = "", 0, ""
		apiOrigin              string
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		m, st, tg := method, status, target
		mu.Unlock()
		if r.URL.Path == issues && r.Method == m && ghapitest.Origin(r) == apiOrigin {
			w.Header().Set("Location", tg+"/moved"+r.URL.RequestURI())
			w.WriteHeader(st)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch p := strings.TrimPrefix(r.URL.Path, "/moved"); {
		case p == issues && r.Method == http.MethodGet:
			io.WriteString(w, "[]")
		case p == issues && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"number": 7, "state": "open", "html_url": "https://github.com/octo-org/nightly/issues/7"})
		default:
			http.NotFound(w, r)
		}
	})
	api, other := ghapitest.NewServer(t, h), ghapitest.NewServer(t, h)
	apiOrigin = api.URL("http", "127.0.0.1")
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		for _, rc := range ghapitest.Matrix(api, other) {
			t.Run(m+" "+rc.Name, func(t *testing.T) {
				mu.Lock()
				method, status, target = m, rc.Status, rc.Target
				mu.Unlock()
				api.Reset()
				other.Reset()
				c, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(ghapitest.Transport(t), true), BaseURL: apiOrigin + "/api/v3", Token: testToken, UserAgent: "retrywise/test"})
				if err != nil {
					t.Fatal(err)
				}
				o, err := New(c.GitHub(), testRun).Failed(context.Background(), report)
				// A 301 or 302 turns the POST into a GET, which lists instead of creating.
				if m == http.MethodGet || rc.Status == http.StatusTemporaryRedirect || rc.Status == http.StatusPermanentRedirect {
					if err != nil || o.Action != Opened || o.Number != 7 {
						t.Errorf("Failed = %+v, %v; want issue #7 opened", o, err)
					}
				}
				ghapitest.CheckToken(t, testToken, apiOrigin, api, other)
				for _, hit := range append(api.Hits(), other.Hits()...) {
					if !strings.HasPrefix(hit.Path, "/moved/") {
						continue
					}
					if rc.SameOrigin && hit.Authorization != "Bearer "+testToken {
						t.Errorf("same origin: %s with Authorization %q, want the token", hit.Path, hit.Authorization)
					}
					if err != nil && strings.Contains(err.Error(), testToken) {
						t.Errorf("the error shows the token: %v", err)
					}
					return
				}
				t.Error("the redirect was not followed")
			})
		}
	}
}
