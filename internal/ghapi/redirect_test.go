package ghapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/ghapi/ghapitest"
	"github.com/retrywise/retrywise/internal/httpstep"
)

const redirectToken = "ghs_R3d1rectT0kenAbCdEfGhIjKlMnOpQrSt"

// redirectWorld is an API at http://127.0.0.1:P whose from path answers a
// redirect (the case's) to the case's target + to; every origin serves to
// with body. api and other record what arrived where.
type redirectWorld struct {
	api, other *ghapitest.Server
	apiOrigin  string
	status     int
	target     string
}

func newRedirectWorld(t *testing.T, from, to string, serve func(w http.ResponseWriter, r *http.Request)) *redirectWorld {
	w := &redirectWorld{}
	h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == from && ghapitest.Origin(r) == w.apiOrigin {
			rw.Header().Set("Location", w.target+to)
			rw.WriteHeader(w.status)
			return
		}
		serve(rw, r)
	})
	w.api = ghapitest.NewServer(t, h)
	w.other = ghapitest.NewServer(t, h)
	w.apiOrigin = w.api.URL("http", "127.0.0.1")
	return w
}

// reset starts a case: its redirect, no requests yet.
func (w *redirectWorld) reset(rc ghapitest.Redirect) {
	w.status, w.target = rc.Status, rc.Target
	w.api.Reset()
	w.other.Reset()
}

func (w *redirectWorld) client(t *testing.T) *Client {
	t.Helper()
	c, err := New(Options{HTTPClient: httpstep.NewClient(ghapitest.Transport(t), true), BaseURL: w.apiOrigin + "/api/v3", Token: redirectToken, UserAgent: "retrywise/test", Clock: clock.NewFake(t0, false)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The token goes to the API's origin only: github-quota's read of
// /rate_limit, redirected with each status to another port, another host,
// another scheme, reaches the target without it; to the same origin, with it.
func TestQuotaRedirectKeepsTheTokenHome(t *testing.T) {
	w := newRedirectWorld(t, "/api/v3/rate_limit", "/moved/rate_limit", func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/moved/rate_limit" {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, rateLimitJSON)
	})
	for _, rc := range ghapitest.Matrix(w.api, w.other) {
		t.Run(rc.Name, func(t *testing.T) {
			w.reset(rc)
			q, err := w.client(t).Quota(context.Background())
			if err != nil {
				t.Fatalf("Quota: %v", err)
			}
			if q[Core].Limit != 5000 {
				t.Errorf("core = %+v, want the moved answer", q[Core])
			}
			hits := append(w.api.Hits(), w.other.Hits()...)
			if len(hits) != 2 {
				t.Errorf("%d requests, want 2 (the redirect and its target)", len(hits))
			}
			elsewhere := ghapitest.CheckToken(t, redirectToken, w.apiOrigin, w.api, w.other)
			last := w.api.Hits()[len(w.api.Hits())-1]
			if !rc.SameOrigin {
				if len(elsewhere) == 0 || elsewhere[len(elsewhere)-1].Path != "/moved/rate_limit" {
					t.Errorf("the redirect's target was not reached elsewhere: %+v", elsewhere)
				}
			} else if last.Path != "/moved/rate_limit" || last.Authorization != "Bearer "+redirectToken {
				t.Errorf("same origin: %s with Authorization %q, want the token", last.Path, last.Authorization)
			}
		})
	}
}

// From an API at https, a downgrade to http on the same host and port, and
// another host on https, are other origins for the token too.
func TestQuotaRedirectFromHTTPS(t *testing.T) {
	w := newRedirectWorld(t, "/api/v3/rate_limit", "/moved/rate_limit", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, rateLimitJSON)
	})
	w.apiOrigin = w.api.URL("https", "127.0.0.1")
	for _, st := range ghapitest.Statuses {
		for _, target := range []string{w.api.URL("http", "127.0.0.1"), w.api.URL("https", "localhost"), w.other.URL("https", "127.0.0.1")} {
			t.Run(fmt.Sprintf("%d to %s", st, target), func(t *testing.T) {
				w.reset(ghapitest.Redirect{Status: st, Target: target})
				if _, err := w.client(t).Quota(context.Background()); err != nil {
					t.Fatal(err)
				}
				if elsewhere := ghapitest.CheckToken(t, redirectToken, w.apiOrigin, w.api, w.other); len(elsewhere) != 1 {
					t.Errorf("%d requests elsewhere, want 1", len(elsewhere))
				}
				if h := w.api.Hits(); len(h) == 0 || h[0].Origin != w.apiOrigin || h[0].Authorization != "Bearer "+redirectToken {
					t.Errorf("the API's request: %+v", h)
				}
			})
		}
	}
}

// go-github follows a 301 of the logs endpoints itself (maxRedirects), past
// the client's CheckRedirect: even then the token stays home.
func TestGoGitHubOwnRedirectKeepsTheTokenHome(t *testing.T) {
	w := newRedirectWorld(t, "/api/v3/repos/o/r/actions/jobs/7/logs", "/elsewhere/logs", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Location", "https://blob.example/log.txt")
		rw.WriteHeader(http.StatusFound)
	})
	for _, rc := range ghapitest.Matrix(w.api, w.other) {
		if rc.Status != http.StatusMovedPermanently {
			continue
		}
		t.Run(rc.Name, func(t *testing.T) {
			w.reset(rc)
			u, _, err := w.client(t).GitHub().Actions.GetWorkflowJobLogs(context.Background(), "o", "r", 7, 3)
			if err != nil {
				t.Fatal(err)
			}
			if u.String() != "https://blob.example/log.txt" {
				t.Errorf("log URL %s", u)
			}
			ghapitest.CheckToken(t, redirectToken, w.apiOrigin, w.api, w.other)
		})
	}
}

// JobLogURL follows a moved (301, 308) logs endpoint on the API's origin
// with the token, and returns any other redirect's Location, resolved,
// without sending anything there.
func TestJobLogURL(t *testing.T) {
	w := newRedirectWorld(t, "/api/v3/repos/o/r/actions/jobs/7/logs", "/api/v3/repositories/99/actions/jobs/7/logs", func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v3/repositories/99/actions/jobs/7/logs" {
			rw.Header().Set("Location", "/blob/7.txt?sig=1")
			rw.WriteHeader(http.StatusFound)
			return
		}
		http.NotFound(rw, r)
	})
	for _, rc := range ghapitest.Matrix(w.api, w.other) {
		t.Run(rc.Name, func(t *testing.T) {
			w.reset(rc)
			u, _, err := w.client(t).JobLogURL(context.Background(), "o", "r", 7)
			if err != nil {
				t.Fatal(err)
			}
			want := rc.Target + "/api/v3/repositories/99/actions/jobs/7/logs"
			sent := 1
			if rc.SameOrigin && (rc.Status == http.StatusMovedPermanently || rc.Status == http.StatusPermanentRedirect) {
				want, sent = w.apiOrigin+"/blob/7.txt?sig=1", 2
			}
			if u.String() != want {
				t.Errorf("log URL %s, want %s", u, want)
			}
			if n := len(w.api.Hits()) + len(w.other.Hits()); n != sent {
				t.Errorf("%d requests, want %d", n, sent)
			}
			if elsewhere := ghapitest.CheckToken(t, redirectToken, w.apiOrigin, w.api, w.other); len(elsewhere) != 0 {
				t.Errorf("requests elsewhere: %+v", elsewhere)
			}
			for _, h := range w.api.Hits() {
				if h.Authorization != "Bearer "+redirectToken {
					t.Errorf("%s on the API's origin without the token", h.Path)
				}
			}
		})
	}
}

// A redirect to a scheme other than http or https is
// http-redirect-unsupported-scheme, never sent, for the API client.
func TestRedirectUnsupportedScheme(t *testing.T) {
	for _, loc := range []string{"file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hello", "gopher://127.0.0.1/1", "FILE:///etc/passwd"} {
		for _, st := range ghapitest.Statuses {
			t.Run(loc+" "+http.StatusText(st), func(t *testing.T) {
				w := newRedirectWorld(t, "/api/v3/rate_limit", "", func(rw http.ResponseWriter, r *http.Request) { http.NotFound(rw, r) })
				w.status, w.target = st, loc
				_, err := w.client(t).Quota(context.Background())
				var f *failure.Failure
				if !errors.As(err, &f) || f.Code != failure.CodeRedirectScheme || f.Class != failure.Structural {
					t.Fatalf("Quota error %v, want %s", err, failure.CodeRedirectScheme)
				}
				if strings.Contains(f.Error(), redirectToken) {
					t.Errorf("the failure shows the token: %v", f)
				}
			})
		}
	}
}

// New keeps the caller's client as it was: the token is added by a copy.
func TestNewDoesNotChangeTheCallersClient(t *testing.T) {
	hc := httpstep.NewClient(ghapitest.Transport(t), true)
	tr := hc.Transport
	if _, err := New(Options{HTTPClient: hc, BaseURL: "http://127.0.0.1:1/", Token: redirectToken}); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != tr {
		t.Error("New replaced the caller's transport")
	}
}

// SameAPIOrigin is the token's rule: scheme, host and port, the default
// ports written or not, the host's case aside.
func TestSameAPIOrigin(t *testing.T) {
	for _, tc := range []struct {
		base, u string
		want    bool
	}{
		{"https://api.github.com/", "https://api.github.com/repos", true},
		{"https://api.github.com/", "https://API.GitHub.com:443/x", true},
		{"https://api.github.com:443/", "https://api.github.com/x", true},
		{"http://ghe.local/api/v3/", "http://ghe.local:80/x", true},
		{"https://api.github.com/", "http://api.github.com/x", false},
		{"http://ghe.local/api/v3/", "https://ghe.local/x", false},
		{"https://api.github.com/", "https://api.github.com:8443/x", false},
		{"https://api.github.com/", "https://uploads.github.com/x", false},
		{"https://api.github.com/", "https://evil.api.github.com/x", false},
		{"https://api.github.com/", "https://api.github.com.evil/x", false},
		{"http://127.0.0.1:8080/", "http://localhost:8080/x", false},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/x", false},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true},
	} {
		b, u := mustURL(t, tc.base), mustURL(t, tc.u)
		if got := originOf(u) == originOf(b); got != tc.want {
			t.Errorf("%s → %s: same origin %v, want %v", tc.base, tc.u, got, tc.want)
		}
	}
}

// No code of retrywise calls the go-github methods that follow a redirect
// themselves (past the client's CheckRedirect): redirects are retrywise's
// to decide. JobLogURL replaces GetWorkflowJobLogs.
func TestNoSelfRedirectingGoGitHubCalls(t *testing.T) {
	banned := regexp.MustCompile(`\.(GetWorkflowJobLogs|GetWorkflowRunLogs|GetWorkflowRunAttemptLogs|DownloadArtifact|GetArchiveLink|DownloadContents|DownloadContentsWithMeta)\(`)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := banned.Find(b); m != nil {
			t.Errorf("%s calls %s: use ghapi (JobLogURL) so that retrywise decides the redirects", p, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
