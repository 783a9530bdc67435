package ghissue

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// testRun is the run every reporter test reports.
var testRun = Run{Owner: "octo-org", Repo: "nightly", Workflow: "Nightly export", Job: "export", ServerURL: "https://github.com", ID: 9876543210, Attempt: 2}

const runURL = "https://github.com/octo-org/nightly/actions/runs/9876543210/attempts/2"

const report = "### retrywise job export failed\n\n| step | class |\n|---|---|\n| push | structural |\n"

// otherIssues returns n open issues numbered from first that are not the job's.
func otherIssues(first, n int) []fakeIssue {
	out := make([]fakeIssue, n)
	for i := range out {
		out[i] = fakeIssue{Number: first + i, Body: fmt.Sprintf("something else %d", i)}
	}
	return out
}

func TestFailedOpensAnIssueWhenNoneIsOpen(t *testing.T) {
	f := newFake(t, otherIssues(1, 3))
	o, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	want := Outcome{Action: Opened, Number: 7, URL: "https://github.com/octo-org/nightly/issues/7"}
	if o != want {
		t.Errorf("outcome %+v, want %+v", o, want)
	}
	if got := o.String(); got != "opened issue #7 https://github.com/octo-org/nightly/issues/7" {
		t.Errorf("String() = %q", got)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[0].Method != "GET" || reqs[0].Path != "/api/v3/repos/octo-org/nightly/issues" {
		t.Fatalf("requests %+v, want the list then the create", reqs)
	}
	c := reqs[1]
	if c.Method != "POST" || c.Path != "/api/v3/repos/octo-org/nightly/issues" {
		t.Fatalf("second request %s %s, want POST /repos/octo-org/nightly/issues", c.Method, c.Path)
	}
	if c.Body["title"] != "retrywise: Nightly export / export failed" {
		t.Errorf("title %q", c.Body["title"])
	}
	if !reflect.DeepEqual(c.Body["labels"], []any{"retrywise"}) {
		t.Errorf("labels %v, want [retrywise]", c.Body["labels"])
	}
	body, _ := c.Body["body"].(string)
	marker := `<!-- retrywise-failure repository="octo-org/nightly" workflow="Nightly export" job="export" -->`
	for _, s := range []string{marker, "(" + runURL + ")", "run 9876543210, attempt 2", strings.TrimRight(report, "\n")} {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %q:\n%s", s, body)
		}
	}
	if !strings.HasPrefix(body, marker+"\n") {
		t.Errorf("body does not start with the marker:\n%s", body)
	}
	for _, k := range []string{"state", "assignees", "milestone"} {
		if _, ok := c.Body[k]; ok {
			t.Errorf("create sends %q", k)
		}
	}
}

func TestFailedCommentsOnTheOpenIssueBehindPageOne(t *testing.T) {
	mine := Marker(testRun)
	page1 := append(otherIssues(1000, 99), fakeIssue{Number: 1500, Body: mine + "\nA pull request quoting the marker", PR: true})
	page2 := append(otherIssues(2000, 20), fakeIssue{Number: 250, Body: mine + "\nretrywise: job `export` failed"})
	page2 = append(page2, otherIssues(3000, 5)...)
	f := newFake(t, page1, page2)
	o, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	want := Outcome{Action: Commented, Number: 250, URL: "https://github.com/octo-org/nightly/issues/250#issuecomment-555250"}
	if o != want {
		t.Errorf("outcome %+v, want %+v", o, want)
	}
	reqs := f.requests()
	var pages []string
	for _, r := range reqs {
		if r.Method == "GET" {
			pages = append(pages, r.Query.Get("page"))
		}
	}
	if !reflect.DeepEqual(pages, []string{"", "2"}) {
		t.Errorf("listed pages %q, want the first then page=2", pages)
	}
	w := f.writes()
	if len(w) != 1 || w[0].Method != "POST" || w[0].Path != "/api/v3/repos/octo-org/nightly/issues/250/comments" {
		t.Fatalf("writes %+v, want one comment on #250", w)
	}
	body, _ := w[0].Body["body"].(string)
	for _, s := range []string{"failed again", "(" + runURL + ")", strings.TrimRight(report, "\n")} {
		if !strings.Contains(body, s) {
			t.Errorf("comment lacks %q:\n%s", s, body)
		}
	}
	if len(w[0].Body) != 1 {
		t.Errorf("comment sends %v, want only body", w[0].Body)
	}
}

func TestFailedDoesNotMatchAnotherJobsMarker(t *testing.T) {
	other := func(mod func(*Run)) string { r := testRun; mod(&r); return Marker(r) + "\nfailed" }
	f := newFake(t, []fakeIssue{
		{Number: 3, Body: other(func(r *Run) { r.Job = "deploy" })},
		{Number: 4, Body: other(func(r *Run) { r.Workflow = "Nightly export (staging)" })},
		{Number: 5, Body: other(func(r *Run) { r.Repo = "nightly-fork" })},
		{Number: 6, Body: "retrywise: Nightly export / export failed, opened by hand without a marker"},
	})
	o, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != Opened {
		t.Errorf("outcome %+v, want a new issue", o)
	}
	if w := f.writes(); len(w) != 1 || w[0].Path != "/api/v3/repos/octo-org/nightly/issues" {
		t.Errorf("writes %+v, want only the create", w)
	}
}

func TestRecoveredCommentsAndCloses(t *testing.T) {
	f := newFake(t, append(otherIssues(1, 2), fakeIssue{Number: 5, Body: Marker(testRun) + "\nfailed"}))
	o, err := New(f.client(), testRun).Recovered(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := Outcome{Action: Closed, Number: 5, URL: "https://github.com/octo-org/nightly/issues/5"}
	if o != want {
		t.Errorf("outcome %+v, want %+v", o, want)
	}
	if got := o.String(); got != "closed issue #5 https://github.com/octo-org/nightly/issues/5" {
		t.Errorf("String() = %q", got)
	}
	w := f.writes()
	if len(w) != 2 {
		t.Fatalf("writes %+v, want a comment then a close", w)
	}
	if w[0].Method != "POST" || w[0].Path != "/api/v3/repos/octo-org/nightly/issues/5/comments" {
		t.Errorf("first write %s %s, want the comment on #5", w[0].Method, w[0].Path)
	}
	if body, _ := w[0].Body["body"].(string); !strings.Contains(body, "recovered in [run 9876543210]("+runURL+")") {
		t.Errorf("comment %q does not link the run it recovered in", body)
	}
	if w[1].Method != "PATCH" || w[1].Path != "/api/v3/repos/octo-org/nightly/issues/5" {
		t.Errorf("second write %s %s, want PATCH of #5", w[1].Method, w[1].Path)
	}
	if want := map[string]any{"state": "closed", "state_reason": "completed"}; !reflect.DeepEqual(w[1].Body, want) {
		t.Errorf("PATCH body %v, want %v", w[1].Body, want)
	}
}

func TestRecoveredWithNoneOpenWritesNothing(t *testing.T) {
	f := newFake(t, otherIssues(1, 100), otherIssues(101, 4))
	o, err := New(f.client(), testRun).Recovered(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o != (Outcome{Action: None}) || o.String() != "no open issue to close" {
		t.Errorf("outcome %+v (%q), want none", o, o.String())
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("writes %+v, want none", w)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want the two pages", n)
	}
}

func TestTwoOpenIssuesOfOneJob(t *testing.T) {
	m := Marker(testRun) + "\nfailed"
	f := newFake(t, []fakeIssue{{Number: 31, Body: m}, {Number: 12, Body: m}})
	o, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != Commented || o.Number != 12 || o.Note != "also open for this job: #31" {
		t.Errorf("failed: %+v, want a comment on the oldest, #12, noting #31", o)
	}
	f = newFake(t, []fakeIssue{{Number: 31, Body: m}, {Number: 12, Body: m}})
	o, err = New(f.client(), testRun).Recovered(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != Closed || o.Number != 12 || o.Note != "also closed #31" {
		t.Errorf("recovered: %+v, want #12 closed, noting #31", o)
	}
	var got []string
	for _, w := range f.writes() {
		got = append(got, w.Method+" "+strings.TrimPrefix(w.Path, "/api/v3/repos/octo-org/nightly/issues/"))
	}
	if want := []string{"POST 12/comments", "PATCH 12", "POST 31/comments", "PATCH 31"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
}

func TestLabelDroppedIsNoted(t *testing.T) {
	f := newFake(t, nil)
	f.dropLabels = true
	o, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != Opened || !strings.Contains(o.Note, "did not apply the label retrywise") {
		t.Errorf("outcome %+v, want opened with a note on the label", o)
	}
	if s := o.String(); !strings.Contains(s, "opened issue #7") || !strings.Contains(s, "label") {
		t.Errorf("String() = %q", s)
	}
}

// forbidden is GitHub's answer when GITHUB_TOKEN lacks issues: write.
var forbidden = fakeAnswer{Status: 403, Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/issues#create-an-issue","status":"403"}`}

func TestForbiddenNamesThePermission(t *testing.T) {
	const issues = "/api/v3/repos/octo-org/nightly/issues"
	cases := []struct {
		name   string
		fail   string
		open   []fakeIssue
		call   func(*Reporter) (Outcome, error)
		op     string
		before Outcome
	}{
		{"create", "POST " + issues, nil, failed, "open an issue", Outcome{Action: None}},
		{"list", "GET " + issues, nil, recovered, "list the open issues labelled retrywise", Outcome{Action: None}},
		{"comment", "POST " + issues + "/5/comments", []fakeIssue{{Number: 5, Body: Marker(testRun)}}, failed, "comment on issue #5", Outcome{Action: None}},
		{"close", "PATCH " + issues + "/5", []fakeIssue{{Number: 5, Body: Marker(testRun)}}, recovered, "close issue #5",
			Outcome{Action: Commented, Number: 5, URL: "https://github.com/octo-org/nightly/issues/5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.open)
			f.fail[c.fail] = forbidden
			o, err := c.call(New(f.client(), testRun))
			if o != c.before {
				t.Errorf("outcome %+v, want %+v", o, c.before)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Status != 403 || e.Permission != "issues: write" || e.Op != c.op || e.Repository != "octo-org/nightly" {
				t.Errorf("error %+v", e)
			}
			msg := err.Error()
			for _, s := range []string{"could not " + c.op + " in octo-org/nightly", "HTTP 403", "Resource not accessible by integration", "`permissions: issues: write`"} {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
			if strings.Contains(msg, testToken) || strings.Contains(fmt.Sprintf("%+v", err), testToken) {
				t.Errorf("error shows the token: %q", msg)
			}
			var er *github.ErrorResponse
			if !errors.As(err, &er) {
				t.Errorf("error does not unwrap to *github.ErrorResponse")
			}
		})
	}
}

func failed(r *Reporter) (Outcome, error)    { return r.Failed(context.Background(), report) }
func recovered(r *Reporter) (Outcome, error) { return r.Recovered(context.Background()) }

func TestErrorNeverShowsTheToken(t *testing.T) {
	// A server that echoes the credentials it got: the text is masked anyway.
	f := newFake(t, nil)
	f.fail["POST /api/v3/repos/octo-org/nightly/issues"] = fakeAnswer{Status: 401,
		Body: `{"message":"Bad credentials: Bearer ` + testToken + `","documentation_url":"https://docs.github.com/rest"}`}
	_, err := New(f.client(), testRun).Failed(context.Background(), report)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, testToken) || !strings.Contains(msg, "HTTP 401") || !strings.Contains(msg, "did not accept the token") {
		t.Errorf("error %q", msg)
	}
}

func TestOtherRefusals(t *testing.T) {
	cases := []struct {
		name       string
		ans        fakeAnswer
		want       []string
		permission string
	}{
		{"rate limit", fakeAnswer{Status: 403, Header: map[string]string{"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796032800"},
			Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`},
			[]string{"HTTP 403", "rate limit (1000 requests an hour) is spent until 2026-11-30T10:00:00Z"}, ""},
		{"issues disabled", fakeAnswer{Status: 410, Body: `{"message":"Issues are disabled for this repo","documentation_url":"https://docs.github.com/v3/issues/"}`},
			[]string{"HTTP 410: Issues are disabled for this repo", "Settings → General → Features → Issues"}, ""},
		{"validation", fakeAnswer{Status: 422, Body: `{"message":"Validation Failed","errors":[{"resource":"Issue","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}],"documentation_url":"https://docs.github.com/rest/issues/issues#create-an-issue"}`},
			[]string{"HTTP 422: Validation Failed; body is too long (maximum is 65536 characters)"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, nil)
			f.fail["POST /api/v3/repos/octo-org/nightly/issues"] = c.ans
			_, err := New(f.client(), testRun).Failed(context.Background(), report)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want *Error", err)
			}
			if e.Permission != c.permission || e.Status != c.ans.Status {
				t.Errorf("error %+v", e)
			}
			for _, s := range c.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestBodyOverTheLimitIsCut(t *testing.T) {
	// 70000+ bytes of multi-byte text inside an open code fence.
	long := "### retrywise job export failed\n\n```text\n" + strings.Repeat("naïve 日本語 🚀 log line\n", 3000)
	check := func(t *testing.T, body string, wantMarker bool) {
		t.Helper()
		if len(body) > MaxBodyLen {
			t.Errorf("body is %d bytes, over %d", len(body), MaxBodyLen)
		}
		if len(body) < MaxBodyLen-4096-600 {
			t.Errorf("body is %d bytes: cut far more than needed", len(body))
		}
		if !utf8.ValidString(body) {
			t.Error("body is not valid UTF-8")
		}
		if strings.Contains(body, Marker(testRun)) != wantMarker {
			t.Errorf("marker present: %v, want %v", !wantMarker, wantMarker)
		}
		for _, s := range []string{"(" + runURL + ")", "The report was cut to fit GitHub's limit of 65536 characters", "step summary", "artifact", "naïve 日本語 🚀 log line"} {
			if !strings.Contains(body, s) {
				t.Errorf("body lacks %q", s)
			}
		}
		if !strings.HasSuffix(body, cutNote(testRun)) {
			t.Error("body does not end with the note")
		}
		if f := openFence(strings.TrimSuffix(body, cutNote(testRun))); f != "" {
			t.Errorf("the note is inside the open fence %q", f)
		}
	}
	t.Run("issue", func(t *testing.T) {
		f := newFake(t, nil)
		if _, err := New(f.client(), testRun).Failed(context.Background(), long); err != nil {
			t.Fatal(err)
		}
		body, _ := f.writes()[0].Body["body"].(string)
		check(t, body, true)
	})
	t.Run("comment", func(t *testing.T) {
		f := newFake(t, []fakeIssue{{Number: 5, Body: Marker(testRun)}})
		if _, err := New(f.client(), testRun).Failed(context.Background(), long); err != nil {
			t.Fatal(err)
		}
		w := f.writes()
		if len(w) != 1 || w[0].Path != "/api/v3/repos/octo-org/nightly/issues/5/comments" {
			t.Fatalf("writes %+v", w)
		}
		body, _ := w[0].Body["body"].(string)
		check(t, body, false)
	})
}

func TestRequestsFailWithTheContext(t *testing.T) {
	f := newFake(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(f.client(), testRun).Failed(ctx, report)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent after cancel", n)
	}
}

func TestOutcomeString(t *testing.T) {
	cases := []struct {
		o    Outcome
		want string
	}{
		{Outcome{Action: Opened, Number: 12, URL: "https://github.com/o/r/issues/12"}, "opened issue #12 https://github.com/o/r/issues/12"},
		{Outcome{Action: Commented, Number: 12, URL: "https://github.com/o/r/issues/12#issuecomment-1"}, "commented on issue #12 https://github.com/o/r/issues/12#issuecomment-1"},
		{Outcome{Action: Closed, Number: 3, URL: "https://github.com/o/r/issues/3", Note: "also closed #4"}, "closed issue #3 https://github.com/o/r/issues/3 (also closed #4)"},
		{Outcome{Action: None}, "no open issue to close"},
	}
	for _, c := range cases {
		if got := c.o.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}
