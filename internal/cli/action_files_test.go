package cli

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/exitcode"
)

// mkfifos makes a FIFO in dir for each name and returns their paths.
func mkfifos(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		m[n] = p
	}
	return m
}

// releaseAndWait lets a background writer waiting on the FIFO release go,
// then waits until it wrote its last line to the FIFO done and closed it;
// the wall clock bounds it only as a generous upper limit.
func releaseAndWait(t *testing.T, release, done string) {
	t.Helper()
	finished := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(release, os.O_WRONLY, 0)
		if err != nil {
			finished <- err
			return
		}
		_, err = w.WriteString("go\n")
		w.Close()
		if err != nil {
			finished <- err
			return
		}
		r, err := os.Open(done)
		if err != nil {
			finished <- err
			return
		}
		_, err = io.Copy(io.Discard, r)
		r.Close()
		finished <- err
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the background writer did not finish within 60s")
	}
}

// unblockFIFO releases whoever still waits on a FIFO, for a test that
// stopped before it released its background writer.
func unblockFIFO(path string, write bool) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if write {
		flag = os.O_WRONLY | syscall.O_NONBLOCK
	}
	if f, err := os.OpenFile(path, flag, 0); err == nil {
		if write {
			f.WriteString("go\n")
		}
		f.Close()
	}
}

// lateWriter is shell text that leaves in the background a writer that
// waits for a line on the FIFO DIR/release-NAME, then appends late lines
// to every file command of its attempt and signals DIR/done-NAME.
func lateWriter(dir, name string) string {
	return `( set +e; read x < ` + dir + `/release-` + name + `
  echo late=1 >> "$GITHUB_OUTPUT"
  echo LATE=1 >> "$GITHUB_ENV"
  echo /late/bin >> "$GITHUB_PATH"
  echo late-summary >> "$GITHUB_STEP_SUMMARY"
  echo done > ` + dir + `/done-` + name + ` ) >/dev/null 2>&1 &
`
}

// TestActionLateWriterOfAFailedAttemptNeverReachesTheWorkflow: attempt 1
// leaves two background writers and fails transiently; attempt 2 releases
// the first, waits until it wrote to its file commands, and succeeds
// writing ok=1; the test releases the second after the run. Neither late
// write reaches the runner's files: each attempt had its own.
func TestActionLateWriterOfAFailedAttemptNeverReachesTheWorkflow(t *testing.T) {
	s := newActionStep(t)
	fifos := mkfifos(t, s.dir, "release-A", "done-A", "release-B", "done-B")
	t.Cleanup(func() {
		unblockFIFO(fifos["release-A"], true)
		unblockFIFO(fifos["release-B"], true)
		unblockFIFO(fifos["done-A"], false)
		unblockFIFO(fifos["done-B"], false)
	})
	count := filepath.Join(s.dir, "count")
	s.inputs["run"] = `n=$(cat ` + count + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + count + `
if [ $n = 1 ]; then
` + lateWriter(s.dir, "A") + lateWriter(s.dir, "B") + `  echo "curl: (56) Recv failure: Connection reset by peer" >&2; exit 56
fi
echo go > ` + fifos["release-A"] + `
cat ` + fifos["done-A"] + ` > /dev/null
echo ok=1 >> "$GITHUB_OUTPUT"
printf 'multi<<EOF\nx\ny\nEOF\n' >> "$GITHUB_OUTPUT"
echo OK=1 >> "$GITHUB_ENV"
echo /ok/bin >> "$GITHUB_PATH"
echo ok-summary >> "$GITHUB_STEP_SUMMARY"`
	s.inputs["max-attempts"] = "2"
	s.inputs["schedule"] = "1s"
	s.run()
	if s.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", s.code, s.stdout)
	}
	check := func(when string) {
		t.Helper()
		out := s.outputs()
		if out["ok"] != "1" || out["multi"] != "x\ny" || out["attempts"] != "2" {
			t.Errorf("%s: outputs ok=%q multi=%q attempts=%q, want 1, a heredoc's x\\ny and 2", when, out["ok"], out["multi"], out["attempts"])
		}
		if _, ok := out["late"]; ok || strings.Contains(out["outputs"], "late") {
			t.Errorf("%s: a late writer of attempt 1 set the output late: %v", when, out)
		}
		for _, f := range []struct{ path, ok, late string }{
			{s.envFile, "\n1\n", "LATE"}, {s.pathFile, "/ok/bin", "/late/bin"}, {s.summary, "ok-summary", "late-summary"},
		} {
			got := s.read(f.path)
			if !strings.Contains(got, f.ok) || strings.Contains(got, f.late) {
				t.Errorf("%s: %s = %q, want the final attempt's %q and never %q", when, filepath.Base(f.path), got, f.ok, f.late)
			}
		}
		if env := s.read(s.envFile); !strings.Contains(env, "OK<<") {
			t.Errorf("%s: $GITHUB_ENV = %q, want OK", when, env)
		}
	}
	check("after the run")
	releaseAndWait(t, fifos["release-B"], fifos["done-B"])
	check("after the second late writer")
	if m, _ := filepath.Glob(filepath.Join(s.temp, "retrywise-files-*")); len(m) != 0 {
		t.Errorf("the attempts' files are left behind: %v", m)
	}
}

// TestActionFailedFinalAttemptForwardsOnlyItsOwnFileCommands: what attempt
// 1 wrote before it failed is not copied, also when the final attempt
// fails too: only the final attempt's writes reach the workflow.
func TestActionFailedFinalAttemptForwardsOnlyItsOwnFileCommands(t *testing.T) {
	s := newActionStep(t)
	count := filepath.Join(s.dir, "count")
	s.inputs["run"] = `n=$(cat ` + count + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + count + `
echo "only$n=$n" >> "$GITHUB_OUTPUT"
echo "ONLY$n=$n" >> "$GITHUB_ENV"
echo "/only$n/bin" >> "$GITHUB_PATH"
echo "summary of attempt $n" >> "$GITHUB_STEP_SUMMARY"
echo "curl: (56) Recv failure: Connection reset by peer" >&2; exit 56`
	s.inputs["max-attempts"] = "2"
	s.inputs["schedule"] = "1s"
	s.run()
	if s.code != exitcode.Transient {
		t.Fatalf("exit %d, want %d:\n%s", s.code, exitcode.Transient, s.stdout)
	}
	out := s.outputs()
	if out["only2"] != "2" || out["attempts"] != "2" {
		t.Errorf("outputs only2=%q attempts=%q, want 2 and 2", out["only2"], out["attempts"])
	}
	if _, ok := out["only1"]; ok {
		t.Errorf("attempt 1's output reached the workflow: %v", out)
	}
	for _, f := range []struct{ path, ok, stale string }{
		{s.envFile, "ONLY2<<", "ONLY1"}, {s.pathFile, "/only2/bin", "/only1/bin"}, {s.summary, "summary of attempt 2", "summary of attempt 1"},
	} {
		got := s.read(f.path)
		if !strings.Contains(got, f.ok) || strings.Contains(got, f.stale) {
			t.Errorf("%s = %q, want the final attempt's %q and never %q", filepath.Base(f.path), got, f.ok, f.stale)
		}
	}
}

// TestActionFileCommandsAreBoundedWhileCopied runs the built binary on a
// script that writes 300 MB of step summary and 100 MB to each of
// $GITHUB_OUTPUT, $GITHUB_ENV and $GITHUB_PATH: the runner's summary stays
// within GitHub's 1 MiB with retrywise's own section and a note, each cut
// or refused file gets a warning, and retrywise's peak memory stays far
// below any of those sizes.
func TestActionFileCommandsAreBoundedWhileCopied(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 600 MB")
	}
	bin := buildBinary(t)
	s := newActionStep(t)
	const summaryBytes, otherBytes = 300_000_000, 100_000_000
	script := `set +o pipefail
yes '| é | a line of the script summary | ✓ |' | head -c ` + strconv.Itoa(summaryBytes) + ` >> "$GITHUB_STEP_SUMMARY"
{ printf 'big='; head -c ` + strconv.Itoa(otherBytes) + ` /dev/zero | tr '\0' x; echo; } >> "$GITHUB_OUTPUT"
{ printf 'BIG='; head -c ` + strconv.Itoa(otherBytes) + ` /dev/zero | tr '\0' x; echo; } >> "$GITHUB_ENV"
yes /some/bin | head -c ` + strconv.Itoa(otherBytes) + ` >> "$GITHUB_PATH"
echo wrote it all`
	env := append(append([]string(nil), s.env...),
		action.InputVar("run")+"="+script, action.InputVar("report-issue")+"=false", action.InputVar("step-summary")+"=true")
	cmd, setEnv, peak := measuredCommand(t, bin, "action")
	setEnv(env)
	cmd.Dir = s.workspace
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	log := string(out)
	sum := checkSummaryWithin(t, s, peak())
	if !strings.Contains(sum, "| exec |") {
		t.Errorf("the step summary lacks retrywise's own section:\n%s", tail(sum, 2000))
	}
	if !strings.Contains(sum, "| é | a line of the script summary | ✓ |\n") || !strings.Contains(sum, "step summary was cut") {
		t.Errorf("the step summary lacks the script's lines or the note of the cut:\n%s", tail(sum, 2000))
	}
	if i, j := strings.LastIndex(sum, "| ✓ |\n"), strings.Index(sum, "step summary was cut"); i < 0 || j < i {
		t.Errorf("the script's summary is not cut on a line boundary before the note:\n%s", tail(sum, 2000))
	}
	for _, want := range []string{"::warning title=retrywise%3A step summary cut::", "::warning title=retrywise%3A the script's file commands::",
		"$GITHUB_OUTPUT: larger than 1048576 bytes", "$GITHUB_ENV: larger than 1048576 bytes", "$GITHUB_PATH: larger than 1048576 bytes"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, tail(log, 4000))
		}
	}
	o := s.outputs()
	if _, ok := o["big"]; ok || o["result"] != "success" {
		t.Errorf("outputs: big set=%v result=%q, want a refused $GITHUB_OUTPUT and success", ok, o["result"])
	}
	for _, f := range []string{s.envFile, s.pathFile} {
		if fi, err := os.Stat(f); err == nil && fi.Size() > 1<<20 {
			t.Errorf("%s is %d bytes: copied past the bound", filepath.Base(f), fi.Size())
		}
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
