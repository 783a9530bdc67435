package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/step"
)

// TestMain provides a temp folder for the binary built by buildBinary and the
// package's real proxies (startProxies), and removes them afterwards.
func TestMain(m *testing.M) {
	if out := os.Getenv(launchVar); out != "" {
		os.Exit(launch(out, os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "retrywise-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	stop, err := startProxies()
	if err != nil {
		os.RemoveAll(dir)
		fmt.Fprintf(os.Stderr, "cli tests need real proxies: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// launchVar, set to a file, makes the test binary a launcher (launch):
// it runs its arguments as a child and writes the child's peak resident
// memory to the file.
const launchVar = "RETRYWISE_TEST_LAUNCH_RUSAGE"

// launch runs argv with the launcher's streams and environment (launchVar
// left out), writes the child's peak resident memory in KiB (its rusage's
// Maxrss, its own waited children included) to out, and returns its exit
// code. The launcher is the test binary just started, so the child's
// Maxrss, which Linux carries over from the process that forked it, starts
// from a small process, not from the test process grown by other tests.
func launch(out string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launchVar+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	os.WriteFile(out, []byte(strconv.FormatInt(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, 10)), 0o600)
	return cmd.ProcessState.ExitCode()
}

// measuredCommand is exec.Command(bin, args...) started through the
// launcher; peak returns the child's peak resident memory in KiB once it
// has been waited for. Set Env with the returned setEnv.
func measuredCommand(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, setEnv func(env []string), peak func() int64) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "maxrss")
	cmd = exec.Command(os.Args[0], append([]string{bin}, args...)...)
	setEnv = func(env []string) { cmd.Env = append(append([]string(nil), env...), launchVar+"="+file) }
	peak = func() int64 {
		b, err := os.ReadFile(file)
		n, perr := strconv.ParseInt(string(b), 10, 64)
		if err != nil || perr != nil {
			t.Fatalf("the launcher wrote no peak memory: %v %v", err, perr)
		}
		return n
	}
	return cmd, setEnv, peak
}

var (
	binDir    string
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildBinary builds cmd/retrywise once per test binary; tests and
// benchmarks pass their own *testing.T or *testing.B, so a failed build fails
// the caller.
func buildBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binPath = filepath.Join(binDir, "retrywise")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/retrywise/retrywise/cmd/retrywise").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reading test, which it wakes on every write.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	notify chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notify == nil {
		s.notify = make(chan struct{}, 1)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) wake() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notify == nil {
		s.notify = make(chan struct{}, 1)
	}
	return s.notify
}

// waitFor blocks until want appears in b, failing after 30s.
func waitFor(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(b.String(), want) {
		select {
		case <-b.wake():
		case <-deadline:
			t.Fatalf("timed out waiting for %q in:\n%s", want, b.String())
		}
	}
}

// terminate sends SIGTERM to the running binary and fails the test unless it
// exits 143 with its report on stderr. The wall bound is generous (the
// callers wait an hour or more when signalled): exit code and report are
// the events; the grace's own timing is tested on the fake clock
// (internal/execstep).
func terminate(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running 10s after SIGTERM (killed):\n%s", stderr.String())
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitcode.Terminated {
		t.Fatalf("exit = %v, want %d\n%s", err, exitcode.Terminated, stderr.String())
	}
	if !strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("no report on stderr:\n%s", stderr.String())
	}
}

// testFactory returns a factory over buffers, with exactly env and a fake
// clock that fires every wait at once, for tests that call a run function
// with hand-built options.
func testFactory(env []string) (f *factory, stdout, stderr *bytes.Buffer, clk *clock.Fake) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	clk = clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
	c := &Command{Stdout: stdout, Stderr: stderr, Env: env, Clock: clk, Version: "test", Rand: noJitter}
	return c.factory(), stdout, stderr, clk
}

// noJitter is the tests' random source of jitter: the middle of every
// draw, so each wait is its scheduled one and the tests of the loop's
// mechanics see exact waits (the jitter's own tests seed a source).
func noJitter() float64 { return 0.5 }

// prepare returns the prepared step of kind k with the given settings
// (name, value pairs, set through the kind's field table as a job file
// sets them).
func prepare(t *testing.T, k *step.Kind, settings ...string) *step.Prepared {
	t.Helper()
	c := k.New()
	fields := c.Fields()
	for i := 0; i < len(settings); i += 2 {
		fd := step.Lookup(fields, settings[i])
		if fd == nil {
			t.Fatalf("%s has no field %s", k.Name, settings[i])
		}
		if err := fd.SetValues([]string{settings[i+1]}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := step.Prepare(context.Background(), k, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// denyHook is a Diagnose that records every failure it is given and
// answers a denial, as the egress probe does for a proxy's refusal.
func denyHook(seen *[]*failure.Failure) egress.DiagnoseFunc {
	return func(_ context.Context, f *failure.Failure) *failure.Failure {
		*seen = append(*seen, f)
		return &failure.Failure{Class: failure.Policy, Code: failure.CodeProxyDenied, Reason: "the hook denies it", Remedy: "add the host to the allowlist", Evidence: f.Evidence, Err: f}
	}
}
