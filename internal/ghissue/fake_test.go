package ghissue

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/ghapi"
)

// testToken looks like a GITHUB_TOKEN (ghs_ and 36 characters); the fake
// checks it arrives as the Authorization header, and errors must not show it.
const testToken = "ghs_R3tryw1seT3stT0kenAbCdEfGhIjKlMnOp"

// sent is one request the fake received.
type sent struct {
	Method, Path string
	Query        url.Values
	Body         map[string]any
}

// fakeIssue is an issue in the fake's list, in GitHub's JSON shape.
type fakeIssue struct {
	Number int
	Body   string
	PR     bool // a pull request: the list carries "pull_request"
}

// fakeGitHub speaks the documented REST JSON of the issue endpoints used:
// GET /repos/{o}/{r}/issues (paginated with a Link header),
// POST /repos/{o}/{r}/issues, POST /repos/{o}/{r}/issues/{n}/comments and
// PATCH /repos/{o}/{r}/issues/{n}.
type fakeGitHub struct {
	t     *testing.T
	srv   *httptest.Server
	pages [][]fakeIssue // the open issues labelled retrywise, page by page

	mu   sync.Mutex
	reqs []sent
	// fail answers a request whose "METHOD path" is a key with that status and JSON body.
	fail map[string]fakeAnswer
	// dropLabels makes POST /issues answer without the labels asked for.
	dropLabels bool
	// next, when set, is the page the list's next link names after page n
	// (0: none), and page n (when past f.pages) holds onPage(n); at most
	// fuse pages carry a next link, so a walk without bounds ends, late.
	next   func(page int) int
	onPage func(page int) []fakeIssue
	listed int
}

// fuse is how many pages of issues a test server links on at most.
const fuse = 3000

type fakeAnswer struct {
	Status int
	Header map[string]string
	Body   string
}

var issuePath = regexp.MustCompile(`^/api/v3/repos/octo-org/nightly/issues(?:/(\d+)(/comments)?)?$`)

func newFake(t *testing.T, pages ...[]fakeIssue) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, pages: pages, fail: map[string]fakeAnswer{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// client returns a go-github client built the way the project builds one.
func (f *fakeGitHub) client() *github.Client {
	tr := &http.Transport{}
	f.t.Cleanup(tr.CloseIdleConnections)
	c, err := ghapi.New(ghapi.Options{HTTPClient: &http.Client{Transport: tr}, BaseURL: f.srv.URL + "/api/v3", Token: testToken, UserAgent: "retrywise/test"})
	if err != nil {
		f.t.Fatal(err)
	}
	return c.GitHub()
}

func (f *fakeGitHub) requests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.reqs...)
}

// writes returns the requests that are not GETs.
func (f *fakeGitHub) writes() []sent {
	var w []sent
	for _, r := range f.requests() {
		if r.Method != http.MethodGet {
			w = append(w, r)
		}
	}
	return w
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		t.Errorf("%s %s: Authorization %q, want the bearer token", r.Method, r.URL.Path, got)
	}
	raw, _ := io.ReadAll(r.Body)
	s := sent{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &s.Body); err != nil {
			t.Errorf("%s %s: body is not a JSON object: %v", r.Method, r.URL.Path, err)
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, s)
	ans, failing := f.fail[r.Method+" "+r.URL.Path]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if failing {
		for k, v := range ans.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ans.Status)
		io.WriteString(w, ans.Body)
		return
	}
	m := issuePath.FindStringSubmatch(r.URL.Path)
	switch {
	case m != nil && m[1] == "" && r.Method == http.MethodGet:
		f.list(w, r)
	case m != nil && m[1] == "" && r.Method == http.MethodPost:
		labels := s.Body["labels"]
		if f.dropLabels {
			labels = []any{}
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{
			"id": 9001, "number": 7, "state": "open", "title": s.Body["title"], "body": s.Body["body"],
			"html_url": f.htmlURL(7), "labels": labelObjects(labels),
		})
	case m != nil && m[2] != "" && r.Method == http.MethodPost:
		n, _ := strconv.Atoi(m[1])
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{
			"id": 555000 + n, "body": s.Body["body"],
			"html_url":  fmt.Sprintf("%s#issuecomment-%d", f.htmlURL(n), 555000+n),
			"issue_url": f.srv.URL + "/api/v3/repos/octo-org/nightly/issues/" + m[1],
		})
	case m != nil && m[1] != "" && m[2] == "" && r.Method == http.MethodPatch:
		n, _ := strconv.Atoi(m[1])
		json.NewEncoder(w).Encode(map[string]any{
			"number": n, "state": s.Body["state"], "state_reason": s.Body["state_reason"], "html_url": f.htmlURL(n),
		})
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
	}
}

// list answers GET /repos/{o}/{r}/issues: one page of f.pages, with the Link
// header GitHub sends (its links name the repository by id).
func (f *fakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("state") != "open" || q.Get("labels") != Label || q.Get("per_page") != "100" {
		f.t.Errorf("GET issues with query %q, want state=open, labels=%s, per_page=100", r.URL.RawQuery, Label)
	}
	page := 1
	if p := q.Get("page"); p != "" {
		page, _ = strconv.Atoi(p)
	}
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s/api/v3/repositories/4242/issues?labels=%s&page=%d&per_page=100&state=open>; rel="%s"`, f.srv.URL, Label, p, rel)
	}
	var links []string
	f.mu.Lock()
	f.listed++
	listed := f.listed
	f.mu.Unlock()
	switch {
	case f.next != nil:
		if n := f.next(page); n != 0 && listed < fuse {
			links = append(links, link(n, "next"))
		}
	case page < len(f.pages):
		links = append(links, link(page+1, "next"), link(len(f.pages), "last"))
	}
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	var issues []fakeIssue
	switch {
	case page >= 1 && page <= len(f.pages):
		issues = f.pages[page-1]
	case f.onPage != nil:
		issues = f.onPage(page)
	}
	{
		for _, is := range issues {
			o := map[string]any{
				"id": 100000 + is.Number, "number": is.Number, "state": "open", "title": fmt.Sprintf("issue %d", is.Number),
				"body": is.Body, "html_url": f.htmlURL(is.Number), "labels": labelObjects([]any{Label}),
			}
			if is.PR {
				o["pull_request"] = map[string]any{
					"url":      fmt.Sprintf("%s/api/v3/repos/octo-org/nightly/pulls/%d", f.srv.URL, is.Number),
					"html_url": fmt.Sprintf("https://github.com/octo-org/nightly/pull/%d", is.Number),
				}
			}
			out = append(out, o)
		}
	}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeGitHub) htmlURL(n int) string {
	return fmt.Sprintf("https://github.com/octo-org/nightly/issues/%d", n)
}

func labelObjects(v any) []map[string]any {
	out := []map[string]any{}
	names, _ := v.([]any)
	for i, n := range names {
		out = append(out, map[string]any{"id": 77 + i, "name": n, "color": "ededed"})
	}
	return out
}
