package explain

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/ghapi"
)

// TestExplainAPIRefusesTheRead: a 401 or 403 exits 77, a 404 66, each
// saying that explain could not read the run and what the API said, never
// as a failed step of the run.
func TestExplainAPIRefusesTheRead(t *testing.T) {
	for _, tt := range []struct {
		status int
		msg    string
		code   int
	}{
		{401, "Bad credentials", exitcode.Policy},
		{403, "Resource not accessible by integration", exitcode.Policy},
		{404, "Not Found", exitcode.Absent},
	} {
		g := newFake(t)
		g.runStatus, g.runMessage = tt.status, tt.msg
		res := g.explain(t, Options{})
		if res.ExitCode != tt.code {
			t.Errorf("%d: exit = %d, want %d (%s)", tt.status, res.ExitCode, tt.code, res.Headline)
		}
		if !strings.HasPrefix(res.Headline, "explain could not read the run") || !strings.Contains(res.Headline, tt.msg) {
			t.Errorf("%d: headline = %q, want explain could not read the run … %q", tt.status, res.Headline, tt.msg)
		}
		checkNotAStepOfTheRun(t, res)
	}
}

// checkNotAStepOfTheRun checks that explain's own failure is not shown
// as a failed step of the run.
func checkNotAStepOfTheRun(t *testing.T, res *Result) {
	t.Helper()
	var b bytes.Buffer
	res.WriteText(&b, "o/r#42")
	out := b.String()
	if strings.Contains(out, "failed step") || strings.Contains(out, "step run:") || !strings.Contains(out, "explain could not read the run") {
		t.Errorf("text reads like a failed step of the run:\n%s", out)
	}
	for _, s := range res.Report.Steps {
		if s.ID == "run" || !strings.Contains(s.Detail, "explain could not read the run") {
			t.Errorf("report row %q (%s) reads like a step of the run", s.ID, s.Detail)
		}
	}
	if res.Report.Run.Detail != res.Headline {
		t.Errorf("report headline %q, result's %q", res.Report.Run.Detail, res.Headline)
	}
}

// unreachable explains through an API at base, which does not answer.
func unreachable(t *testing.T, base string) (*Result, *clock.Fake, time.Duration) {
	t.Helper()
	clk := clock.NewFake(t0, true)
	api, err := ghapi.New(ghapi.Options{BaseURL: base, Token: testToken, Clock: clk, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := Explain(context.Background(), Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}, Options{API: api, Clock: clk})
	return res, clk, time.Since(start)
}

// TestExplainUnreachableAPIGivesUp: a closed port or a host that does not
// resolve is not retried for 17 s: explain gives up within 5 s and says it
// could not reach the API.
func TestExplainUnreachableAPIGivesUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	for _, base := range []string{closed, "http://api.retrywise-test.invalid/"} {
		res, clk, wall := unreachable(t, base)
		var waited time.Duration
		for _, w := range clk.Waits() {
			waited += w
		}
		if waited > 5*time.Second || wall > 30*time.Second {
			t.Errorf("%s: waited %s on the clock (%s wall), want at most 5s", base, waited, wall)
		}
		if !strings.Contains(res.Headline, "explain could not reach the GitHub API") {
			t.Errorf("%s: headline = %q", base, res.Headline)
		}
		if res.ExitCode != exitcode.Transient {
			t.Errorf("%s: exit = %d", base, res.ExitCode)
		}
		checkNotAStepOfTheRun(t, res)
	}
}

// TestExplain5xxRetriedWithinTheBudget: a 502 is still retried, within 5 s.
func TestExplain5xxRetriedWithinTheBudget(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		writeJSON(w, http.StatusBadGateway, map[string]string{"message": "Server Error"})
	}))
	defer srv.Close()
	res, clk, _ := unreachable(t, srv.URL+"/")
	var waited time.Duration
	for _, w := range clk.Waits() {
		waited += w
	}
	if n < 2 || waited > 5*time.Second {
		t.Errorf("%d requests, waited %s: want retries within 5s", n, waited)
	}
	if !strings.HasPrefix(res.Headline, "explain could not read the run") || !strings.Contains(res.Headline, "502") {
		t.Errorf("headline = %q", res.Headline)
	}
	checkNotAStepOfTheRun(t, res)
}

// TestExplainDialTimeoutIsUnreachable: a connection that could not be
// opened in time (a dial timeout, which Explain's transport bounds at
// ConnectTimeout) is an unreachable API too: not retried.
func TestExplainDialTimeoutIsUnreachable(t *testing.T) {
	dials := 0
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials++
		return nil, &net.OpError{Op: "dial", Net: network, Err: timeoutError{}}
	}}
	clk := clock.NewFake(t0, true)
	api, err := ghapi.New(ghapi.Options{BaseURL: "http://api.example.test/", Token: testToken, Clock: clk, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	res := Explain(context.Background(), Target{Host: "github.com", Owner: "o", Repo: "r", RunID: 42}, Options{API: api, Clock: clk})
	if dials != 1 || len(clk.Waits()) != 0 || !strings.Contains(res.Headline, "explain could not reach the GitHub API") {
		t.Errorf("%d dials, waits %v, headline %q", dials, clk.Waits(), res.Headline)
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
