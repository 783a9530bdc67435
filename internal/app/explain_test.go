package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/explain"
)

// TestExplainWithoutTokenSendsNothing: with no token given and neither
// $GITHUB_TOKEN nor $GH_TOKEN set, explain exits 78 before any request,
// naming the variables it read.
func TestExplainWithoutTokenSendsNothing(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	for _, env := range [][]string{
		{"GITHUB_API_URL=" + srv.URL + "/"},
		{"GITHUB_API_URL=" + srv.URL + "/", "GITHUB_TOKEN=", "GH_TOKEN="},
	} {
		a := testApp(env)
		res, code, err := a.Explain(context.Background(), ExplainOptions{Target: explain.Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}})
		if code != exitcode.Config || err == nil || res != nil {
			t.Fatalf("%q: code %d, err %v, res %v: want 78 and an error", env, code, err, res)
		}
		for _, want := range []string{"no token", "GITHUB_TOKEN", "GH_TOKEN"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: %q does not say %q", env, err, want)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent without a token, want none", n)
	}
}
