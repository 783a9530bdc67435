package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/gittest"
)

// dailyPostMarker, alone on a line in docs/getting-started.md, marks the
// ```sh block of the worked example TestGettingStartedDailyPost runs; the
// next fenced block is what it prints. It is not readmeMarker: the example
// needs the test's API and remote.
const dailyPostMarker = "<!-- daily-post-test -->"

// testSubstitution marks a line of a doc's example that the test replaces
// by what follows it, as the page says.
const testSubstitution = "  # test: "

// The addresses the page shows, which the test's own stand for.
const (
	dailyPostAPI    = "https://api.example.com"
	dailyPostRemote = "https://git.example.com/you/posts.git"
	dailyPostKey    = "k3y-of-the-test"
	dailyPostURL    = "https://blog.example.com/you/hello-retrywise"
)

// postAPI is the publishing API of the worked example: a quota, a lookup
// that answers 404 until the post exists, and the POST that creates it.
type postAPI struct {
	*httptest.Server
	mu      sync.Mutex
	spent   bool     // the quota answers 429 with a day's Retry-After
	quotas  int      // GET /quota
	lookups []int    // the status of each GET /posts/hello-retrywise
	posts   []string // the Idempotency-Key of each POST /posts
	bodies  []string
	unauth  int // requests without the key
}

func newPostAPI(t *testing.T) *postAPI {
	t.Helper()
	a := &postAPI{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+dailyPostKey {
			a.unauth++
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error": "unauthorized"}`)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/quota":
			a.quotas++
			if a.spent {
				w.Header().Set("Retry-After", "86400")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"error": "daily quota spent"}`)
				return
			}
			io.WriteString(w, `{"remaining": 9}`)
		case r.Method == http.MethodGet && r.URL.Path == "/posts/hello-retrywise":
			if len(a.posts) == 0 {
				a.lookups = append(a.lookups, http.StatusNotFound)
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `{"error": "not found"}`)
				return
			}
			a.lookups = append(a.lookups, http.StatusOK)
			fmt.Fprintf(w, `{"slug": "hello-retrywise", "url": %q}`, dailyPostURL)
		case r.Method == http.MethodPost && r.URL.Path == "/posts":
			a.posts = append(a.posts, r.Header.Get("Idempotency-Key"))
			a.bodies = append(a.bodies, string(body))
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id": 1, "url": %q}`, dailyPostURL)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

// substituteForTest replaces each line of script that ends in
// testSubstitution and a command by that command, its indentation kept,
// and fails when there is none.
func substituteForTest(t *testing.T, script string) string {
	t.Helper()
	lines := strings.Split(script, "\n")
	n := 0
	for i, l := range lines {
		j := strings.Index(l, testSubstitution)
		if j < 0 {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		lines[i] = indent + strings.TrimSpace(l[j+len(testSubstitution):])
		n++
	}
	if n == 0 {
		t.Fatal("the example marks no substitution")
	}
	return strings.Join(lines, "\n")
}

// dailyPostExample returns the worked example of docs/getting-started.md.
func dailyPostExample(t *testing.T) readmeExample {
	t.Helper()
	const path = "../../docs/getting-started.md"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// readmeExamples reads the blocks after readmeMarker: read this one's
	// marker as that one.
	exs := readmeExamples(t, path, strings.ReplaceAll(string(text), dailyPostMarker, readmeMarker))
	own := readmeExamples(t, path, string(text))
	var out []readmeExample
	for _, ex := range exs {
		if !slices.ContainsFunc(own, func(o readmeExample) bool { return o.line == ex.line }) {
			out = append(out, ex)
		}
	}
	if len(out) != 1 {
		t.Fatalf("docs/getting-started.md has %d examples marked %s, want 1", len(out), dailyPostMarker)
	}
	return out[0]
}

// commitRange is the range of commits git push prints ("d326b41..c6001d7"),
// which differs from run to run.
var commitRange = regexp.MustCompile(`\b[0-9a-f]{7,40}\.\.[0-9a-f]{7,40}\b`)

// normaliseDailyPost is normaliseReadme, with the commit ids of a push made
// alike.
func normaliseDailyPost(s string) string {
	return commitRange.ReplaceAllString(normaliseReadme(s), "OLD..NEW")
}

// TestGettingStartedDailyPost runs the worked example of getting-started
// as the page says, on a terminal with the built binary, against a
// publishing API on 127.0.0.1 and a bare repository served over git's
// smart HTTP: the first run finds no post (404, found is 'false'), posts it
// once with its Idempotency-Key, records its URL and pushes the record;
// the second finds it (200) and skips the POST, the record and the push.
// What the terminal shows is the page's output. Then a spent quota (429
// with a day's Retry-After) stops a third run with 75 before the lookup.
func TestGettingStartedDailyPost(t *testing.T) {
	bin := buildBinary(t)
	ex := dailyPostExample(t)
	api := newPostAPI(t)
	genv := gittest.Env(t)
	gs := gittest.NewServer(t, genv)
	remote, bare := gs.NewRepo(t, "posts.git")
	work := gittest.NewWork(t, genv, remote)
	gittest.Git(t, genv, work, "push", "--quiet", "origin", "main")
	before := gittest.Rev(t, genv, bare, "main")

	dir := t.TempDir()
	script := fmt.Sprintf("export TEST_API=%s TEST_REMOTE=%s\n", api.URL, remote) + substituteForTest(t, ex.script)
	got, code := runOnTerminal(t, dir, filepath.Dir(bin), script)
	if code != 0 {
		t.Errorf("sh exits %d", code)
	}
	shown := strings.NewReplacer(api.URL, dailyPostAPI, remote, dailyPostRemote).Replace(got)
	if g, w := normaliseDailyPost(shown), normaliseDailyPost(ex.want); g != w {
		t.Errorf("the example shows\n%s\nbut runs as\n%s\n(normalised; as the page would show it:)\n%s", w, g, shown)
	}
	if strings.Contains(got, dailyPostKey) {
		t.Errorf("the key is printed:\n%s", got)
	}

	api.mu.Lock()
	posts, bodies, lookups, quotas, unauth := slices.Clone(api.posts), slices.Clone(api.bodies), slices.Clone(api.lookups), api.quotas, api.unauth
	api.mu.Unlock()
	if want := []string{"hello-retrywise"}; !slices.Equal(posts, want) {
		t.Errorf("POSTs with the Idempotency-Keys %q, want one with %q", posts, want)
	}
	if len(bodies) == 1 {
		var b struct{ Slug, Title string }
		if err := json.Unmarshal([]byte(bodies[0]), &b); err != nil || b.Slug != "hello-retrywise" {
			t.Errorf("the POST's body %q: %v", bodies[0], err)
		}
	}
	if want := []int{http.StatusNotFound, http.StatusOK}; !slices.Equal(lookups, want) {
		t.Errorf("lookups answered %v, want %v (the first run's 404, the second's 200)", lookups, want)
	}
	if quotas != 2 || unauth != 0 {
		t.Errorf("%d quota requests and %d without the key, want 2 and 0", quotas, unauth)
	}
	after := gittest.Rev(t, genv, bare, "main")
	if after == before {
		t.Fatal("the record was not pushed: the remote's main did not move")
	}
	if n := gittest.Git(t, genv, bare, "rev-list", "--count", before+".."+after); n != "1" {
		t.Errorf("%s commits pushed, want the one record", n)
	}
	if rec := gittest.Git(t, genv, bare, "show", "main:published.txt"); rec != dailyPostURL {
		t.Errorf("the remote's published.txt holds %q, want %q", rec, dailyPostURL)
	}

	// The quota is spent: the run stops at once, before the lookup.
	api.mu.Lock()
	api.spent = true
	api.mu.Unlock()
	cmd := exec.Command(bin, "run")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TEST_API=" + api.URL, "API_KEY=" + dailyPostKey}
	out, err := cmd.CombinedOutput()
	// a day's wait outlasts the step's max-elapsed: a limit this run cannot pass
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != exitcode.Policy {
		t.Errorf("a spent quota: %v, want exit %d\n%s", err, exitcode.Policy, out)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.lookups) != 2 || len(api.posts) != 1 || api.quotas != 3 {
		t.Errorf("a spent quota: %d quota requests, %d lookups, %d POSTs; want 3, 2, 1 (nothing after the quota)\n%s", api.quotas, len(api.lookups), len(api.posts), out)
	}
	if !strings.Contains(string(out), "rate-limit-window") || !strings.Contains(string(out), "run again after") || strings.Contains(string(out), "waiting as the server asked") {
		t.Errorf("a spent quota: the report does not name the reset and when to run again:\n%s", out)
	}
}

// TestGettingStartedListsEveryCommand: getting-started's list of the
// commands' pages names every page of docs/commands (explain's included).
func TestGettingStartedListsEveryCommand(t *testing.T) {
	text, err := os.ReadFile("../../docs/getting-started.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("../../docs/commands/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/commands: %v", err)
	}
	for _, p := range pages {
		if link := "](commands/" + filepath.Base(p) + ")"; !strings.Contains(string(text), link) {
			t.Errorf("docs/getting-started.md does not link %s", strings.TrimPrefix(p, "../../"))
		}
	}
}

// TestBinaryExtractedFalseIsTheString: with the built binary, an output
// extracted from a JSON false is the string 'false', as in a workflow: the
// getting-started example's `found == 'false'` runs its step, the string
// is true as a condition, fromJSON gives the boolean, and ${…} expands to
// false; `== false` (a number comparison, NaN, never true) is refused by
// validate before anything runs.
func TestBinaryExtractedFalseIsTheString(t *testing.T) {
	bin := buildBinary(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"published": false}`)
	}))
	t.Cleanup(api.Close)
	dir := t.TempDir()
	job := `version: 1
jobs:
  check:
    steps:
      - id: already
        http: {url: "` + api.URL + `/posts/hello", field: ["found=.published"]}
      - id: string
        if: steps.already.outputs.found == 'false'
        env: {FOUND: "${steps.already.outputs.found}"}
        exec: {run: 'printf "%s" "$FOUND" > expanded.txt'}
      - id: truthy
        if: steps.already.outputs.found
        exec: {run: "true"}
      - id: typed
        if: ${{ !fromJSON(steps.already.outputs.found) }}
        exec: {run: "true"}
`
	if err := os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--report", "r.json")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	want := []string{"already=success", "string=success", "truthy=success", "typed=success"}
	if got := stepResults(readRun(t, filepath.Join(dir, "r.json"))); !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "expanded.txt")); err != nil || string(b) != "false" {
		t.Errorf("${steps.already.outputs.found} expands to %q (%v), want false", b, err)
	}
	boolean := strings.Replace(job, "found == 'false'", "found == false", 1)
	if err := os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(boolean), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "run")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 78 || !strings.Contains(string(out), "write 'false'") || strings.Contains(string(out), "step string") {
		t.Errorf("== false: exit %d (%v)\n%s", code, err, out)
	}
}
