package branchrules

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/ghapi/ghapitest"
	"github.com/retrywise/retrywise/internal/httpstep"
)

// The read of a branch's rules, redirected with each status to another
// port, another host or another scheme, reaches the target without the
// token; to the same origin, with it; the rules are named either way.
func TestExplainRedirectsKeepTheTokenHome(t *testing.T) {
	const rules = "/api/v3/repos/octo-org/nightly/rules/branches/main"
	var (
		mu             sync.Mutex
		status, target = 0, ""
		apiOrigin      string
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		st, tg := status, target
		mu.Unlock()
		if r.URL.Path == rules && ghapitest.Origin(r) == apiOrigin {
			w.Header().Set("Location", tg+"/moved"+r.URL.RequestURI())
			w.WriteHeader(st)
			return
		}
		if strings.TrimPrefix(r.URL.Path, "/moved") != rules {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, documentedRules)
	})
	api, other := ghapitest.NewServer(t, h), ghapitest.NewServer(t, h)
	apiOrigin = api.URL("http", "127.0.0.1")
	for _, rc := range ghapitest.Matrix(api, other) {
		t.Run(rc.Name, func(t *testing.T) {
			mu.Lock()
			status, target = rc.Status, rc.Target
			mu.Unlock()
			api.Reset()
			other.Reset()
			c, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(ghapitest.Transport(t), true), BaseURL: apiOrigin + "/api/v3", Token: testToken, UserAgent: "retrywise/test"})
			if err != nil {
				t.Fatal(err)
			}
			text, err := Explain(context.Background(), c.GitHub(), "octo-org", "nightly", "main", false)
			if err != nil || !strings.Contains(text, "non_fast_forward") {
				t.Errorf("Explain = %q, %v; want the rules", text, err)
			}
			ghapitest.CheckToken(t, testToken, apiOrigin, api, other)
			hits := append(api.Hits(), other.Hits()...)
			last := hits[len(hits)-1]
			if !strings.HasPrefix(last.Path, "/moved/") {
				t.Fatalf("the redirect was not followed: %+v", hits)
			}
			if rc.SameOrigin && last.Authorization != "Bearer "+testToken {
				t.Errorf("same origin: %s with Authorization %q, want the token", last.Path, last.Authorization)
			}
		})
	}
}
