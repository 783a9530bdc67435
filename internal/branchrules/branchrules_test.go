package branchrules

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/ghapi"
)

// testToken looks like a GITHUB_TOKEN; it must never appear in a note.
const testToken = "ghs_R3tryw1seT3stT0kenAbCdEfGhIjKlMnOp"

// documentedRules is an answer of GET /repos/{o}/{r}/rules/branches/{branch}
// in the documented shape, with rules from a repository and an organization
// ruleset, a type go-github v60 does not know (merge_queue) and one nobody
// knows yet.
const documentedRules = `[
  {"type": "pull_request", "parameters": {"allowed_merge_methods": ["merge", "squash", "rebase"], "dismiss_stale_reviews_on_push": false, "require_code_owner_review": false, "require_last_push_approval": false, "required_approving_review_count": 1, "required_review_thread_resolution": false},
   "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 42},
  {"type": "non_fast_forward", "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 42},
  {"type": "required_status_checks", "parameters": {"strict_required_status_checks_policy": false, "do_not_enforce_on_create": false, "required_status_checks": [{"context": "ci/test", "integration_id": 15368}]},
   "ruleset_source_type": "Organization", "ruleset_source": "octo-org", "ruleset_id": 7},
  {"type": "update", "parameters": {"update_allows_fetch_and_merge": false}, "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 42},
  {"type": "merge_queue", "parameters": {"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5, "max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5},
   "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 42},
  {"type": "quantum_entanglement", "parameters": {"spooky": true}, "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 42}
]`

// fakeRules answers GET /repos/octo-org/nightly/rules/branches/{branch}
// with pages[page-1] (and GitHub's Link header), or with fail when set.
type fakeRules struct {
	srv   *httptest.Server
	pages []string
	fail  *answer
	// next, when set, is the page the next link names after page n (0:
	// none), and page n past pages is onPage(n); at most fuse pages carry a
	// next link, so a walk without bounds ends, late.
	next   func(page int) int
	onPage func(page int) string

	mu    sync.Mutex
	paths []string // escaped paths requested, with the query
}

type answer struct {
	status int
	body   string
}

func newFake(t *testing.T, pages ...string) *fakeRules {
	t.Helper()
	f := &fakeRules{pages: pages}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("Authorization %q, want the bearer token", got)
		}
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/v3/repos/octo-org/nightly/rules/branches/") {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`)
			return
		}
		if f.fail != nil {
			w.WriteHeader(f.fail.status)
			io.WriteString(w, f.fail.body)
			return
		}
		page := 1
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		if f.next != nil {
			f.mu.Lock()
			n := len(f.paths)
			f.mu.Unlock()
			if next := f.next(page); next != 0 && n < fuse {
				w.Header().Set("Link", fmt.Sprintf(`<%s/api/v3/repositories/4242/rules/branches/main?per_page=100&page=%d>; rel="next"`, f.srv.URL, next))
			}
			io.WriteString(w, f.onPage(page))
			return
		}
		if page < len(f.pages) {
			w.Header().Set("Link", fmt.Sprintf(`<%s/api/v3/repositories/4242/rules/branches/main?per_page=100&page=%d>; rel="next", <%s/api/v3/repositories/4242/rules/branches/main?per_page=100&page=%d>; rel="last"`,
				f.srv.URL, page+1, f.srv.URL, len(f.pages)))
		}
		if page < 1 || page > len(f.pages) {
			io.WriteString(w, "[]")
			return
		}
		io.WriteString(w, f.pages[page-1])
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRules) client(t *testing.T) *github.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := ghapi.New(ghapi.Options{HTTPClient: &http.Client{Transport: tr}, BaseURL: f.srv.URL + "/api/v3", Token: testToken, UserAgent: "retrywise/test"})
	if err != nil {
		t.Fatal(err)
	}
	return c.GitHub()
}

func (f *fakeRules) requested() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func TestExplainNamesEveryRule(t *testing.T) {
	f := newFake(t, documentedRules)
	got, err := Explain(context.Background(), f.client(t), "octo-org", "nightly", "main", true)
	if err != nil {
		t.Fatal(err)
	}
	want := `branch "main" has rules: pull_request (changes must go through a pull request, 1 approving review), ` +
		`non_fast_forward (force pushes are blocked), required_status_checks (ci/test must pass), update (updates are restricted), ` +
		`merge_queue (changes must go through a merge queue), quantum_entanglement; ` +
		`set by ruleset 42 of octo-org/nightly and organization ruleset 7 of octo-org; ` +
		`classic branch protection, if any, is not listed (reading it needs admin)`
	if got != want {
		t.Errorf("Explain =\n%s\nwant\n%s", got, want)
	}
	if p := f.requested(); len(p) != 1 || p[0] != "/api/v3/repos/octo-org/nightly/rules/branches/main?per_page=100&page=1" {
		t.Errorf("requested %q", p)
	}
}

// go-github v60's own decoding refuses the whole answer over merge_queue,
// which is why Get decodes the rules itself. When this test fails after an
// upgrade, go-github's RepositoryRule may be usable again.
func TestGoGitHubV60RefusesUnknownRuleTypes(t *testing.T) {
	f := newFake(t, documentedRules)
	_, _, err := f.client(t).Repositories.GetRulesForBranch(context.Background(), "octo-org", "nightly", "main")
	if err == nil || !strings.Contains(err.Error(), "not yet implemented") {
		t.Errorf("go-github v60 GetRulesForBranch: %v, want its not-implemented error", err)
	}
}

func TestExplainWithoutRules(t *testing.T) {
	for _, protected := range []bool{false, true} {
		f := newFake(t, "[]")
		got, err := Explain(context.Background(), f.client(t), "octo-org", "nightly", "main", protected)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if protected {
			want = `branch "main" is protected by classic branch protection, which GITHUB_TOKEN cannot read (it needs admin): see Settings → Branches`
		}
		if got != want {
			t.Errorf("protected %v: %q, want %q", protected, got, want)
		}
		if n := len(f.requested()); n != 1 {
			t.Errorf("protected %v: %d requests, want 1", protected, n)
		}
	}
}

func TestExplainEscapesTheBranch(t *testing.T) {
	cases := map[string]string{
		"feature/x":         "feature%2Fx",
		"release/v1.2#hot":  "release%2Fv1.2%23hot",
		"what?/100%":        "what%3F%2F100%25",
		"deps/bump go 1.26": "deps%2Fbump%20go%201.26",
	}
	for branch, escaped := range cases {
		f := newFake(t, `[{"type": "deletion", "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 3}]`)
		got, err := Explain(context.Background(), f.client(t), "octo-org", "nightly", branch, false)
		if err != nil {
			t.Fatalf("%s: %v", branch, err)
		}
		if want := fmt.Sprintf("branch %q has rules: deletion (deleting the branch is restricted); set by ruleset 3 of octo-org/nightly", branch); got != want {
			t.Errorf("%s: %q, want %q", branch, got, want)
		}
		if p := f.requested(); len(p) != 1 || p[0] != "/api/v3/repos/octo-org/nightly/rules/branches/"+escaped+"?per_page=100&page=1" {
			t.Errorf("%s: requested %q, want the branch as %s", branch, p, escaped)
		}
	}
}

// fuse is how many pages of rules a test server links on at most.
const fuse = 3000

// page is a page of rules of types.
func page(types ...string) string {
	var rules []map[string]any
	for _, ty := range types {
		rules = append(rules, map[string]any{"type": ty, "ruleset_source_type": "Repository", "ruleset_source": "octo-org/nightly", "ruleset_id": 1})
	}
	b, _ := json.Marshal(rules)
	return string(b)
}

// TestRulesListBounds: the rules are read within their bounds, and a list
// cut at one is said so in the sentence, with the bound.
func TestRulesListBounds(t *testing.T) {
	many := make([]string, MaxRules+500)
	for i := range many {
		many[i] = "creation"
	}
	for _, c := range []struct {
		name   string
		next   func(int) int
		onPage func(int) string
		pages  int
		want   string
	}{
		{"endless", func(p int) int { return p + 1 }, func(int) string { return page("creation") }, MaxPages,
			fmt.Sprintf("the rules were cut at %d pages (the bound: %d pages of 100, %d items)", MaxPages, MaxPages, MaxRules)},
		{"repeats page 2", func(int) int { return 2 }, func(int) string { return page("creation") }, 2,
			"the rules were cut after page 2: its next link named page 2, read already"},
		{"items", func(int) int { return 0 }, func(int) string { return page(many...) }, 1,
			fmt.Sprintf("the rules were cut at %d items", MaxRules)},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.next, f.onPage = c.next, c.onPage
			got, err := Explain(context.Background(), f.client(t), "octo-org", "nightly", "main", false)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, `branch "main" has rules: creation`) || !strings.Contains(got, c.want) {
				t.Errorf("Explain = %q, want the rules and %q", got, c.want)
			}
			if n := len(f.requested()); n != c.pages {
				t.Errorf("%d pages read, want %d", n, c.pages)
			}
		})
	}
}

func TestExplainReadsEveryPage(t *testing.T) {
	f := newFake(t, page("creation", "deletion"), page("required_signatures"), page("required_linear_history"))
	rules, cut, err := Get(context.Background(), f.client(t), "octo-org", "nightly", "main")
	if err != nil || cut != nil {
		t.Fatal(err, cut)
	}
	var types []string
	for _, r := range rules {
		types = append(types, r.Type)
	}
	if strings.Join(types, ",") != "creation,deletion,required_signatures,required_linear_history" {
		t.Errorf("types %q", types)
	}
	if p := f.requested(); len(p) != 3 || !strings.HasSuffix(p[2], "per_page=100&page=3") {
		t.Errorf("requested %q", p)
	}
}

func TestFailureIsANote(t *testing.T) {
	cases := []struct {
		name string
		ans  answer
		want string
	}{
		{"forbidden", answer{403, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/repos/rules#get-rules-for-a-branch","status":"403"}`},
			"could not read the branch rules: HTTP 403: Resource not accessible by integration (the token needs metadata: read)"},
		{"not found", answer{404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/repos/rules#get-rules-for-a-branch","status":"404"}`},
			"could not read the branch rules: HTTP 404: Not Found (the repository is not visible to the token, which needs metadata: read)"},
		{"echoed credentials", answer{401, `{"message":"Bad credentials for Bearer ` + testToken + `","documentation_url":"https://docs.github.com/rest"}`},
			"could not read the branch rules: HTTP 401: Bad credentials for Bearer *** (GitHub did not accept the token)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.fail = &c.ans
			text, err := Explain(context.Background(), f.client(t), "octo-org", "nightly", "main", true)
			if err == nil || text != "" {
				t.Fatalf("Explain = %q, %v; want an error and no text", text, err)
			}
			if got := Note(err); got != c.want {
				t.Errorf("Note =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	if Note(nil) != "" {
		t.Error("Note(nil) is not empty")
	}
}

func TestNoteOfATransportError(t *testing.T) {
	f := newFake(t, "[]")
	gh := f.client(t)
	f.srv.Close()
	_, err := Explain(context.Background(), gh, "octo-org", "nightly", "main", false)
	if err == nil {
		t.Fatal("no error from a closed server")
	}
	n := Note(err)
	if !strings.HasPrefix(n, "could not read the branch rules: ") || !strings.Contains(n, "/rules/branches/main") || strings.Contains(n, testToken) {
		t.Errorf("Note = %q", n)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		typ, params, want string
	}{
		{"creation", ``, "creating the branch is restricted"},
		{"update", `{"update_allows_fetch_and_merge": true}`, "updates are restricted, except by fetch and merge"},
		{"update", `null`, "updates are restricted"},
		{"deletion", ``, "deleting the branch is restricted"},
		{"required_linear_history", ``, "merge commits are blocked"},
		{"required_deployments", `{"required_deployment_environments": ["staging", "production"]}`, "deployments to staging, production must succeed first"},
		{"required_deployments", ``, "deployments must succeed first"},
		{"required_signatures", ``, "commits must be signed"},
		{"pull_request", `{"required_approving_review_count": 2, "require_code_owner_review": true, "require_last_push_approval": true, "required_review_thread_resolution": true, "dismiss_stale_reviews_on_push": true}`,
			"changes must go through a pull request, 2 approving reviews, a code owner's review, the last push approved by someone else, conversations resolved"},
		{"pull_request", `{"required_approving_review_count": 0}`, "changes must go through a pull request"},
		{"required_status_checks", `{"strict_required_status_checks_policy": true, "required_status_checks": [{"context": "ci/test"}, {"context": "lint", "integration_id": 1}]}`,
			"ci/test, lint must pass on a branch up to date with it"},
		{"required_status_checks", `{"required_status_checks": []}`, "status checks must pass"},
		{"non_fast_forward", ``, "force pushes are blocked"},
		{"commit_message_pattern", `{"name": "Conventional commits", "negate": false, "operator": "regex", "pattern": "^(feat|fix): "}`, `Conventional commits: commit messages must match "^(feat|fix): "`},
		{"commit_author_email_pattern", `{"operator": "ends_with", "pattern": "@example.com"}`, `commit author emails must end with "@example.com"`},
		{"committer_email_pattern", `{"negate": true, "operator": "contains", "pattern": "noreply"}`, `committer emails must not contain "noreply"`},
		{"branch_name_pattern", `{"operator": "starts_with", "pattern": "feature/"}`, `branch names must start with "feature/"`},
		{"tag_name_pattern", `{"operator": "regex", "pattern": "^v[0-9]"}`, `tag names must match "^v[0-9]"`},
		{"merge_queue", `{"merge_method": "SQUASH"}`, "changes must go through a merge queue"},
		{"workflows", `{"workflows": [{"path": ".github/workflows/ci.yml", "repository_id": 1, "ref": "main"}]}`, "workflows .github/workflows/ci.yml must pass"},
		{"code_scanning", `{"code_scanning_tools": [{"tool": "CodeQL", "alerts_threshold": "errors", "security_alerts_threshold": "high_or_higher"}]}`, "code scanning results of CodeQL are required"},
		{"file_path_restriction", `{"restricted_file_paths": ["secrets/**"]}`, "changes to secrets/** are blocked"},
		{"max_file_path_length", `{"max_file_path_length": 255}`, "file paths may not be longer than 255 characters"},
		{"file_extension_restriction", `{"restricted_file_extensions": [".exe", ".zip"]}`, "files ending in .exe, .zip are blocked"},
		{"max_file_size", `{"max_file_size": 10}`, "files over 10 MB are blocked"},
		{"copilot_code_review", `{"review_on_push": true}`, "pull requests get a Copilot review"},
		{"pull_request", `{"required_approving_review_count": "two"}`, "changes must go through a pull request"},
		{"quantum_entanglement", `{"spooky": true}`, ""},
	}
	for _, c := range cases {
		r := Rule{Type: c.typ}
		if c.params != "" {
			r.Parameters = json.RawMessage(c.params)
		}
		if got := describe(r); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.typ, c.params, got, c.want)
		}
	}
	// Two rulesets asking the same: said once.
	rules := []Rule{{Type: "non_fast_forward", RulesetID: 1, RulesetSource: "o/r", RulesetSourceType: "Repository"},
		{Type: "non_fast_forward", RulesetID: 2, RulesetSource: "o", RulesetSourceType: "Organization"}}
	if got, want := Describe("main", rules, false), `branch "main" has rules: non_fast_forward (force pushes are blocked); set by ruleset 1 of o/r and organization ruleset 2 of o`; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func TestBranchOf(t *testing.T) {
	cases := map[string]string{
		"refs/heads/main":              "main",
		"HEAD:main":                    "main",
		"HEAD:refs/heads/main":         "main",
		"+HEAD:refs/heads/release/1.x": "release/1.x",
		"main":                         "main",
		"feature/x":                    "feature/x",
		"main:main":                    "main",
		":refs/heads/old":              "old",
		"refs/tags/v1.0":               "",
		"HEAD:refs/tags/v1.0":          "",
		"refs/notes/commits":           "",
		"HEAD":                         "",
		"":                             "",
		" refs/heads/main\n":           "main",
	}
	for in, want := range cases {
		if got := BranchOf(in); got != want {
			t.Errorf("BranchOf(%q) = %q, want %q", in, got, want)
		}
	}
}
