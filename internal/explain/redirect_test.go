package explain

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/ghapi/ghapitest"
	"github.com/retrywise/retrywise/internal/httpstep"
)

// redirectAPI is a GitHub API at http://127.0.0.1:P for run 42 of o/r, one
// failed job (7, transient) whose log is at blob's /blob/7.txt. The request
// to from (at the API's origin) answers status with a Location on target +
// "/moved" + from; "/moved/..." is served as "..." at every origin.
type redirectAPI struct {
	api, other *ghapitest.Server
	apiOrigin  string

	mu      sync.Mutex
	from    string
	status  int
	target  string
	logLoc  string // the logs endpoint's Location; "" means the blob
	blobLoc string // the blob's own redirect; "" means it serves the log
	reruns  int
}

func newRedirectAPI(t *testing.T) *redirectAPI {
	a := &redirectAPI{}
	a.api = ghapitest.NewServer(t, http.HandlerFunc(a.serve))
	a.other = ghapitest.NewServer(t, http.HandlerFunc(a.serve))
	a.apiOrigin = a.api.URL("http", "127.0.0.1")
	return a
}

func (a *redirectAPI) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	from, status, target, logLoc, blobLoc := a.from, a.status, a.target, a.logLoc, a.blobLoc
	a.mu.Unlock()
	p := r.URL.Path
	if p == from && ghapitest.Origin(r) == a.apiOrigin {
		w.Header().Set("Location", target+"/moved"+r.URL.RequestURI())
		w.WriteHeader(status)
		return
	}
	p = strings.TrimPrefix(p, "/moved")
	job := jobOf(7, "publish", transientOut...)
	switch {
	case p == "/repos/o/r/actions/runs/42":
		writeJSON(w, 200, map[string]any{"id": 42, "name": "publish", "status": "completed", "conclusion": "failure", "run_attempt": 1})
	case p == "/repos/o/r/actions/runs/42/jobs":
		var steps []any
		for i, s := range job.steps {
			steps = append(steps, map[string]any{"name": s.name, "status": "completed", "conclusion": s.conclusion, "number": i + 1, "started_at": ts(s.start), "completed_at": ts(s.end)})
		}
		writeJSON(w, 200, map[string]any{"total_count": 1, "jobs": []any{map[string]any{"id": 7, "run_id": 42, "name": "publish", "status": "completed", "conclusion": "failure", "steps": steps}}})
	case p == "/repos/o/r/actions/jobs/7/logs":
		if logLoc == "" {
			logLoc = a.other.URL("http", "127.0.0.1") + "/blob/7.txt?sig=abc"
		}
		w.Header().Set("Location", logLoc)
		w.WriteHeader(http.StatusFound)
	case p == "/blob/7.txt":
		if blobLoc != "" {
			w.Header().Set("Location", blobLoc)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		writeLog(w, job.steps)
	case p == "/repos/o/r/actions/runs/42/rerun-failed-jobs":
		a.mu.Lock()
		a.reruns++
		a.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{})
	default:
		http.NotFound(w, r)
	}
}

func (a *redirectAPI) explain(t *testing.T, logClient *http.Client) *Result {
	t.Helper()
	clk := clock.NewFake(t0.Add(time.Hour), true)
	tr := ghapitest.Transport(t)
	api, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(tr, true), BaseURL: a.apiOrigin + "/", Token: testToken, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if logClient == nil {
		logClient = httpstep.NewClient(tr, true)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Explain(ctx, Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}, Options{API: api, LogClient: logClient, Clock: clk, Rerun: true, MaxReruns: 2})
}

// Every request of explain (the run, its jobs, the log's location, the
// re-run), redirected with each status to another port, another host or
// another scheme, reaches the target without the token; the log is
// downloaded without it too. Redirected to the same origin, the API's
// requests keep it, and the run is still explained and re-run.
func TestExplainRedirectsKeepTheTokenHome(t *testing.T) {
	a := newRedirectAPI(t)
	for _, ep := range []struct{ name, path string }{
		{"run", "/repos/o/r/actions/runs/42"},
		{"jobs", "/repos/o/r/actions/runs/42/jobs"},
		{"logs", "/repos/o/r/actions/jobs/7/logs"},
		{"rerun", "/repos/o/r/actions/runs/42/rerun-failed-jobs"},
	} {
		for _, rc := range ghapitest.Matrix(a.api, a.other) {
			t.Run(ep.name+"/"+rc.Name, func(t *testing.T) {
				a.mu.Lock()
				a.from, a.status, a.target, a.reruns = ep.path, rc.Status, rc.Target, 0
				a.mu.Unlock()
				a.api.Reset()
				a.other.Reset()
				res := a.explain(t, nil)
				if len(res.Report.Steps) != 1 || res.Report.Steps[0].Code != "connection-reset" || !res.Rerun || a.reruns != 1 {
					t.Errorf("explained %q (rows %d), re-run %v (%d); want the transient step re-run", res.Headline, len(res.Report.Steps), res.Rerun, a.reruns)
				}
				ghapitest.CheckToken(t, testToken, a.apiOrigin, a.api, a.other)
				var moved *ghapitest.Hit
				for _, h := range append(a.api.Hits(), a.other.Hits()...) {
					if strings.HasPrefix(h.Path, "/moved/") {
						moved = &h
					}
				}
				if moved == nil {
					t.Fatal("the redirect was not followed")
				}
				keeps := rc.SameOrigin && (ep.name != "logs" || rc.Status == http.StatusMovedPermanently || rc.Status == http.StatusPermanentRedirect)
				if keeps && moved.Authorization != "Bearer "+testToken {
					t.Errorf("same origin: %s with Authorization %q, want the token", moved.Path, moved.Authorization)
				}
				if !keeps && moved.Authorization != "" {
					t.Errorf("%s%s got Authorization %q", moved.Origin, moved.Path, moved.Authorization)
				}
			})
		}
	}
}

// A log Location, or a redirect of the log's download, to a scheme other
// than http or https is http-redirect-unsupported-scheme (it was
// tls-negotiation), with the cli's log client and with the default one.
func TestExplainLogRedirectUnsupportedScheme(t *testing.T) {
	a := newRedirectAPI(t)
	for _, loc := range []string{"file:///etc/passwd", "FILE:///etc/passwd", "ftp://127.0.0.1/log.txt", "data:text/plain,hello", "gopher://127.0.0.1/1"} {
		for _, where := range []string{"logs endpoint", "log download"} {
			for _, client := range []string{"cli", "default"} {
				t.Run(fmt.Sprintf("%s/%s/%s", loc, where, client), func(t *testing.T) {
					a.mu.Lock()
					a.from, a.logLoc, a.blobLoc = "", "", ""
					if where == "logs endpoint" {
						a.logLoc = loc
					} else {
						a.blobLoc = loc
					}
					a.mu.Unlock()
					clk := clock.NewFake(t0.Add(time.Hour), true)
					api, err := ghapi.New(ghapi.Options{HTTPClient: httpstep.NewClient(ghapitest.Transport(t), true), BaseURL: a.apiOrigin + "/", Token: testToken, Clock: clk})
					if err != nil {
						t.Fatal(err)
					}
					o := Options{API: api, Clock: clk} // LogClient nil: the default
					if client == "cli" {
						o.LogClient = httpstep.NewClient(ghapitest.Transport(t), true)
					}
					res := Explain(context.Background(), Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}, o)
					if len(res.Report.Steps) != 1 {
						t.Fatalf("rows %d: %s", len(res.Report.Steps), res.Headline)
					}
					row := res.Report.Steps[0]
					if row.Code != "http-redirect-unsupported-scheme" || row.Class != failure.Structural {
						t.Errorf("row %s %s (%s), want structural http-redirect-unsupported-scheme", row.Class, row.Code, row.Reason)
					}
				})
			}
		}
	}
}
