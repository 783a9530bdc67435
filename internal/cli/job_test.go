package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/demo"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/report/reporttest"
	"github.com/retrywise/retrywise/internal/step"
)

// sampleValues are valid values of the flags whose default is empty (or
// not a valid setting on its own), for the parity test.
var sampleValues = map[string]string{
	"method": "GET", "header": "X-A: b", "data": "x", "data-file": "body.json", "expect": "200", "output": "out.txt",
	"field": "id=.id", "mask": "s3cr3t-value", "retry-on": "flaky", "stop-on": "fatal", "retry-on-exit": "3", "stop-on-exit": "4",
	"token": "${GITHUB_TOKEN}", "dir": ".", "egress-canary": "example.com:443", "schedule": "1s,2s", "max-attempts": "2",
	"timeout": "5s", "auth-recheck": "1s", "jitter": "0.3", "rebase-on-reject": "1", "max-wait": "1m",
	"rules": "testdata/rules.yml", "hosts": "example.com:443", "outputs": "url,id",
	"on-retry": "rm -rf build", "continue-with": "agent resume", "context-from": `session id: (\S+)`,
}

// yamlValue renders a sample value for a key of type t.
func yamlValue(t step.Type, v string) string {
	switch t {
	case step.List:
		return fmt.Sprintf("[%q]", v)
	case step.Bool, step.Int:
		return v
	}
	return fmt.Sprintf("%q", v)
}

// TestJobKeysMatchFlags walks every flag of every step command and proves
// the job file takes it under its name, in its place (the kind's settings,
// retry: or defaults), and that every key a kind takes is a flag or one of
// the positional keys the kind names: the two cannot drift.
func TestJobKeysMatchFlags(t *testing.T) {
	f, _, _, _ := testFactory(os.Environ())
	positional := map[string][]string{"exec": {"command", "run", "shell"}, "push": {"args"}, "http": {"url"}, "probe": {"targets"}, "github-quota": nil}
	for _, k := range step.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			fs := newFlagSet(k.Name, k.Synopsis)
			step.Flags(fs, k.Fields())
			type fileKey struct {
				*step.Field
				place string
			}
			var keys []fileKey
			fs.VisitAll(func(fl *flag.Flag) {
				fd := step.Lookup(k.Fields(), fl.Name)
				switch {
				case len(fl.Name) == 1: // a short alias
				case fd == nil:
					t.Errorf("flag --%s has no field", fl.Name)
				case fd.Place == step.Command:
					if fl.Name != "report" {
						t.Errorf("flag --%s is not accepted by the job file", fl.Name)
					}
				default:
					place := map[step.Place]string{step.Own: "step", step.Retry: "retry", step.Egress: "defaults"}[fd.Place]
					keys = append(keys, fileKey{&step.Field{Name: fl.Name, Type: keyType(fd), Default: fd.Default}, place})
				}
			})
			var fileKeys []string
			for _, key := range jobs.StepKind(k).Keys() {
				fileKeys = append(fileKeys, key.Name)
				if key.Positional {
					if !slices.Contains(positional[k.Name], key.Name) {
						t.Errorf("key %s is neither a flag nor a positional argument of %s", key.Name, k.Name)
					}
				} else if fs.Lookup(key.Name) == nil {
					t.Errorf("key %s is not a flag of %s", key.Name, k.Name)
				}
			}
			for _, want := range positional[k.Name] {
				if !slices.Contains(fileKeys, want) {
					t.Errorf("positional key %s missing", want)
				}
			}
			for _, fk := range keys {
				v := fk.Default
				if s, ok := sampleValues[fk.Name]; ok || v == "" || v == "[]" || v == "0" || v == "0s" {
					v = s
				}
				if fk.Type == step.Bool {
					v = "true"
				}
				if v == "" {
					t.Fatalf("no sample value for --%s", fk.Name)
				}
				var stepKey, retry, defaults string
				switch fk.place {
				case "retry":
					retry = fmt.Sprintf("        retry: {%s: %s}\n", fk.Name, yamlValue(fk.Type, v))
				case "defaults":
					defaults = fmt.Sprintf("defaults:\n  %s: %s\n", fk.Name, yamlValue(fk.Type, v))
				default:
					stepKey = fmt.Sprintf("%s: %s", fk.Name, yamlValue(fk.Type, v))
				}
				if fk.Name == "context-from" {
					stepKey += `, continue-with: "agent resume"`
				}
				settings := minimalSettings(k.Name)
				if settings != "" && stepKey != "" {
					settings += ", "
				}
				src := fmt.Sprintf("version: 1\n%sjobs:\n  j:\n    steps:\n      - id: s\n        %s: {%s%s}\n%s", defaults, k.Name, settings, stepKey, retry)
				if fk.Name == "data-file" || fk.Name == "data" {
					src = strings.Replace(src, "{url:", "{method: POST, url:", 1)
				}
				if _, errs, err := f.loadJobSource(context.Background(), "job.yml", []byte(src)); err != nil || len(errs) > 0 {
					t.Errorf("--%s (%s) is not accepted in a job file:\n%s\n%v %v", fk.Name, fk.place, src, err, errs)
				}
			}
		})
	}
}

// keyType is a field's key type in a job file.
func keyType(fd *step.Field) step.Type {
	for _, k := range jobs.Steps().Retry {
		if k.Name == fd.Name {
			return k.Type
		}
	}
	for _, k := range jobs.Steps().Run {
		if k.Name == fd.Name {
			return k.Type
		}
	}
	for _, kd := range step.Kinds() {
		for _, k := range jobs.StepKind(kd).Keys() {
			if k.Name == fd.Name {
				return k.Type
			}
		}
	}
	return step.String
}

// minimalSettings are a kind's required keys.
func minimalSettings(kind string) string {
	switch kind {
	case "exec":
		return "command: [true]"
	case "push":
		return "args: [origin, main]"
	case "http":
		return `url: "https://example.com/x"`
	case "probe":
		return "targets: [example.com]"
	}
	return ""
}

// jobRun runs `retrywise ARGS` in-process in dir with a fake clock; the
// JSON report, when asked for with --report, is validated against the schema.
func jobRun(t *testing.T, p *proc, dir string, args ...string) prun {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	r := p.run(args...)
	for i, a := range args {
		if a == "--report" && i+1 < len(args) {
			if _, err := os.Stat(filepath.Join(dir, args[i+1])); err == nil {
				reporttest.ValidateFile(t, filepath.Join(dir, args[i+1]))
			}
		}
	}
	return r
}

// readRun decodes a run's JSON report.
func readRun(t *testing.T, path string) *report.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Run
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return &r
}

// stepResults lists "id=result" for every step.
func stepResults(r *report.Run) []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.ID+"="+string(s.Result))
	}
	return out
}

// TestJobRun runs a job of http, exec and push steps against local
// servers: outputs pass from step to step (a jq field into an exec step's
// env, the exec step's $RETRYWISE_OUTPUT into a POST's body), a step whose
// if: is false is skipped, and the report records every step.
func TestJobRun(t *testing.T) {
	api := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/published":
			io.WriteString(w, `[{"id":1},{"id":2},{"id":3}]`)
		case r.Method == http.MethodPost && r.URL.Path == "/articles":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":42}`)
		default:
			w.WriteHeader(http.StatusTeapot)
		}
	})
	fx := newPushFixture(t)
	dir := t.TempDir()
	job := fmt.Sprintf(`version: 1
defaults:
  retry: {schedule: [1s], max-elapsed: 1m}
  secrets: [DEVTO_API_KEY]
jobs:
  publish:
    steps:
      - id: quota
        http: {url: "%[1]s/published", header: ["api-key: ${DEVTO_API_KEY}"], field: ["count=length"]}
      - id: note
        env: {COUNT: "${steps.quota.outputs.count}"}
        exec:
          run: |
            echo "writing the note for $COUNT articles"
            echo "msg=published $COUNT so far" >> "$RETRYWISE_OUTPUT"
      - id: post
        if: steps.quota.outcome == "success" && steps.quota.outputs.count < 10
        http: {url: "%[1]s/articles", method: POST, data: "${steps.note.outputs.msg}", field: ["id=.id"], header: ["api-key: ${DEVTO_API_KEY}"]}
      - id: never
        if: failure()
        exec: {command: [false]}
      - id: log
        push: {dir: "%[2]s", args: [origin, main]}
        retry: {schedule: [2s, 4s, 8s, 16s]}
`, api.URL, fx.work)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	const key = "devto-key-1234567890abcdef"
	p := newProc(t, append(fx.env, "DEVTO_API_KEY="+key)...)
	r := jobRun(t, p, dir, "run", "--report", "r.json", "--summary", "s.md")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if got, want := stepResults(rep), []string{"quota=success", "note=success", "post=success", "never=skipped", "log=success"}; !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if rep.Version != report.Version || rep.Run.Job != "publish" || rep.Run.Result != report.Success || rep.Run.ExitCode != 0 {
		t.Errorf("run = %+v", rep.Run)
	}
	if got := rep.Step("quota").Outputs["count"]; got != 3.0 {
		t.Errorf("quota count = %v", got)
	}
	if got := rep.Step("note").Outputs["msg"]; got != "published 3 so far" {
		t.Errorf("note msg = %v", got)
	}
	if got := rep.Step("post").Outputs["id"]; got != 42.0 {
		t.Errorf("post id = %v", got)
	}
	if got := rep.Step("log").Outputs["pushed"]; got != true {
		t.Errorf("log pushed = %v", got)
	}
	if !strings.Contains(rep.Step("never").Detail, "failure()") {
		t.Errorf("skipped step's detail = %q", rep.Step("never").Detail)
	}
	if p := rep.Step("log").Policy; p.MaxAttempts != 5 || p.Schedule[0] != 2*time.Second {
		t.Errorf("log policy = %v, want the step's own schedule", p)
	}
	api.mu.Lock()
	bodies := slices.Clone(api.bodies)
	api.mu.Unlock()
	if !slices.Contains(bodies, "published 3 so far") {
		t.Errorf("the POST did not carry the exec step's output: %q", bodies)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "s.md"))
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	for name, text := range map[string]string{"stderr": r.stderr, "report": string(raw), "summary": string(md), "stdout": r.stdout} {
		if strings.Contains(text, key) {
			t.Errorf("the secret appears in %s", name)
		}
	}
	if !strings.Contains(r.stdout, "writing the note for 3 articles") {
		t.Errorf("the script's output was not relayed:\n%s", r.stderr+r.stdout)
	}
}

// TestJobBreakerAcrossSteps: one breaker registry per run. A 404 guess
// storm with absent-ok never opens it; a 500 outage across five steps sends
// 3 requests in all (the threshold), then the later steps short-circuit.
func TestJobBreakerAcrossSteps(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, `{"ok":true}`)
		case "/down":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	var b strings.Builder
	b.WriteString("version: 1\ndefaults:\n  retry: {schedule: [1s], max-attempts: 1}\n  breaker-threshold: 3\njobs:\n  storm:\n    steps:\n")
	for i := range 6 {
		fmt.Fprintf(&b, "      - {id: guess%d, http: {url: \"%s/guess/%d\", absent-ok: true}}\n", i, srv.URL, i)
	}
	fmt.Fprintf(&b, "      - {id: read, http: {url: \"%s/ok\"}}\n", srv.URL)
	b.WriteString("  outage:\n    steps:\n")
	for i := range 5 {
		fmt.Fprintf(&b, "      - {id: down%d, continue-on-error: true, http: {url: \"%s/down\"}}\n", i, srv.URL)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(b.String()), 0o644)

	p := newProc(t)
	r := jobRun(t, p, dir, "run", "--job", "storm", "--report", "storm.json")
	if r.code != exitcode.OK || srv.hits.Load() != 7 {
		t.Fatalf("storm: exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
	}
	for _, s := range readRun(t, filepath.Join(dir, "storm.json")).Steps[:6] {
		if s.Result != report.Success || s.Outputs["found"] != false {
			t.Errorf("guess %s = %s found %v", s.ID, s.Result, s.Outputs["found"])
		}
	}

	before := srv.hits.Load()
	p = newProc(t)
	r = jobRun(t, p, dir, "run", "--job", "outage", "--report", "outage.json")
	if got := srv.hits.Load() - before; got != 3 {
		t.Errorf("outage: %d requests reached the server, want 3 (the breaker's threshold)", got)
	}
	rep := readRun(t, filepath.Join(dir, "outage.json"))
	if r.code != exitcode.OK {
		t.Errorf("continue-on-error steps failed the job: exit %d", r.code)
	}
	for i, s := range rep.Steps {
		want := "http-500"
		if i >= 3 {
			want = "breaker-open"
		}
		if s.Result != report.Failure || string(s.Code) != want {
			t.Errorf("%s: %s %s, want failure %s", s.ID, s.Result, s.Code, want)
		}
	}
}

// TestJobFailureSkipsAndExitCode: a failing step without continue-on-error
// fails the job with its code; later steps are skipped unless their if:
// says failure() or always().
func TestJobFailureSkipsAndExitCode(t *testing.T) {
	dir := t.TempDir()
	job := `version: 1
defaults:
  retry: {schedule: [1s]}
jobs:
  j:
    steps:
      - id: tolerated
        continue-on-error: true
        exec: {command: [sh, -c, "echo 'HTTP/1.1 422 Unprocessable Entity' >&2; exit 22"]}
      - id: nff
        exec: {command: [sh, -c, "echo ' ! [rejected]        main -> main (non-fast-forward)' >&2; exit 1"]}
      - id: skipped
        exec: {command: [sh, -c, "echo should-not-run"]}
      - id: cleanup
        if: failure()
        exec: {command: [sh, -c, "echo cleaning-up"]}
      - id: last
        if: always() && steps.nff.class == "structural"
        exec: {command: [sh, -c, "echo always-ran"]}
`
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	if r.code != exitcode.Structural {
		t.Fatalf("exit %d, want 65 (the first failing step's)\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if got, want := stepResults(rep), []string{"tolerated=failure", "nff=failure", "skipped=skipped", "cleanup=success", "last=success"}; !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if !rep.Steps[0].ContinueOnError || rep.Run.Result != report.Failure {
		t.Errorf("report = %+v", rep.Run)
	}
	if strings.Contains(r.stdout, "should-not-run") || !strings.Contains(r.stdout, "cleaning-up") || !strings.Contains(r.stdout, "always-ran") {
		t.Errorf("stdout = %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "job j failed at step nff (exit 65): structural") {
		t.Errorf("no headline:\n%s", r.stderr)
	}
}

// TestJobTimeout: the job's timeout, on the run's clock, cancels the running
// step during its wait, skips the rest and ends with 75.
func TestJobTimeout(t *testing.T) {
	dir := t.TempDir()
	job := `version: 1
jobs:
  j:
    timeout: 30s
    steps:
      - id: slow
        retry: {schedule: [20s, 20s], max-elapsed: 5m}
        exec: {command: [sh, -c, "echo 'curl: (28) Operation timed out' >&2; exit 28"]}
      - id: after
        exec: {command: ["true"]}
`
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	if r.code != exitcode.Transient {
		t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if got, want := stepResults(rep), []string{"slow=cancelled", "after=skipped"}; !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if !strings.Contains(rep.Run.Detail, "timeout of 30s") || rep.Steps[0].ExitCode != exitcode.Transient {
		t.Errorf("run = %+v, step exit %d", rep.Run, rep.Steps[0].ExitCode)
	}
}

// TestJobCancelledDuringWait: SIGTERM during a step's wait cancels the run
// (not the hour's wait); the report is still written, the running step cancelled,
// the rest not started.
func TestJobCancelledDuringWait(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	job := `version: 1
jobs:
  j:
    steps:
      - id: flaky
        retry: {schedule: [1h], max-elapsed: 2h, jitter: 0}
        exec: {command: [sh, -c, "echo 'curl: (28) Operation timed out' >&2; exit 28"]}
      - id: after
        exec: {command: ["true"]}
`
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte(job), 0o644)
	cmd := exec.Command(bin, "run", "--config", "job.yml", "--report", "r.json")
	cmd.Dir = dir
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "retrying in 1h0m0s")
	// The wait is an hour: exiting within stopLimit is the signal's event.
	if code := stopWithin(t, cmd, &stderr, syscall.SIGTERM, stopLimit); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143\n%s", code, stderr.String())
	}
	reporttest.ValidateFile(t, filepath.Join(dir, "r.json"))
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if got, want := stepResults(rep), []string{"flaky=cancelled", "after=cancelled"}; !slices.Equal(got, want) || rep.Run.Result != report.Cancelled {
		t.Errorf("steps = %v (run %s), want %v", got, rep.Run.Result, want)
	}
}

// TestValidate: every error of an invalid file with its position and fix,
// as text and as JSON; a valid file is one line; run refuses an invalid
// file and runs nothing.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	bad := `version: 1
jobs:
  j:
    steps:
      - id: quota
        http: {url: "https://example.com", timeout: soon}
      - id: post
        if: steps.qouta.outcome == "success"
        http: {url: "https://example.com", egress-status-url: off}
      - id: quota
        exec: {command: [sh, -c, "touch ran"]}
`
	os.WriteFile(filepath.Join(dir, "bad.yml"), []byte(bad), 0o644)
	r := jobRun(t, newProc(t), dir, "validate", "--config", "bad.yml")
	if r.code != exitcode.Config {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"bad.yml:6:", "timeout", "bad.yml:8:", "quota", "bad.yml:9:", "defaults", "bad.yml:10:", "already used"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = jobRun(t, newProc(t), dir, "validate", "--config", "bad.yml", "--format", "json")
	var findings []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &findings); err != nil || len(findings) < 4 || r.code != exitcode.Config {
		t.Errorf("json: exit %d, %v: %s", r.code, err, r.stdout)
	}
	r = jobRun(t, newProc(t), dir, "run", "--config", "bad.yml")
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil || r.code != exitcode.Config {
		t.Errorf("run of an invalid file: exit %d, and a step ran", r.code)
	}
	os.WriteFile(filepath.Join(dir, "good.yml"), []byte("version: 1\njobs:\n  a: {steps: [{id: x, exec: {command: [\"true\"]}}]}\n  b: {steps: [{id: y, exec: {run: \"true\"}}, {id: z, probe: {targets: [example.com]}}]}\n"), 0o644)
	r = jobRun(t, newProc(t), dir, "validate", "--config", "good.yml")
	if r.code != exitcode.OK || r.stdout != "good.yml: ok (2 jobs, 3 steps)\n" {
		t.Errorf("valid: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = jobRun(t, newProc(t), dir, "run", "--config", "good.yml")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "choose one with --job (a, b)") {
		t.Errorf("two jobs without --job: exit %d\n%s", r.code, r.stderr)
	}
}

// TestJobDryRun prints the plan with secrets masked and sends nothing.
func TestJobDryRun(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {})
	dir := t.TempDir()
	const key = "dry-run-key-abcdef123456"
	const literal, tok = "literal-mask-value-987", "ghp_literalTokenInTheFile000"
	job := fmt.Sprintf("version: 1\ndefaults: {secrets: [MY_API]}\njobs:\n  j:\n    env: {DEPLOY_TOKEN: %s}\n    steps:\n      - id: q\n        http: {url: %q, header: [\"api: ${MY_API}\"], mask: [%s]}\n      - id: g\n        github-quota: {token: %s}\n      - id: e\n        env: {T: %s}\n        exec: {command: [echo, %s]}\n", tok, srv.URL, literal, tok, literal, literal)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t, "MY_API="+key), dir, "run", "--dry-run")
	if r.code != exitcode.OK || srv.hits.Load() != 0 {
		t.Fatalf("exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
	}
	if !strings.Contains(r.stdout, "step q: http GET "+srv.URL) || !strings.Contains(r.stdout, "header: api: ***") || !strings.Contains(r.stdout, "policy: schedule 10s,20s,1m0s") || strings.Contains(r.stdout, key) ||
		strings.Contains(r.stdout, literal) || strings.Contains(r.stdout, tok) {
		t.Errorf("plan:\n%s", r.stdout)
	}
	if r := jobRun(t, newProc(t), dir, "run", "--dry-run"); r.code != exitcode.Config || !strings.Contains(r.stderr, "${MY_API} is not set") {
		t.Errorf("dry run with an unset variable: exit %d\n%s", r.code, r.stderr)
	}
}

// TestJobRunNamesUnsetVariable: run, like --dry-run, names the variable that
// is not set (its name is no secret), even in a header whose value is masked.
func TestJobRunNamesUnsetVariable(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {})
	dir := t.TempDir()
	job := fmt.Sprintf("version: 1\ndefaults: {secrets: [DEVTO_API_KEY]}\njobs:\n  j:\n    steps:\n      - id: q\n        http: {url: %q, header: [\"Api-Key: ${DEVTO_API_KEY}\"]}\n", srv.URL)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	for _, args := range [][]string{{"run"}, {"run", "--dry-run"}} {
		r := jobRun(t, newProc(t), dir, args...)
		if r.code != exitcode.Config || srv.hits.Load() != 0 || !strings.Contains(r.stderr, "${DEVTO_API_KEY} is not set") {
			t.Errorf("%v with an unset variable: exit %d, %d requests\n%s", args, r.code, srv.hits.Load(), r.stderr)
		}
	}
}

// TestJobDryRunIndentsMultiLineRun: a multi-line run: is printed as a block,
// each of its lines indented under its key.
func TestJobDryRunIndentsMultiLineRun(t *testing.T) {
	dir := t.TempDir()
	job := "version: 1\njobs:\n  j:\n    steps:\n      - id: s\n        exec:\n          run: |\n            echo one\n            echo two\n"
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--dry-run")
	if want := "  run: |\n    echo one\n    echo two\n  policy: "; r.code != exitcode.OK || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d; plan:\n%s\nwant it to hold:\n%s", r.code, r.stdout, want)
	}
}

// TestExamplesValidate: the job files docs/job-files.md points at are valid.
func TestExamplesValidate(t *testing.T) {
	for _, name := range []string{"devto-publish.yml", "offline.yml", "workflows/retrywise/publish.yml"} {
		r := newProc(t).run("validate", "--config", filepath.Join("..", "..", "examples", name))
		if r.code != exitcode.OK {
			t.Errorf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
}

// TestDemo runs the demo end to end: exit 0, and its report shows every
// class: a recovered transient failure, an absence, a policy denial and a
// structural rejection.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	r := jobRun(t, newProc(t), dir, "demo", "--report", "demo.json", "--summary", "demo.md")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readRun(t, filepath.Join(dir, "demo.json"))
	classes := map[string]bool{}
	for _, s := range rep.Steps {
		classes[s.Class.String()] = true
		for _, a := range s.Attempts {
			classes[a.Class.String()] = true
		}
		if s.Outputs["found"] == false {
			classes["absent"] = true
		}
	}
	for _, c := range []string{"transient", "absent", "policy", "structural"} {
		if !classes[c] {
			t.Errorf("the demo's report shows no %s failure:\n%s", c, r.stderr)
		}
	}
	if d := rep.Step("denied"); d == nil || d.Code != "proxy-denied" || len(d.Attempts) != 1 {
		t.Errorf("denied step = %+v", d)
	}
	if pl := rep.Step("push-log"); pl == nil || pl.Code != "git-non-fast-forward" || pl.Remedy == "" {
		t.Errorf("push step = %+v", pl)
	}
	// A job file's step names the job key in its remedy, not the flag.
	if pl := rep.Step("push-log"); pl == nil || !strings.Contains(pl.Remedy, "with rebase-on-reject: 1") || strings.Contains(pl.Remedy, "--rebase-on-reject") {
		t.Errorf("push step's remedy does not name the job key: %+v", pl)
	}
	cfg := newProc(t).run("demo", "--print-config")
	os.WriteFile(filepath.Join(dir, "demo.yml"), []byte(cfg.stdout), 0o644)
	if v := jobRun(t, newProc(t), dir, "validate", "--config", "demo.yml"); v.code != exitcode.OK {
		t.Errorf("--print-config is not a valid job file:\n%s", v.stderr)
	}
}

// TestJobBreakerCooldownAndHalfOpen: after an outage opens the host's
// breaker, a later step is short-circuited (nothing sent, breaker-open);
// once the run's fake clock has moved past the 30 s cooldown (a step's
// scheduled 40 s wait), the next request is the half-open trial, which
// closes the breaker, and the step after it is sent normally.
func TestJobBreakerCooldownAndHalfOpen(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	})
	dir := t.TempDir()
	job := fmt.Sprintf(`version: 1
defaults:
  retry: {max-attempts: 1}
jobs:
  j:
    steps:
      - {id: down0, continue-on-error: true, http: {url: "%[1]s/a"}}
      - {id: down1, continue-on-error: true, http: {url: "%[1]s/a"}}
      - {id: down2, continue-on-error: true, http: {url: "%[1]s/a"}}
      - {id: short, continue-on-error: true, http: {url: "%[1]s/a"}}
      - id: pause
        retry: {schedule: [40s], max-attempts: 2}
        exec:
          run: |
            if [ ! -e paused ]; then touch paused; echo 'curl: (28) Operation timed out' >&2; exit 28; fi
      - {id: trial, http: {url: "%[1]s/b"}}
      - {id: after, http: {url: "%[1]s/c"}}
`, srv.URL)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	p := newProc(t)
	r := jobRun(t, p, dir, "run", "--report", "r.json")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := srv.hits.Load(); got != 5 {
		t.Errorf("%d requests, want 5: 3 failures, the half-open trial, the next step", got)
	}
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if s := rep.Step("short"); s.Code != "breaker-open" || s.Result != report.Failure {
		t.Errorf("short = %s %s, want a breaker-open failure", s.Result, s.Code)
	}
	if got, want := stepResults(rep)[4:], []string{"pause=success", "trial=success", "after=success"}; !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if !slices.Equal(r.waits, []time.Duration{40 * time.Second}) {
		t.Errorf("waits = %v, want [40s]", r.waits)
	}
}

// TestBinaryJobRun runs a multi-step job through the built binary: http,
// exec and push against local servers, with outputs between steps and the
// report validated against its schema.
func TestBinaryJobRun(t *testing.T) {
	bin := buildBinary(t)
	api := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		io.WriteString(w, `{"items":[{"id":7},{"id":8}]}`)
	})
	fx := newPushFixture(t)
	dir := t.TempDir()
	job := fmt.Sprintf(`version: 1
jobs:
  j:
    steps:
      - {id: list, http: {url: "%s/items", field: ["first=.items[0].id"]}}
      - id: use
        env: {FIRST: "${steps.list.outputs.first}"}
        exec: {run: 'echo "first=$FIRST" >> "$RETRYWISE_OUTPUT"; echo "got $FIRST"'}
      - {id: gone, if: failure(), exec: {command: ["false"]}}
      - {id: log, push: {dir: %q, args: [origin, main]}}
`, api.URL, fx.work)
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte(job), 0o644)
	cmd := exec.Command(bin, "run", "--config", "job.yml", "--report", "r.json")
	cmd.Dir, cmd.Env = dir, fx.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "got 7") {
		t.Errorf("stdout = %q", out)
	}
	reporttest.ValidateFile(t, filepath.Join(dir, "r.json"))
	rep := readRun(t, filepath.Join(dir, "r.json"))
	if got, want := stepResults(rep), []string{"list=success", "use=success", "gone=skipped", "log=success"}; !slices.Equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if rep.Step("use").Outputs["first"] != "7" || rep.Step("log").Outputs["pushed"] != true {
		t.Errorf("outputs: use %v, log %v", rep.Step("use").Outputs, rep.Step("log").Outputs)
	}
}

// TestJobProbeStep: a probe step finds its proxy in its own env:, and its
// verdict is an output a later step reads; a denial fails it with 77.
func TestJobProbeStep(t *testing.T) {
	w, err := demo.Start(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := t.TempDir()
	job := fmt.Sprintf(`version: 1
jobs:
  j:
    steps:
      - id: preflight
        continue-on-error: true
        env: {HTTPS_PROXY: %q}
        probe: {targets: [%s]}
      - id: report
        if: steps.preflight.outputs.verdict == "denied"
        exec: {command: [echo, denied-seen]}
`, w.ProxyURL, demo.DeniedHost)
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json")
	rep := readRun(t, filepath.Join(dir, "r.json"))
	pf := rep.Step("preflight")
	if r.code != exitcode.OK || pf.Code != "proxy-denied" || pf.ExitCode != exitcode.Policy || pf.Outputs["verdict"] != "denied" || !strings.Contains(r.stdout, "denied-seen") {
		t.Errorf("exit %d, preflight %s %s %v\n%s", r.code, pf.Code, pf.Result, pf.Outputs, r.stderr)
	}
}
