package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/report/reporttest"
)

// These tests hold retrywise to its promise that a signal stops it
// wherever it waits, with real processes: a file the user names (--report,
// --summary, --rules, --data-file, the runner's file commands) may be a
// FIFO no one opens at the other end, and a signal while retrywise waits to
// open it exits 130/143 within a second, saying on stderr what it could not
// write. FIFOs and devices are not refused: a reader that comes later gets
// the whole report, and --report /dev/stdout works.

// fifoLimit is the wall-clock bound on the exit after the signal: generous
// (the promise is a second); the events are the exit code and the message.
const fifoLimit = 5 * time.Second

// mkfifo makes a FIFO at dir/name and returns its path.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitOpening waits until a thread of pid waits in the kernel for a
// FIFO's other end (its wchan is wait_for_partner): retrywise is blocked
// in the open. It polls /proc, at most 30 s.
func waitOpening(t *testing.T, pid int, stderr *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		for _, w := range tasks {
			if b, _ := os.ReadFile(w); strings.Contains(string(b), "wait_for_partner") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never waited to open a FIFO:\n%s", pid, stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // polling /proc, not waiting for behaviour
	}
}

// TestFIFOOpenStopsOnSignal: every file a command names may be a FIFO with
// no one at its other end; a signal while retrywise waits to open it exits
// 143 (130 for SIGINT) within the bound, says why on stderr and leaves no
// process behind.
func TestFIFOOpenStopsOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	job := "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {run: \"true\"}\n"
	for _, tc := range []struct {
		name string
		// args are the command line; FIFO is replaced by the FIFO's path.
		args  []string
		stdin string
		sig   syscall.Signal
		// want is on stderr.
		want string
	}{
		{"exec --report", []string{"exec", "--report", "FIFO", "--", "true"}, "", syscall.SIGTERM, "cannot create the report file"},
		{"exec --report/INT", []string{"exec", "--report", "FIFO", "--", "true"}, "", syscall.SIGINT, "cannot create the report file"},
		{"exec --rules", []string{"exec", "--rules", "FIFO", "--", "true"}, "", syscall.SIGTERM, "FIFO"},
		{"push --rules", []string{"push", "--rules", "FIFO"}, "", syscall.SIGTERM, "FIFO"},
		{"classify --rules", []string{"classify", "--rules", "FIFO"}, "x", syscall.SIGTERM, "FIFO"},
		{"http --data-file", []string{"http", "--data-file", "FIFO", "--method", "POST", "http://127.0.0.1:9/"}, "", syscall.SIGTERM, "--data-file"},
		{"http --report", []string{"http", "--report", "FIFO", "http://127.0.0.1:9/"}, "", syscall.SIGTERM, "cannot create the report file"},
		{"run --report", []string{"run", "--config", "job.yml", "--report", "FIFO"}, "", syscall.SIGTERM, "cannot create the report file"},
		{"run --summary", []string{"run", "--config", "job.yml", "--summary", "FIFO"}, "", syscall.SIGTERM, "cannot create the summary file"},
		{"run --config", []string{"run", "--config", "FIFO"}, "", syscall.SIGTERM, ""},
		{"validate --config/INT", []string{"validate", "--config", "FIFO"}, "", syscall.SIGINT, ""},
		{"validate --workflow", []string{"validate", "--workflow", "FIFO"}, "", syscall.SIGTERM, ""},
		{"explain --report", []string{"explain", "--report", "FIFO", "--repo", "o/r", "--run", "7"}, "", syscall.SIGTERM, "cannot create the report file"},
		{"explain --summary", []string{"explain", "--summary", "FIFO", "--repo", "o/r", "--run", "7"}, "", syscall.SIGTERM, "cannot create the summary file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "job.yml"), []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			fifo := mkfifo(t, dir, "fifo")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "FIFO", fifo)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "GITHUB_API_URL=http://127.0.0.1:9/", "GITHUB_TOKEN=x")
			cmd.Stdin = strings.NewReader(tc.stdin)
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = io.Discard, stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			waitOpening(t, cmd.Process.Pid, stderr)
			start := time.Now()
			if code := stopWithin(t, cmd, stderr, tc.sig, fifoLimit); code != 128+int(tc.sig) {
				t.Errorf("exit %d after %v, want %d:\n%s", code, tc.sig, 128+int(tc.sig), stderr.String())
			}
			t.Logf("exited %v after the signal", time.Since(start))
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr.String())
			}
			groupGone(t, cmd.Process.Pid, fifoLimit)
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO is gone or replaced: %v", err)
			}
		})
	}
}

// TestFIFOReadStopsOnSignal: a FIFO whose writer opened it and never
// writes, as --rules and --data-file: retrywise, blocked reading it, exits
// 143 on SIGTERM within the bound.
func TestFIFOReadStopsOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, args := range [][]string{
		{"exec", "--rules", "FIFO", "--", "true"},
		{"classify", "--rules", "FIFO"},
		{"http", "--data-file", "FIFO", "--method", "POST", "http://127.0.0.1:9/"},
	} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := mkfifo(t, dir, "fifo")
			w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "FIFO", fifo)
			}
			cmd := exec.Command(bin, args...)
			cmd.Stdin = strings.NewReader("x")
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = io.Discard, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			waitHolds(t, cmd.Process.Pid, fifo, stderr)
			if code := stopWithin(t, cmd, stderr, syscall.SIGTERM, fifoLimit); code != exitcode.Terminated {
				t.Errorf("exit %d, want 143:\n%s", code, stderr.String())
			}
		})
	}
}

// waitHolds waits until process pid has path open (polling /proc, at most 30 s).
func waitHolds(t *testing.T, pid int, path string, stderr *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if l, _ := os.Readlink(fd); l == path {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never opened %s:\n%s", pid, path, stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // polling /proc, not waiting for behaviour
	}
}

// TestFIFOActionFileCommandsStopOnSignal: the runner's file commands
// ($GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_STEP_SUMMARY) may be FIFOs no one
// reads; the action, blocked opening one after its step ran, exits 143 on
// SIGTERM within the bound and says which it could not write (a FIFO the
// script puts in its own file's place: TestFIFOInACommandsOwnFileIsRefused).
func TestFIFOActionFileCommandsStopOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, v := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			s := newActionStep(t)
			fifo := mkfifo(t, s.dir, "fifo")
			script := `echo a=1 >> "$GITHUB_OUTPUT"; echo B=2 >> "$GITHUB_ENV"`
			env := []string{action.InputVar("run") + "=" + script, action.InputVar("step-summary") + "=true", action.InputVar("report-issue") + "=false"}
			for _, kv := range s.env {
				if strings.HasPrefix(kv, v+"=") {
					kv = v + "=" + fifo
				}
				env = append(env, kv)
			}
			cmd := exec.Command(bin, "action")
			cmd.Env, cmd.Dir = env, s.workspace
			out := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			waitOpening(t, cmd.Process.Pid, out)
			if code := stopWithin(t, cmd, out, syscall.SIGTERM, fifoLimit); code != exitcode.Terminated {
				t.Errorf("exit %d, want 143:\n%s", code, out.String())
			}
			if !strings.Contains(out.String(), "$"+v) {
				t.Errorf("the log does not name $%s:\n%s", v, out.String())
			}
			groupGone(t, cmd.Process.Pid, fifoLimit)
		})
	}
}

// TestFIFOReportReaderComesLate: a FIFO whose reader opens it only after
// retrywise waits for it gets the whole report, as a file would.
func TestFIFOReportReaderComesLate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "fifo")
	cmd, stderr := startProcs(t, dir, nil, "exec", "--report", fifo, "--", "sh", "-c", "echo hello")
	waitOpening(t, cmd.Process.Pid, stderr)
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, cmd, stderr, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	var rep struct {
		Run struct{ Result string }
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Run.Result != "success" {
		t.Fatalf("report %v: %q", err, b)
	}
	file := filepath.Join(dir, "r.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	reporttest.ValidateFile(t, file)
}

// TestReportToDevStdout: --report /dev/stdout writes the JSON report on
// stdout (for `| jq`), and a command that fails before it runs leaves
// /dev/stdout in place.
func TestReportToDevStdout(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out, err := exec.Command(bin, "exec", "--report", "/dev/stdout", "--", "true").Output()
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Run struct{ Result string }
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Run.Result != "success" {
		t.Fatalf("stdout %v: %q", err, out)
	}
	// A step that cannot start: the report file made for it is removed,
	// but only a regular file is, never the link the user named (here a
	// link of its own to /proc/self/fd/1, as /dev/stdout is, so that a
	// failure does not remove the machine's).
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/proc/self/fd/1", link); err != nil {
		t.Fatal(err)
	}
	exec.Command(bin, "exec", "--report", link, "--", "/nonexistent/cmd").Run()
	if _, err := os.Lstat(link); err != nil {
		t.Fatalf("the link to stdout is gone: %v", err)
	}
}

// stallingGitHub is a GitHub API whose answers at stall never come (until
// the client goes): the run is read, its one failed job listed, and the
// call named stall waits. arrived is sent a value when a request reaches it.
func stallingGitHub(t *testing.T, stall string) (api string, arrived <-chan struct{}) {
	ch := make(chan struct{}, 16)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, stall) {
			ch <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/actions/runs/7":
			fmt.Fprint(w, `{"id":7,"name":"publish","status":"completed","conclusion":"failure","run_attempt":1}`)
		case "/repos/o/r/actions/runs/7/jobs":
			fmt.Fprint(w, `{"total_count":1,"jobs":[{"id":70,"name":"publish","status":"completed","conclusion":"failure","steps":[
				{"name":"Publish","conclusion":"failure","number":1,"started_at":"2026-11-30T10:00:02Z","completed_at":"2026-11-30T10:00:04Z"}]}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL + "/", ch
}

// TestExplainStopsOnSignal: explain waiting for a GitHub that does not
// answer exits 130 on SIGINT and 143 on SIGTERM, within the bound, and its
// JSON report says cancelled, as every command's does.
func TestExplainStopsOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, tc := range []struct {
		name  string
		stall string
		sig   syscall.Signal
	}{
		{"run/TERM", "/repos/o/r/actions/runs/7", syscall.SIGTERM},
		{"run/INT", "/repos/o/r/actions/runs/7", syscall.SIGINT},
		{"log/TERM", "/repos/o/r/actions/jobs/70/logs", syscall.SIGTERM},
		{"log/INT", "/repos/o/r/actions/jobs/70/logs", syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api, arrived := stallingGitHub(t, tc.stall)
			dir := t.TempDir()
			rep, sum := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.md")
			cmd := exec.Command(bin, "explain", "--report", rep, "--summary", sum, "--repo", "o/r", "--run", "7")
			cmd.Env = append(os.Environ(), "GITHUB_API_URL="+api, "GITHUB_TOKEN="+explainToken)
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = io.Discard, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			select {
			case <-arrived:
			case <-time.After(30 * time.Second):
				t.Fatalf("the stalled call never came:\n%s", stderr.String())
			}
			if code := stopWithin(t, cmd, stderr, tc.sig, fifoLimit); code != 128+int(tc.sig) {
				t.Errorf("exit %d, want %d:\n%s", code, 128+int(tc.sig), stderr.String())
			}
			reporttest.ValidateFile(t, rep)
			b, _ := os.ReadFile(rep)
			var r struct {
				Run struct {
					Result   string
					ExitCode int `json:"exit_code"`
				}
				Steps []struct{ Result string }
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Run.Result != "cancelled" || r.Run.ExitCode != 128+int(tc.sig) {
				t.Errorf("report run = %+v, want cancelled, %d:\n%s", r.Run, 128+int(tc.sig), b)
			}
			for _, s := range r.Steps {
				if s.Result != "cancelled" {
					t.Errorf("a step of the report is %s, not cancelled:\n%s", s.Result, b)
				}
			}
			if md, _ := os.ReadFile(sum); !strings.Contains(string(md), "cancelled") {
				t.Errorf("the summary does not say cancelled:\n%s", md)
			}
		})
	}
}

// TestActionExplainStopsOnSignal: the action's explain mode, waiting for
// a GitHub that does not answer, exits 143 on SIGTERM within the bound,
// and its outputs say cancelled.
func TestActionExplainStopsOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	api, arrived := stallingGitHub(t, "/repos/o/r/actions/jobs/70/logs")
	s := newActionStep(t)
	env := append(append([]string(nil), s.env...), "GITHUB_API_URL="+api,
		action.InputVar("explain")+"=https://github.com/o/r/actions/runs/7", action.InputVar("token")+"="+explainToken,
		action.InputVar("report-issue")+"=false")
	cmd := exec.Command(bin, "action")
	cmd.Env, cmd.Dir = env, s.workspace
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("the stalled call never came:\n%s", out.String())
	}
	if code := stopWithin(t, cmd, out, syscall.SIGTERM, fifoLimit); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143:\n%s", code, out.String())
	}
	o := s.outputs()
	if o["result"] != "cancelled" || o["exit-code"] != "143" {
		t.Errorf("outputs = %v", o)
	}
	reporttest.ValidateFile(t, o["report"])
}

// TestFIFOInACommandsOwnFileIsRefused: the files a step's command may
// replace ($RETRYWISE_OUTPUT, an attempt's own $GITHUB_OUTPUT and the
// like) are the exception to FIFOs being waited on: one the command made a
// FIFO no one writes is refused at once, with no signal needed, and the
// FIFO is left where it is.
func TestFIFOInACommandsOwnFileIsRefused(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	fifoJob := "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {run: 'rm \"$RETRYWISE_OUTPUT\" && mkfifo \"$RETRYWISE_OUTPUT\" && ln \"$RETRYWISE_OUTPUT\" fifo-seen'}\n"
	for _, tc := range []struct {
		name string
		// action runs `retrywise action` with script as its run: input;
		// else args.
		action bool
		script string
		args   []string
		// fifoVar is the variable whose file the command makes a FIFO.
		fifoVar  string
		wantCode int
	}{
		{name: "run: a step's outputs file", args: []string{"run", "--config", "fifo-job.yml"}, fifoVar: "RETRYWISE_OUTPUT", wantCode: exitcode.Structural},
		{name: "action run: the script's $GITHUB_OUTPUT", action: true, fifoVar: "GITHUB_OUTPUT", wantCode: exitcode.OK,
			script: `rm "$GITHUB_OUTPUT" && mkfifo "$GITHUB_OUTPUT" && ln "$GITHUB_OUTPUT" fifo-seen`},
		{name: "exec in a workflow: the attempt's $GITHUB_ENV", fifoVar: "GITHUB_ENV", wantCode: exitcode.OK,
			args: []string{"exec", "--", "sh", "-c", `rm "$GITHUB_ENV" && mkfifo "$GITHUB_ENV" && ln "$GITHUB_ENV" fifo-seen`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newActionStep(t)
			if err := os.WriteFile(filepath.Join(s.workspace, "fifo-job.yml"), []byte(fifoJob), 0o644); err != nil {
				t.Fatal(err)
			}
			env := append([]string(nil), s.env...)
			args := tc.args
			if tc.action {
				args = []string{"action"}
				env = append(env, action.InputVar("run")+"="+tc.script, action.InputVar("report-issue")+"=false")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a generous bound: it ends at once
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env, cmd.Dir = env, s.workspace
			out := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("retrywise waited on the FIFO the command made of $%s:\n%s", tc.fifoVar, out.String())
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d:\n%s", code, tc.wantCode, out.String())
			}
			if !strings.Contains(out.String(), "not a regular file") {
				t.Errorf("nothing says the file is not a regular file:\n%s", out.String())
			}
			if tc.fifoVar != "RETRYWISE_OUTPUT" && !strings.Contains(out.String(), "$"+tc.fifoVar) {
				t.Errorf("the warning does not name $%s:\n%s", tc.fifoVar, out.String())
			}
			if st, err := os.Lstat(filepath.Join(s.workspace, "fifo-seen")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the command made no FIFO: %v", err)
			}
		})
	}
}
