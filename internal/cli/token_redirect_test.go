package cli

import (
	"net/http"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/ghapi/ghapitest"
)

// github-quota as the command line wires it: /rate_limit redirected with
// each status to another port, another host or another scheme is read
// there without the token; to the same origin, with it.
func TestGitHubQuotaRedirectKeepsTheTokenHome(t *testing.T) {
	const tok = "ghs_quotaRedirectToken0123456789abcdef"
	var (
		mu             sync.Mutex
		status, target = 0, ""
		apiOrigin      string
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		st, tg := status, target
		mu.Unlock()
		if r.URL.Path == "/rate_limit" && ghapitest.Origin(r) == apiOrigin {
			w.Header().Set("Location", tg+"/moved/rate_limit")
			w.WriteHeader(st)
			return
		}
		writeRateLimit(w, fullCore, fullSrch, fullGQL)
	})
	api, other := ghapitest.NewServer(t, h), ghapitest.NewServer(t, h)
	apiOrigin = api.URL("http", "127.0.0.1")
	for _, rc := range ghapitest.Matrix(api, other) {
		if rc.Target == api.URL("https", "127.0.0.1") {
			continue // the command line's transport does not trust the test certificate
		}
		t.Run(rc.Name, func(t *testing.T) {
			mu.Lock()
			status, target = rc.Status, rc.Target
			mu.Unlock()
			api.Reset()
			other.Reset()
			r := newProc(t, "GITHUB_API_URL="+apiOrigin, "GITHUB_TOKEN="+tok).run("github-quota")
			if r.code != exitcode.OK {
				t.Errorf("exit %d\n%s", r.code, r.stderr)
			}
			elsewhere := ghapitest.CheckToken(t, tok, apiOrigin, api, other)
			if !rc.SameOrigin && len(elsewhere) != 1 {
				t.Errorf("%d requests elsewhere, want 1", len(elsewhere))
			}
			if hits := api.Hits(); rc.SameOrigin && (len(hits) != 2 || hits[1].Authorization != "Bearer "+tok) {
				t.Errorf("same origin: %+v, want the moved request with the token", hits)
			}
		})
	}
}
