package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
)

// TestClassifyCorpus runs `retrywise classify --json` on every corpus case, as
// the corpus README says a case maps onto the command line. The CLI must give
// exactly the library's verdict for the same input (class, code, decision,
// reason, remedy and evidence, masked), and that verdict must be the case's
// label. Cases labelled unknown are ambiguous on purpose; which of them
// retrywise retries is the library's policy, checked by the failure
// package's corpus test, so here they only have to match the library.
func TestClassifyCorpus(t *testing.T) {
	files, err := filepath.Glob("../failure/testdata/tools/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range append([]string{"../failure/testdata/corpus.jsonl", "../failure/testdata/corpus2.jsonl"}, files...) {
		n += classifyCorpusFile(t, name)
	}
	if n < 124 {
		t.Fatalf("only %d corpus cases read", n)
	}
}

// classifyCorpusFile checks the cases of one corpus file and returns their number.
func classifyCorpusFile(t *testing.T, name string) int {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	red := redact.New(redact.Options{Env: os.Environ()})
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	n := 0
	for sc.Scan() {
		var c struct {
			ID, Class, Decision, Kind string
			Text                      *string
			Env                       map[string]string // the step's environment (sandboxes)
			KnownMiss                 string            `json:"known_miss"`
			ExitCode                  *int              `json:"exit_code"`
			HTTP                      *struct {
				Status  int
				Headers map[string]string
				Body    *string
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		in := failure.Input{Tool: failure.ToolAuto, ExitCode: failure.NoExitCode, Header: http.Header{}}
		args := []string{"classify", "--json", "--tool", "auto"}
		switch {
		case strings.HasPrefix(c.Kind, "git-"):
			args[3], in.Tool = "git", failure.ToolGit
		case strings.HasPrefix(c.Kind, "curl-"):
			args[3], in.Tool = "curl", failure.ToolCurl
		case c.Kind == "http-response":
			args[3], in.Tool = "http", failure.ToolHTTP
		}
		if c.ExitCode != nil {
			args = append(args, "--exit-code", fmt.Sprint(*c.ExitCode))
			in.ExitCode = *c.ExitCode
		}
		stdin := ""
		if c.Text != nil {
			stdin = *c.Text
		}
		if c.HTTP != nil { // the corpus README: --status and the headers from http, whatever the kind
			if c.HTTP.Status != 0 {
				args = append(args, "--status", fmt.Sprint(c.HTTP.Status))
				in.Status = c.HTTP.Status
			}
			keys := make([]string, 0, len(c.HTTP.Headers))
			for k := range c.HTTP.Headers {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				args = append(args, "--header", k+": "+c.HTTP.Headers[k])
				in.Header.Add(k, strings.TrimSpace(c.HTTP.Headers[k]))
			}
			if c.HTTP.Body != nil {
				stdin = *c.HTTP.Body
			}
		}
		in.Text = stdin
		var env []string
		for k, v := range c.Env {
			env = append(env, k+"="+v)
		}
		in.Env = append(os.Environ(), env...)
		r := runCLI(t, stdin, env, args...)
		if r.code != exitcode.OK {
			t.Errorf("%s: classify exited %d: %s", c.ID, r.code, r.stderr)
			continue
		}
		var got Classification
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		if err := dec.Decode(&got); err != nil || dec.More() {
			t.Errorf("%s: stdout is not exactly one JSON object (%v): %q", c.ID, err, r.stdout)
			continue
		}
		if (got.Decision == "retry") != (got.Class == failure.Transient) {
			t.Errorf("%s: decision %s inconsistent with class %s", c.ID, got.Decision, got.Class)
		}
		// every case has a code; a recognised class never carries "unknown"
		if !codePattern.MatchString(got.Code) || (got.Class != failure.Unknown && (got.Code == "unknown" || got.Code == "no-output")) {
			t.Errorf("%s: code %q for class %s", c.ID, got.Code, got.Class)
		}
		lib := failure.Classify(in)
		want := Classification{Class: lib.Class, Code: string(lib.Code), Decision: string(lib.Class.Decision()),
			Reason: red.String(lib.Reason), Remedy: red.String(lib.Remedy), Evidence: []string{}}
		for _, e := range lib.Evidence {
			want.Evidence = append(want.Evidence, red.String(e))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the CLI says\n  %+v\nthe library says\n  %+v", c.ID, got, want)
			continue
		}
		// the labels' classes are the failure package's corpus test; the
		// decision must hold here too
		if c.Class != "unknown" && c.KnownMiss == "" && got.Decision != c.Decision {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", c.ID, got.Class, got.Decision, got.Reason, c.Class, c.Decision)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

var codePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func TestClassifyContract(t *testing.T) {
	tests := []struct {
		name      string
		stdin     string
		args      []string
		wantCode  int
		wantClass string
		wantKind  string // the "code" field
	}{
		{"empty input", "", nil, 0, "unknown", "no-output"},
		{"status without body", "", []string{"--status", "503"}, 0, "transient", "http-503"},
		{"http tool without status", "some body", []string{"--tool", "http"}, 0, "unknown", "unknown"},
		{"404 lookup", "", []string{"--status", "404"}, 0, "absent", "http-404"},
		{"404 on POST", "", []string{"--status", "404", "--method", "POST"}, 0, "structural", "http-404"},
		{"rate limit 403", `{"message":"API rate limit exceeded for 1.2.3.4."}`, []string{"--status", "403", "--header", "X-RateLimit-Remaining: 0"}, 0, "transient", "rate-limited"},
		{"429, a wait within the default max elapsed", "", []string{"--status", "429", "--header", "Retry-After: 60"}, 0, "transient", "http-429"},
		{"429, a reset six hours away: as a step would, stop", "", []string{"--status", "429", "--header", "Retry-After: 21600"}, 0, "policy", "rate-limit-window"},
		{"Docker Hub's six-hour window", "", []string{"--status", "429", "--header", "RateLimit-Limit: 100;w=21600", "--header", "RateLimit-Remaining: 0;w=21600"}, 0, "policy", "rate-limit-window"},
		{"a stated wait of a day in text", "Error! Builds rate limit exceeded (0 of 100 remaining). Try again in 24h", nil, 0, "policy", "quota-exhausted"},
		{"bad tool", "", []string{"--tool", "svn"}, exitcode.Usage, "", ""},
		{"bad header", "", []string{"--header", "nocolon"}, exitcode.Usage, "", ""},
		{"bad status", "", []string{"--status", "42"}, exitcode.Usage, "", ""},
		{"bad exit code", "", []string{"--exit-code", "x"}, exitcode.Usage, "", ""},
		{"stray argument", "", []string{"text"}, exitcode.Usage, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, tt.stdin, nil, append([]string{"classify", "--json"}, tt.args...)...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", r.code, tt.wantCode, r.stderr)
			}
			if tt.wantCode != 0 {
				return
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("not JSON: %q", r.stdout)
			}
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if strings.Join(keys, ",") != "class,code,decision,evidence,reason,remedy" {
				t.Errorf("keys = %v, want exactly class, code, decision, reason, remedy, evidence", keys)
			}
			if got["class"] != tt.wantClass || got["code"] != tt.wantKind {
				t.Errorf("class, code = %v, %v; want %s, %s", got["class"], got["code"], tt.wantClass, tt.wantKind)
			}
		})
	}
	// The human form explains the same verdict.
	r := runCLI(t, " ! [rejected]        main -> main (non-fast-forward)\n", nil, "classify", "--tool", "git")
	if r.code != 0 || !strings.Contains(r.stdout, "class:    structural") || !strings.Contains(r.stdout, "decision: stop") {
		t.Errorf("human output:\n%s", r.stdout)
	}
}

// TestClassifyMasksProxyCredentials: the text explained may quote the
// proxy's user and password; like every command, classify masks them.
func TestClassifyMasksProxyCredentials(t *testing.T) {
	env := []string{"HTTPS_PROXY=http://egress-user:Pr0xyPassw0rd@127.0.0.1:3128"}
	for _, args := range [][]string{{"classify", "--tool", "curl", "--exit-code", "56"}, {"classify", "--json", "--tool", "curl", "--exit-code", "56"}} {
		r := runCLI(t, "curl: (56) Proxy CONNECT aborted for egress-user with Pr0xyPassw0rd\n", env, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "proxy-connect-aborted") {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "Pr0xyPassw0rd") || strings.Contains(r.stdout, "egress-user") {
			t.Errorf("%v leaked the proxy credentials:\n%s", args, r.stdout)
		}
	}
}

// TestClassifyTextSaysWhy: the human form's decision line says why; "the
// same answer" is the claim of a decided stop, never of an unknown failure.
func TestClassifyTextSaysWhy(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"unknown", "something odd happened\n", nil, "decision: stop (not recognised, so not retried; --on-unknown retry would retry it)\n"},
		{"no output", "", nil, "decision: stop (not recognised, so not retried; --on-unknown retry would retry it)\n"},
		{"recognised, undecided", "curl: (23) Failure writing output to destination\n", []string{"--tool", "curl", "--exit-code", "23"}, "decision: stop (not known to pass on a retry, so not retried; --on-unknown retry would retry it)\n"},
		{"structural", " ! [rejected]        main -> main (non-fast-forward)\n", []string{"--tool", "git"}, "decision: stop (sending the same request again would get the same answer)\n"},
		{"transient", "curl: (28) Operation timed out\n", nil, "decision: retry (sending the same request again may succeed)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, tt.stdin, nil, append([]string{"classify"}, tt.args...)...)
			if r.code != 0 || !strings.Contains(r.stdout, tt.want) {
				t.Errorf("exit %d, want a line %q:\n%s", r.code, tt.want, r.stdout)
			}
		})
	}
}

// TestControlBytesShownEscaped: escape sequences and other controls from a
// tool's output reach neither the terminal nor the report as bytes: classify
// (text and JSON) and an exec step's report show them escaped (\x1b).
func TestControlBytesShownEscaped(t *testing.T) {
	const out = "\x1b[2J\x1b]0;title\x07\x1b[31mboom\x1b[0m \x9b \u009b\x7f\x08 done\n"
	const want = `\x1b[2J\x1b]0;title\x07\x1b[31mboom\x1b[0m \x9b \u009b\x7f\x08 done`
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"classify", out, []string{"classify"}},
		{"classify --json", out, []string{"classify", "--json"}},
		{"exec report", "", []string{"exec", "--", "sh", "-c", `printf '\033[2J\033]0;title\007\033[31mboom\033[0m \233 \302\233\177\010 done\n' >&2; exit 3`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, tt.stdin, nil, tt.args...)
			shown := r.stdout
			if tt.args[0] == "exec" {
				// the child's own stderr passes through as it is; the report follows it
				_, shown, _ = strings.Cut(r.stderr, "retrywise exec failed")
			}
			if tt.name == "classify --json" {
				var c Classification
				if err := json.Unmarshal([]byte(shown), &c); err != nil || len(c.Evidence) != 1 || c.Evidence[0] != want {
					t.Errorf("evidence %q (%v), want %q", c.Evidence, err, want)
				}
			} else if !strings.Contains(shown, "evidence: "+want+"\n") {
				t.Errorf("no escaped evidence line %q:\n%s", want, shown)
			}
			if strings.ContainsAny(shown, "\x1b\x07\x7f\x08") || strings.Contains(shown, "\u009b") {
				t.Errorf("control bytes reach the terminal: %q", shown)
			}
		})
	}
}
