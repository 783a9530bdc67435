package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// hostile are texts an API, a server or another workflow chooses: each
// tries to set an output, mask a value or annotate the step through the log.
var hostile = []string{
	"\n::set-output name=evil::1",
	"\n::add-mask::transient",
	"\n::add-mask::policy",
	"\n::add-mask::retrywise-report",
	"::error::x",
	"%0A::warning::x",
	"##[set-output name=evil;]1",
}

// ownCommand matches the workflow commands retrywise itself writes.
var ownCommand = regexp.MustCompile(`^::(add-mask::ghp_explainTestToken|group::|endgroup::$|stop-commands::[0-9a-f]{32}$|[0-9a-f]{32}::$|error title=retrywise|warning title=retrywise)`)

// readAsCommand reports whether the runner reads line as a workflow
// command: a "::" after leading blanks, or the legacy "##[" anywhere.
func readAsCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}

// checkOnlyOwnCommands fails for every line of log the runner would read as
// a command that retrywise did not mean; with outsideStop, only the lines
// outside ::stop-commands:: are checked (a server's own output is inside).
func checkOnlyOwnCommands(t *testing.T, log string, outsideStop bool) {
	t.Helper()
	token := ""
	for _, line := range strings.Split(log, "\n") {
		switch {
		case token == "" && strings.HasPrefix(line, "::stop-commands::"):
			token = strings.TrimPrefix(line, "::stop-commands::")
			continue
		case token != "" && line == "::"+token+"::":
			token = ""
			continue
		}
		if outsideStop && token != "" {
			continue
		}
		if readAsCommand(line) && !ownCommand.MatchString(line) {
			t.Errorf("the log holds a command retrywise did not mean: %q", line)
		}
	}
}

// checkOwnOutputs fails unless the outputs retrywise sets show as they are:
// no value an outsider named masks them, and no output of its naming exists.
func checkOwnOutputs(t *testing.T, s *actionStep, class string) {
	t.Helper()
	out := s.outputs()
	if _, ok := out["evil"]; ok {
		t.Errorf("an outsider set the output evil: %v", out)
	}
	if out["class"] != class {
		t.Errorf("output class = %q, want %q", out["class"], class)
	}
	if !strings.Contains(out["report"], "retrywise-report-") || strings.Contains(out["report"], "***") {
		t.Errorf("output report = %q, want the report's path unmasked", out["report"])
	} else if _, err := os.Stat(out["report"]); err != nil {
		t.Errorf("output report: %v", err)
	}
	for n, v := range out {
		if strings.Contains(v, "***") && n != "outputs" {
			t.Errorf("output %s = %q is masked", n, v)
		}
	}
}

// hostileExplainServer is a GitHub whose run 7 of o/r failed in jobs and
// steps named by an attacker, with logs and an API message of theirs.
func hostileExplainServer(t *testing.T, hits *atomic.Int32) string {
	logs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "2026-11-30T10:00:02.2000000Z ##[group]Run npm publish")
		fmt.Fprintln(w, "2026-11-30T10:00:02.2100000Z npm publish")
		fmt.Fprintln(w, "2026-11-30T10:00:02.2200000Z ##[endgroup]")
		for _, h := range hostile {
			fmt.Fprintf(w, "2026-11-30T10:00:03.0000000Z %s\n", strings.TrimPrefix(h, "\n"))
		}
		fmt.Fprintln(w, "2026-11-30T10:00:03.5000000Z npm error code ECONNRESET")
		fmt.Fprintln(w, "2026-11-30T10:00:03.5100000Z npm error network aborted ::add-mask::transient")
		fmt.Fprintln(w, "2026-11-30T10:00:03.6000000Z ##[error]Process completed with exit code 1.")
	}))
	t.Cleanup(logs.Close)
	name := strings.Join(hostile, " ")
	jsonName := func(s string) string { return strings.ReplaceAll(fmt.Sprintf("%q", s), `\x`, `\u00`) }
	var runReads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/actions/runs/7":
			if runReads.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, `{"message":%s}`, jsonName("busy"+name))
				return
			}
			fmt.Fprintf(w, `{"id":7,"name":%s,"status":"completed","conclusion":"failure","run_attempt":1}`, jsonName("publish"+name))
		case "/repos/o/r/actions/runs/7/jobs":
			fmt.Fprintf(w, `{"total_count":2,"jobs":[
				{"id":70,"name":%s,"status":"completed","conclusion":"failure","steps":[
				{"name":"Set up job","conclusion":"success","number":1,"started_at":"2026-11-30T10:00:00Z","completed_at":"2026-11-30T10:00:02Z"},
				{"name":%s,"conclusion":"failure","number":2,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]},
				{"id":71,"name":%s,"status":"completed","conclusion":"failure","steps":[
				{"name":%s,"conclusion":"failure","number":1,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`,
				jsonName("build"+hostile[0]), jsonName("npm"+hostile[1]+hostile[3]), jsonName(hostile[4]), jsonName(hostile[5]+hostile[6]))
		case "/repos/o/r/actions/jobs/70/logs", "/repos/o/r/actions/jobs/71/logs":
			w.Header().Set("Location", logs.URL+"/log.txt")
			w.WriteHeader(http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestActionExplainHostileTextIsData: in explain mode, job and step names,
// log lines and an API message chosen by an attacker are printed as data:
// they set no output, mask none of retrywise's own outputs, and no line of
// the log is a command retrywise did not write.
func TestActionExplainHostileTextIsData(t *testing.T) {
	var hits atomic.Int32
	api := hostileExplainServer(t, &hits)
	s := newActionStep(t)
	s.env = append(s.env, "GITHUB_API_URL="+api)
	s.inputs["explain"], s.inputs["token"] = "https://github.com/o/r/actions/runs/7", explainToken
	s.run()
	if s.code != exitcode.Transient {
		t.Fatalf("exit %d, want 75:\n%s", s.code, s.stdout)
	}
	checkOnlyOwnCommands(t, s.stdout, false)
	checkOwnOutputs(t, s, "transient")
	if !strings.Contains(s.stdout, "%0A%3A:set-output") && !strings.Contains(s.stdout, "%0A::set-output") {
		t.Errorf("the hostile name is not shown escaped:\n%s", s.stdout)
	}
	if n := commands(s.stdout, "add-mask"); n != 1 {
		t.Errorf("%d add-mask lines, want the token's alone:\n%s", n, s.stdout)
	}
}

// TestActionConfigServerTextIsData: in config mode, what a server answers
// (an http step's body, quoted as evidence) masks none of retrywise's own
// outputs and sets none, and outside stop-commands no line of the log is a
// command retrywise did not write.
func TestActionConfigServerTextIsData(t *testing.T) {
	body := strings.Join(hostile, "\n") + "\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	s := newActionStep(t)
	cfg := filepath.Join(s.dir, "job.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
jobs:
  nightly:
    steps:
      - id: call
        http:
          url: %s/item
`, srv.URL)), 0o644)
	s.inputs["config"] = cfg
	s.run()
	if s.code != exitcode.Policy {
		t.Fatalf("exit %d, want 77:\n%s", s.code, s.stdout)
	}
	checkOnlyOwnCommands(t, s.stdout, true)
	checkOwnOutputs(t, s, "policy")
}

// TestActionConfigHostileNamesAreData: a job file whose job and step names
// carry commands, and a job input that does, run nothing and print them
// only as data: no output is set, and no line of the log is a command.
func TestActionConfigHostileNamesAreData(t *testing.T) {
	s := newActionStep(t)
	cfg := filepath.Join(s.dir, "job.yml")
	var b strings.Builder
	b.WriteString("version: 1\njobs:\n")
	for i, h := range hostile {
		fmt.Fprintf(&b, "  %q:\n    steps:\n      - id: %q\n        exec: {command: [sh, -c, \"exit 3\"]}\n", "build"+h, fmt.Sprint("s", i, h))
	}
	b.WriteString("  ok:\n    steps:\n      - id: first\n        exec: {command: [sh, -c, \"exit 3\"]}\n")
	os.WriteFile(cfg, []byte(b.String()), 0o644)
	s.inputs["config"] = cfg
	s.run()
	if s.code != exitcode.Config {
		t.Fatalf("exit %d, want 78:\n%s", s.code, s.stdout)
	}
	checkOnlyOwnCommands(t, s.stdout, false)
	if out := s.outputs(); out["evil"] != "" {
		t.Errorf("outputs = %v", out)
	}

	os.WriteFile(cfg, []byte("version: 1\njobs:\n  ok:\n    steps:\n      - id: first\n        exec: {command: [sh, -c, \"exit 3\"]}\n"), 0o644)
	for _, h := range hostile {
		s := newActionStep(t)
		s.inputs["config"], s.inputs["job"] = cfg, "ok"+h
		s.run()
		if s.code != exitcode.Usage {
			t.Errorf("job %q: exit %d, want 64:\n%s", h, s.code, s.stdout)
		}
		checkOnlyOwnCommands(t, s.stdout, false)
	}
}

// TestActionConfigStepAddMaskReachesTheRunner: in config mode a step's
// child may still ask the runner to mask a value: its own ::add-mask:: line
// reaches the runner as written, and the value shows nowhere else.
func TestActionConfigStepAddMaskReachesTheRunner(t *testing.T) {
	s := newActionStep(t)
	cfg := filepath.Join(s.dir, "job.yml")
	os.WriteFile(cfg, []byte(`version: 1
jobs:
  j:
    steps:
      - id: child
        exec:
          run: |
            v=$(printf 'Job-Step-%s' V4lue)
            echo "::add-mask::$v"
            echo "value is $v"
            exit 3
`), 0o644)
	s.inputs["config"] = cfg
	s.run()
	if s.code == exitcode.OK {
		t.Fatalf("exit 0:\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout, "\n::add-mask::Job-Step-V4lue\n") {
		t.Errorf("the child's add-mask did not reach the runner:\n%s", s.stdout)
	}
	if n := strings.Count(s.stdout, "Job-Step-V4lue"); n != 1 {
		t.Errorf("the value shows %d times, want in its add-mask line alone:\n%s", n, s.stdout)
	}
	if out := s.outputs(); out["class"] != "unknown" {
		t.Errorf("outputs = %v", out)
	}
}

// TestActionCommandsStartTheirOwnLine: output that ends in the middle of
// a line cannot swallow the command that follows it (the group's end, the
// resume of commands, the annotation): each of retrywise's commands starts
// a line of its own.
func TestActionCommandsStartTheirOwnLine(t *testing.T) {
	s := newActionStep(t)
	s.inputs["run"] = `printf 'left open'; printf 'also open' >&2; exit 3`
	s.run()
	if !strings.Contains(s.stdout, "left open") {
		t.Fatalf("the output is not in the log:\n%s", s.stdout)
	}
	stops, resumes := 0, 0
	for _, line := range strings.Split(s.stdout, "\n") {
		if strings.HasPrefix(line, "::stop-commands::") {
			stops++
		}
		if regexp.MustCompile(`^::[0-9a-f]{32}::$`).MatchString(line) {
			resumes++
		}
	}
	if stops != 1 || resumes != 1 || commands(s.stdout, "group") != 1 || commands(s.stdout, "endgroup") != 1 || commands(s.stdout, "error") != 1 {
		t.Errorf("%d stop-commands, %d resumes, %d groups, %d ends, %d errors, each on a line of its own:\n%s",
			stops, resumes, commands(s.stdout, "group"), commands(s.stdout, "endgroup"), commands(s.stdout, "error"), s.stdout)
	}
}

// TestActionDryRunPlanIsData: the plan of a dry run quotes the job file;
// none of its lines is a command.
func TestActionDryRunPlanIsData(t *testing.T) {
	s := newActionStep(t)
	cfg := filepath.Join(s.dir, "job.yml")
	os.WriteFile(cfg, []byte(`version: 1
jobs:
  j:
    env:
      NOTE: "x\n::set-output name=evil::1"
    steps:
      - id: first
        exec:
          command: ["::error::x", "\n::add-mask::transient", "##[warning]y"]
      - id: second
        http:
          url: "http://127.0.0.1:9/::error::x"
          header: ["X-Note: a\n::warning::b"]
`), 0o644)
	s.inputs["config"], s.inputs["dry-run"] = cfg, "true"
	s.run()
	if s.code != exitcode.OK || !strings.Contains(s.stdout, "plan of job j") {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	checkOnlyOwnCommands(t, s.stdout, false)
}
