package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestMain provides a temp folder for the binary built by buildBinary and the
// package's real proxies (startProxies), and removes them afterwards.
func TestMain(m *testing.M) {
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
// exits 143 within a second (the promise of every retry loop) with its
// report on stderr.
func terminate(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) {
	t.Helper()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	took := time.Since(sent)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitcode.Terminated {
		t.Fatalf("exit = %v, want %d\n%s", err, exitcode.Terminated, stderr.String())
	}
	if took > time.Second {
		t.Errorf("exit took %s after SIGTERM, want under 1s", took)
	}
	if !strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("no report on stderr:\n%s", stderr.String())
	}
}
