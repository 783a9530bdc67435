package failure

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// corpusCase is one line of testdata/corpus.jsonl (see its README upstream).
type corpusCase struct {
	ID       string  `json:"id"`
	Tool     string  `json:"tool"`
	Class    string  `json:"class"`
	Decision string  `json:"decision"`
	Kind     string  `json:"kind"`
	Text     *string `json:"text"`
	ExitCode *int    `json:"exit_code"`
	// Env is the step's environment, for the sandboxes read from it.
	Env map[string]string `json:"env"`
	// KnownMiss, when set, says why retrywise gets this definite case
	// wrong (the text cannot tell): it is counted in the figures, not
	// asserted. A new one needs a reason a reviewer accepts.
	KnownMiss string `json:"known_miss"`
	// Now is when the failure happened (RFC 3339), for texts that state a
	// time (a lock's creation): the thread's date; empty means the clock's.
	Now  string `json:"now"`
	HTTP *struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    *string           `json:"body"`
	} `json:"http"`
}

// corpusFiles are the labelled failure texts: the shared corpora (git, curl,
// HTTP, proxies; agent CLIs, publishers, GitHub's actions) and the texts
// found for each tool family in its public issues (testdata/tools).
func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	files := []string{"testdata/corpus.jsonl", "testdata/corpus2.jsonl"}
	more, err := filepath.Glob("testdata/tools/*.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	return append(files, more...)
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	var out []corpusCase
	for _, name := range corpusFiles(tb) {
		out = append(out, loadCorpusFile(tb, name)...)
	}
	return out
}

func loadCorpusFile(tb testing.TB, name string) []corpusCase {
	tb.Helper()
	f, err := os.Open(name)
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
			tb.Fatalf("%s line %d: %v", name, n, err)
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
	in := Input{Tool: ToolAuto, ExitCode: NoExitCode, MaxElapsed: DefaultMaxElapsed}
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
	for k, v := range c.Env {
		in.Env = append(in.Env, k+"="+v)
	}
	if c.Text != nil {
		in.Text = *c.Text
	}
	if c.Now != "" {
		in.Now, _ = time.Parse(time.RFC3339, c.Now)
	}
	if c.HTTP != nil {
		// the corpus README: --status and the headers from http, whatever the kind
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

// TestCorpus classifies every labelled case (subtests TOOL/ID, so one
// family's cases run with -run 'TestCorpus/npm/'): a definite case must get
// its class and decision; an unknown-labelled case must stop unless listed
// in deliberateRetry. With -v it logs, per tool, the cases whose class and
// decision are right.
// classFromTextAlone lists definite cases whose class the text cannot show,
// with the reason; only their decision is checked.
var classFromTextAlone = map[string]string{
	// The same "Artifact not found for name" as p2-052 (absent); here the
	// artifact existed and a cross-run download lacked a token (policy).
	// Nothing in the text tells them apart; both stop.
	"p2-053": "download-artifact's not-found reads the same with and without a token",
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 124 {
		t.Fatalf("only %d corpus cases", len(cases))
	}
	type tally struct{ cases, class, decision, wasted int }
	per := map[string]*tally{}
	for _, c := range cases {
		tool := c.Tool
		if tool == "" {
			tool = "other"
		}
		if per[tool] == nil {
			per[tool] = &tally{}
		}
		tl := per[tool]
		t.Run(tool+"/"+c.ID, func(t *testing.T) {
			f := Classify(c.input())
			got := fmt.Sprintf("%s/%s %s (%s)", f.Class, f.Class.Decision(), f.Code, f.Reason)
			t.Logf("%s remedy=%q evidence=%q", got, f.Remedy, f.Evidence)
			if err := invariants(f); err != nil {
				t.Error(err)
			}
			tl.cases++
			if f.Class.String() == c.Class {
				tl.class++
			}
			if string(f.Class.Decision()) == c.Decision {
				tl.decision++
			} else if f.Class.Decision() == Retry {
				tl.wasted++
			}
			if c.Class == "unknown" {
				// Ambiguous: any class will do, but unrecognised is not
				// permission to retry: it must stop, unless listed above.
				_, retry := deliberateRetry[c.ID]
				if want := map[bool]Decision{true: Retry, false: Stop}[retry]; f.Class.Decision() != want {
					t.Errorf("want %s, got %s", want, got)
				}
				return
			}
			if c.KnownMiss != "" {
				return // counted above, not asserted: the text cannot tell
			}
			if _, ok := classFromTextAlone[c.ID]; ok && string(f.Class.Decision()) == c.Decision {
				return
			}
			if string(f.Class.Decision()) != c.Decision || f.Class.String() != c.Class {
				t.Errorf("want %s/%s, got %s", c.Class, c.Decision, got)
			}
		})
	}
	tools := make([]string, 0, len(per))
	for tool := range per {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		if tl := per[tool]; tl.cases > 0 {
			t.Logf("%-16s %3d cases: class %3d, decision %3d, wasted retries %d", tool, tl.cases, tl.class, tl.decision, tl.wasted)
		}
	}
}
