package execstep

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// newShStep returns a step that runs script with sh -c.
func newShStep(t *testing.T, script string, opts Options) *Step {
	t.Helper()
	opts.Args = []string{"sh", "-c", script}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOutputsComeOnlyFromTheSucceedingAttempt(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	// The first attempt writes stale outputs, then fails; the second writes its own.
	script := `if [ ! -e tried ]; then
  touch tried
  echo a=stale >> "$RETRYWISE_OUTPUT"
  echo only_first=1 >> "$RETRYWISE_OUTPUT"
  exit 1
fi
echo a=fresh >> "$RETRYWISE_OUTPUT"`
	s := newShStep(t, script, Options{OutputDir: dir, Dir: work})
	ctx := context.Background()

	var f *failure.Failure
	if err := s.Attempt(ctx, 1); !errors.As(err, &f) {
		t.Fatalf("attempt 1 = %v, want a failure", err)
	}
	if got := s.Outputs(); got != nil {
		t.Errorf("a failed attempt's outputs show: %v", got)
	}
	if _, err := os.Stat(OutputFile(dir, 1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the failed attempt's file was not removed: %v", err)
	}
	if err := s.Attempt(ctx, 2); err != nil {
		t.Fatalf("attempt 2 = %v", err)
	}
	if got, want := s.Outputs(), map[string]string{"a": "fresh"}; !maps.Equal(got, want) {
		t.Errorf("Outputs = %v, want %v", got, want)
	}
}

func TestOutputsFromTheFile(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   map[string]string
	}{
		{"nothing written", `true`, map[string]string{}},
		{"name=value, later wins", `printf 'a=1\nurl=https://h/?x=1\na=2\n' >> "$RETRYWISE_OUTPUT"`,
			map[string]string{"a": "2", "url": "https://h/?x=1"}},
		{"heredoc", `{ echo 'notes<<EOF'; printf 'line one\n\nline=three\n'; echo EOF; echo after=x; } >> "$RETRYWISE_OUTPUT"`,
			map[string]string{"notes": "line one\n\nline=three", "after": "x"}},
		{"CRLF", `printf 'a=1\r\nb<<E\r\nv\r\nE\r\n' >> "$RETRYWISE_OUTPUT"`, map[string]string{"a": "1", "b": "v"}},
		{"the command removed its file", `rm "$RETRYWISE_OUTPUT"`, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShStep(t, tt.script, Options{OutputDir: t.TempDir()})
			if err := s.Attempt(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			got := s.Outputs()
			if got == nil || !maps.Equal(got, tt.want) {
				t.Errorf("Outputs = %#v, want %#v", got, tt.want)
			}
			got["mutated"] = "x"
			if _, ok := s.Outputs()["mutated"]; ok {
				t.Error("Outputs hands out the step's own map")
			}
		})
	}
}

func TestMalformedOutputsFailTheAttempt(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   failure.Code
		reason string // part of the reason
	}{
		{"a line in neither form", `printf 'a=1\nsecret-ish text\n' >> "$RETRYWISE_OUTPUT"`,
			failure.CodeExecOutputMalformed, "$RETRYWISE_OUTPUT file is malformed at line 2"},
		{"an unclosed heredoc", `printf 'x=1\nnotes<<EOF\nhidden-value' >> "$RETRYWISE_OUTPUT"`,
			failure.CodeExecOutputMalformed, `at line 2: heredoc "notes" has no closing "EOF" line`},
		{"more than 1 MiB", `head -c 1048577 /dev/zero | tr '\0' a >> "$RETRYWISE_OUTPUT"`,
			failure.CodeExecOutputTooLarge, "larger than 1048576 bytes"},
		{"a directory in its place", `rm "$RETRYWISE_OUTPUT" && mkdir "$RETRYWISE_OUTPUT"`,
			failure.CodeExecOutputMalformed, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newShStep(t, tt.script, Options{OutputDir: dir})
			err := s.Attempt(context.Background(), 1)
			var f *failure.Failure
			if !errors.As(err, &f) || f.Class != failure.Structural || f.Code != tt.code || !strings.Contains(f.Reason, tt.reason) {
				t.Fatalf("Attempt = %v; want structural %s containing %q", err, tt.code, tt.reason)
			}
			if strings.Contains(f.Reason, "secret-ish") || strings.Contains(f.Reason, "hidden-value") {
				t.Errorf("the reason quotes the file: %q", f.Reason)
			}
			if s.Outputs() != nil {
				t.Errorf("outputs of a failed attempt: %v", s.Outputs())
			}
			if s.LastExitCode() != 0 {
				t.Errorf("exit code %d; the command itself succeeded", s.LastExitCode())
			}
			if _, err := os.Stat(OutputFile(dir, 1)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the failed attempt's file was not removed: %v", err)
			}
		})
	}
}

func TestOutputFileIsFreshEachAttempt(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	// Each attempt logs the path it was given and whether the file was empty,
	// writes to it, and fails; the third succeeds.
	script := `echo "$RETRYWISE_OUTPUT $(wc -c < "$RETRYWISE_OUTPUT" | tr -d ' ')" >> seen
echo "n=$(wc -l < seen | tr -d ' ')" >> "$RETRYWISE_OUTPUT"
[ "$(wc -l < seen)" -ge 3 ]`
	// An inherited RETRYWISE_OUTPUT (an outer retrywise, a stale export) is overridden.
	env := []string{"PATH=" + os.Getenv("PATH"), OutputVar + "=" + filepath.Join(work, "inherited")}
	s := newShStep(t, script, Options{OutputDir: dir, Dir: work, Env: env})
	// The leftover of an earlier run with the same attempt number is replaced.
	if err := os.WriteFile(OutputFile(dir, 3), []byte("n=leftover\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		err := s.Attempt(ctx, n)
		if (err == nil) != (n == 3) {
			t.Fatalf("attempt %d = %v", n, err)
		}
	}
	seen, err := os.ReadFile(filepath.Join(work, "seen"))
	if err != nil {
		t.Fatal(err)
	}
	want := OutputFile(dir, 1) + " 0\n" + OutputFile(dir, 2) + " 0\n" + OutputFile(dir, 3) + " 0\n"
	if string(seen) != want {
		t.Errorf("attempts saw\n%s\nwant\n%s", seen, want)
	}
	if got := s.Outputs(); !maps.Equal(got, map[string]string{"n": "3"}) {
		t.Errorf("Outputs = %v", got)
	}
	if _, err := os.Stat(filepath.Join(work, "inherited")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the inherited RETRYWISE_OUTPUT was written to")
	}
}

func TestOutputsFollowTheClassifiedVerdict(t *testing.T) {
	tests := []struct {
		name    string
		exit    string
		answer  error
		outputs map[string]string
	}{
		{"a failing exit turned success keeps its outputs", "exit 3", nil, map[string]string{"a": "1"}},
		{"a success turned failure drops them", "exit 0", failure.New(failure.Structural, failure.CodeGitNonFastForward, "mine", "fix it"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newShStep(t, `echo a=1 >> "$RETRYWISE_OUTPUT"; `+tt.exit, Options{OutputDir: dir,
				Classify: func(context.Context, Result) error { return tt.answer }})
			if err := s.Attempt(context.Background(), 1); err != tt.answer {
				t.Fatalf("Attempt = %v, want %v", err, tt.answer)
			}
			if got := s.Outputs(); !maps.Equal(got, tt.outputs) || (got == nil) != (tt.outputs == nil) {
				t.Errorf("Outputs = %v, want %v", got, tt.outputs)
			}
		})
	}
}

func TestNewChecksTheOutputDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		ok   bool
	}{
		{"a directory", t.TempDir(), true},
		{"missing", filepath.Join(t.TempDir(), "absent"), false},
		{"a file", file, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{Args: []string{"true"}, OutputDir: tt.dir})
			if (err == nil) != tt.ok {
				t.Errorf("New = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestOutputFileIsAbsolute(t *testing.T) {
	// A relative OutputDir still names the same file for a child in another directory.
	base := t.TempDir()
	t.Chdir(base)
	if err := os.Mkdir("out", 0o700); err != nil {
		t.Fatal(err)
	}
	s := newShStep(t, `echo dir=$(dirname "$RETRYWISE_OUTPUT") >> "$RETRYWISE_OUTPUT"`, Options{OutputDir: "out", Dir: t.TempDir()})
	if err := s.Attempt(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(base, "out"))
	got, _ := filepath.EvalSymlinks(s.Outputs()["dir"])
	if got != want {
		t.Errorf("the child's file is in %q, want %q", s.Outputs()["dir"], want)
	}
}

func TestAttemptFilesHoldTheFinalAttemptsWritesOnly(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	files := &AttemptFiles{Dir: dir, Vars: []string{"GITHUB_OUTPUT", "GITHUB_ENV"}}
	// Attempt 1 writes and fails; attempt 2 writes other values and fails too:
	// the final files hold attempt 2's writes, success or not.
	script := `n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n
echo "try=$n" >> "$GITHUB_OUTPUT"
echo "ENV_$n=x" >> "$GITHUB_ENV"
exit 1`
	s := newShStep(t, script, Options{AttemptFiles: files, Dir: work})
	ctx := context.Background()
	for n := 1; n <= 2; n++ {
		if err := s.Attempt(ctx, n); err == nil {
			t.Fatalf("attempt %d succeeded", n)
		}
	}
	final := files.Final()
	for name, want := range map[string]string{"GITHUB_OUTPUT": "try=2\n", "GITHUB_ENV": "ENV_2=x\n"} {
		b, err := os.ReadFile(final[name])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("$%s holds %q after two attempts, want only the final one's %q", name, b, want)
		}
	}
}

func TestAttemptFilesArePrivateAndDifferPerAttempt(t *testing.T) {
	dir := t.TempDir()
	files := &AttemptFiles{Dir: dir, Vars: []string{"GITHUB_OUTPUT"}}
	s := newShStep(t, `echo "path=$GITHUB_OUTPUT" >> "$GITHUB_OUTPUT"`, Options{AttemptFiles: files})
	var paths []string
	for n := 1; n <= 2; n++ {
		if err := s.Attempt(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		p := files.Final()["GITHUB_OUTPUT"]
		if b, _ := os.ReadFile(p); string(b) != "path="+p+"\n" {
			t.Errorf("attempt %d: the child saw %q, want its own file %s", n, b, p)
		}
		st, err := os.Stat(filepath.Dir(p))
		if err != nil || st.Mode().Perm() != 0o700 || filepath.Dir(filepath.Dir(p)) != dir {
			t.Errorf("attempt %d's folder %s: %v %v, want a 0700 folder in %s", n, filepath.Dir(p), st.Mode(), err, dir)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("attempt %d's file: %v %v, want 0600", n, st.Mode(), err)
		}
		paths = append(paths, p)
	}
	if paths[0] == paths[1] {
		t.Errorf("both attempts were given %s", paths[0])
	}
}

// TestAttemptFilesLateWriterKeepsItsOwnAttempts: a process attempt 1 left
// behind writes, by path and through a descriptor it holds, after attempt 2
// began: neither write reaches the final attempt's file.
func TestAttemptFilesLateWriterKeepsItsOwnAttempts(t *testing.T) {
	dir := t.TempDir()
	files := &AttemptFiles{Dir: dir, Vars: []string{"GITHUB_OUTPUT"}}
	s := newShStep(t, `echo "path=$GITHUB_OUTPUT" >> "$GITHUB_OUTPUT"`, Options{AttemptFiles: files})
	if err := s.Attempt(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	first := files.Final()["GITHUB_OUTPUT"]
	held, err := os.OpenFile(first, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := s.Attempt(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := held.WriteString("late=fd\n"); err != nil {
		t.Fatal(err)
	}
	late := exec.Command("sh", "-c", `echo late=path >> "$1"`, "sh", first)
	if out, err := late.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	final := files.Final()["GITHUB_OUTPUT"]
	if b, _ := os.ReadFile(final); strings.Contains(string(b), "late") || string(b) != "path="+final+"\n" {
		t.Errorf("the final attempt's file holds %q: a late write of attempt 1 reached it", b)
	}
}

// TestOnRetryWritesToTheFailedAttemptsFiles: --on-retry runs between
// attempts with the failed attempt's file commands, never the runner's
// (the step's own environment) nor the next attempt's, so what it
// writes, now or from the background later, reaches no one.
func TestOnRetryWritesToTheFailedAttemptsFiles(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	runner := filepath.Join(work, "runner-output")
	if err := os.WriteFile(runner, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	files := &AttemptFiles{Dir: dir, Vars: []string{"GITHUB_OUTPUT"}}
	s := newShStep(t, `echo "try=1" >> "$GITHUB_OUTPUT"; [ -e ok ]`, Options{
		Dir: work, Env: append(os.Environ(), "GITHUB_OUTPUT="+runner), AttemptFiles: files,
		OnRetry: `echo hook=1 >> "$GITHUB_OUTPUT"; echo "$GITHUB_OUTPUT" > hook-path; touch ok`,
	})
	if err := s.Attempt(context.Background(), 1); err == nil {
		t.Fatal("attempt 1 succeeded")
	}
	first := files.Final()["GITHUB_OUTPUT"]
	if err := s.BeforeRetry(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Attempt(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(runner); len(b) != 0 {
		t.Errorf("--on-retry wrote to the runner's file: %q", b)
	}
	if b, _ := os.ReadFile(files.Final()["GITHUB_OUTPUT"]); string(b) != "try=1\n" {
		t.Errorf("the final attempt's file holds %q, want its own try=1 only", b)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "hook-path")); strings.TrimSpace(string(b)) != first {
		t.Errorf("--on-retry was given %q, want the failed attempt's %s", b, first)
	}
}

// TestOutputFileReplacedByAFIFOFailsAtOnce: a command that puts a FIFO no
// one writes in place of its $RETRYWISE_OUTPUT gets a structural failure
// at once, not a step that waits forever.
func TestOutputFileReplacedByAFIFOFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	s := newShStep(t, `rm "$RETRYWISE_OUTPUT" && mkfifo "$RETRYWISE_OUTPUT"`, Options{OutputDir: dir})
	done := make(chan error, 1)
	go func() { done <- s.Attempt(context.Background(), 1) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Attempt = %v, want a failure naming what is not a regular file", err)
		}
	case <-time.After(30 * time.Second):
		unblockFIFO(OutputFile(dir, 1))
		t.Fatal("reading $RETRYWISE_OUTPUT blocked on a FIFO")
	}
}

// unblockFIFO opens a FIFO for writing, so a reader blocked on it goes on.
func unblockFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
