package failure

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// corpusCase is one line of testdata/corpus.jsonl (see its README upstream).
type corpusCase struct {
	ID       string  `json:"id"`
	Class    string  `json:"class"`
	Decision string  `json:"decision"`
	Kind     string  `json:"kind"`
	Text     *string `json:"text"`
	ExitCode *int    `json:"exit_code"`
	HTTP     *struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    *string           `json:"body"`
	} `json:"http"`
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	f, err := os.Open("testdata/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("corpus line %d: %v", n, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// input builds the Input the `retrywise classify` CLI would build for a case.
func (c corpusCase) input() Input {
	in := Input{Tool: ToolAuto, ExitCode: NoExitCode}
	switch {
	case strings.HasPrefix(c.Kind, "git-"):
		in.Tool = ToolGit
	case strings.HasPrefix(c.Kind, "curl-"):
		in.Tool = ToolCurl
	case c.Kind == "http-response":
		in.Tool = ToolHTTP
	}
	if c.ExitCode != nil {
		in.ExitCode = *c.ExitCode
	}
	if c.Text != nil {
		in.Text = *c.Text
	}
	if c.Kind == "http-response" && c.HTTP != nil {
		in.Status = c.HTTP.Status
		in.Header = http.Header{}
		for k, v := range c.HTTP.Headers {
			in.Header.Add(k, v)
		}
		if c.HTTP.Body != nil {
			in.Text = *c.HTTP.Body
		}
	}
	return in
}

// deliberateRetry lists the ambiguous (unknown-labelled) cases that retrywise
// retries on purpose, with the reason; any class is acceptable for them, and
// the specification asks for this one.
var deliberateRetry = map[string]string{
	// A refused connection is usually a service restarting; the push and http
	// specifications list it as a network failure to retry (a POST may be
	// replayed after it, since the request never reached the server).
	"un-014": "connection refused is transient",
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) == 0 {
		t.Fatal("empty corpus")
	}
	var bad []string
	for _, c := range cases {
		f := Classify(c.input())
		got := fmt.Sprintf("%s/%s %s (%s)", f.Class, f.Class.Decision(), f.Code, f.Reason)
		if testing.Verbose() {
			t.Logf("%s: %s remedy=%q evidence=%q", c.ID, got, f.Remedy, f.Evidence)
		}
		if err := invariants(f); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", c.ID, err))
		}
		if c.Class == "unknown" {
			// Ambiguous: any class will do, but unrecognised is not
			// permission to retry: it must stop, unless listed above.
			_, retry := deliberateRetry[c.ID]
			if want := map[bool]Decision{true: Retry, false: Stop}[retry]; f.Class.Decision() != want {
				bad = append(bad, fmt.Sprintf("%s: want %s, got %s", c.ID, want, got))
			}
			continue
		}
		if string(f.Class.Decision()) != c.Decision || f.Class.String() != c.Class {
			bad = append(bad, fmt.Sprintf("%s: want %s/%s, got %s", c.ID, c.Class, c.Decision, got))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d corpus cases misclassified:\n%s", len(bad), len(cases), strings.Join(bad, "\n"))
	}
}
