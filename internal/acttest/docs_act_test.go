//go:build act

package acttest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/gittest"
)

// TestDocsActSection runs the act section of docs/github-action.md as
// written, block after block in one bash, with a scratch HOME, in a scratch
// repository holding examples/workflows/scheduled-job-file.yml and its job
// file, against a stand-in API on 127.0.0.1: the engine's settings and
// podman's socket, scripts/act-images, act on the example workflow, and the
// host form with RETRYWISE_BINARY. Only the substitutions the page marks
// are made (actBlocks).
func TestDocsActSection(t *testing.T) {
	blocks := actBlocks(t)
	if t.Failed() {
		t.FailNow()
	}
	env := gittest.Env(t)
	const token = "doc-test-token-7f3a"
	var mu sync.Mutex
	var auth []string
	a := newAPI(t, func(r *http.Request) (int, string) {
		mu.Lock()
		auth = append(auth, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/quota" {
			return 200, `{"left":1}`
		}
		return 201, `{"id":7}`
	})
	ws := workspace(t, env, "", map[string]string{
		".github/workflows/scheduled-job-file.yml": "@examples/workflows/scheduled-job-file.yml",
		".github/retrywise/publish.yml":            "@examples/workflows/retrywise/publish.yml",
	})
	home := t.TempDir()
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, b := range blocks {
		fmt.Fprintf(&script, "echo '### %s:%d'\n%s", actDoc, b.line, b.script)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = ws
	// Setpgid: the podman service the first block starts in the background
	// is stopped with the group when the blocks end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = []string{
		"PATH=" + filepath.Dir(os.Getenv(binEnv)) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "LANG=C.UTF-8", "NO_COLOR=1",
		// the machine's: its container storage, its CA bundle (as the
		// person's shell would have them) and its Go settings and caches
		"CONTAINERS_STORAGE_CONF=" + os.Getenv("CONTAINERS_STORAGE_CONF"),
		"SSL_CERT_FILE=" + os.Getenv("SSL_CERT_FILE"),
		// what the page's act-test lines name
		"RETRYWISE_ACT_CHECKOUT=" + repoRoot(t), "RETRYWISE_ACT_API=" + a.URL, "PUBLISH_TOKEN=" + token,
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOFLAGS", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, v+"="+strings.TrimSpace(string(out)))
	}
	// A file, not a pipe: the service holds its end open after bash ends.
	logFile, err := os.Create(filepath.Join(t.TempDir(), "blocks.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	out, _ := os.ReadFile(logFile.Name())
	log := string(out)
	t.Logf("the act section's %d blocks: %v in %.1fs", len(blocks), err, time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("the act section, run as written: %v\n%s", err, log)
	}
	checks := []struct{ what, want string }{
		{"the images' command", "scripts/act-images: ready: localhost/retrywise-act-runner:latest"},
		{"the job file's outputs", "| result=success attempts="},
		{"the quota read", "quota-left=1"},
		{"the host form's binary", "RETRYWISE_BINARY=/opt/retrywise/retrywise, used as it is"},
		{"the host form's step", "| hello from the host form on Linux"},
		{"the host form's output", "| host form result=success"},
	}
	for _, c := range checks {
		if len(lines(log, c.want)) == 0 {
			t.Errorf("%s: the log has no %q", c.what, c.want)
		}
	}
	for _, never := range []string{"LocalRepositoryCache not matched", "setup-go stand-in", "Provide value for", "error setting rlimit", token} {
		if strings.Contains(log, never) {
			t.Errorf("the log holds %q", never)
		}
	}
	mu.Lock()
	got := strings.Join(auth, "\n")
	mu.Unlock()
	if a.count("GET /quota") != 2 || a.count("POST /posts") != 1 || !strings.Contains(got, "POST /posts Bearer "+token) {
		t.Errorf("the API got %v, want GET /quota twice (503, then 200) and one POST with the secret from the environment:\n%s", a.hits, got)
	}
	if t.Failed() {
		t.Logf("the log:\n%s", log)
		return
	}
	for _, l := range lines(log, "") {
		if strings.HasPrefix(l, "### ") || strings.HasPrefix(l, "scripts/act-images:") || strings.Contains(l, "Job succeeded") {
			t.Log(l)
		}
	}
}

// TestImagesTrustTheBundle: the images scripts/act-images built with the
// bundle (scripts/test-act passes this machine's and a test CA's) trust a
// server on 127.0.0.1 whose certificate that CA signed, with no -k and no
// internet: curl in the job image and in the action's image, and go in the
// Dockerfile's build stage (what `go mod download` runs with).
func TestImagesTrustTheBundle(t *testing.T) {
	dir := os.Getenv("RETRYWISE_ACT_TEST_CA")
	if dir == "" {
		t.Fatal("RETRYWISE_ACT_TEST_CA is not set; run it through ./scripts/test-act")
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/hello" {
			io.WriteString(w, "trusted\n")
			return
		}
		http.NotFound(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	podman := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		b, err := exec.CommandContext(ctx, "podman", args...).CombinedOutput()
		return string(b), err
	}
	for _, c := range []struct{ name, image, entry string }{
		{"job image", "localhost/retrywise-act-runner:latest", ""},
		{"action's image", "localhost/act-retrywise-retrywise-v1-dockeraction:latest", "curl"},
	} {
		args := []string{"run", "--rm", "--network", "host"}
		if c.entry != "" {
			args = append(args, "--entrypoint", c.entry, c.image)
		} else {
			args = append(args, c.image, "curl")
		}
		args = append(args, "-sS", "--max-time", "20", srv.URL+"/hello")
		out, err := podman(args...)
		if err != nil || strings.TrimSpace(out) != "trusted" {
			t.Errorf("%s: curl %s/hello: %v\n%s", c.name, srv.URL, err, out)
		}
	}
	if out, err := podman("run", "--rm", "localhost/retrywise-act-runner:latest", "sh", "-c", `echo "$SSL_CERT_FILE"`); err != nil || strings.TrimSpace(out) != "/etc/ssl/certs/ca-certificates.crt" {
		t.Errorf("the job image's SSL_CERT_FILE: %v %q", err, out)
	}
	// The build stage, from the layers scripts/act-images left (the same
	// arguments): its go asks a module proxy on 127.0.0.1 over TLS.
	args := []string{"build", "--isolation", "chroot", "--network", "host", "--layers", "--target", "build", "-t", "localhost/retrywise-act-build-stage:test", "--build-arg", "VERSION=act"}
	for _, v := range []string{"GOPROXY", "GOSUMDB", "GONOSUMDB", "GOFLAGS"} {
		b, _ := exec.Command("go", "env", v).Output()
		args = append(args, "--build-arg", v+"="+strings.TrimSpace(string(b)))
	}
	if out, err := podman(append(args, repoRoot(t))...); err != nil {
		t.Fatalf("podman build --target build: %v\n%s", err, out)
	}
	defer podman("rmi", "localhost/retrywise-act-build-stage:test")
	out, _ := podman("run", "--rm", "--network", "host", "-e", "GOPROXY="+srv.URL, "-e", "GONOSUMDB=*", "-e", "GOFLAGS=-mod=mod", "-e", "GOTOOLCHAIN=local",
		"localhost/retrywise-act-build-stage:test", "go", "mod", "download", "-x", "example.test/nothing@v1.0.0")
	mu.Lock()
	asked := strings.Join(paths, " ")
	mu.Unlock()
	if strings.Contains(out, "x509") || !strings.Contains(asked, "/example.test/nothing/@v/v1.0.0.info") {
		t.Errorf("go in the build stage did not trust the proxy on 127.0.0.1 (asked %q):\n%s", asked, out)
	}
}

// TestActImagesRealBrokenBuild: a Dockerfile whose RUN fails, built by
// scripts/act-images with podman: the output holds the builder's own error
// line, not only an exit status. (The job image is the cached one: the same
// bundle, so the same layers and the same image under its name.)
func TestActImagesRealBrokenBuild(t *testing.T) {
	dir, _ := scratchCheckout(t)
	broken := "FROM debian:bookworm-slim\nRUN echo \"E: Unable to locate package retrywise-does-not-exist\" >&2; exit 100\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "scripts", "act-images"), "--engine", "podman")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err == nil {
		t.Fatalf("a broken build exited 0:\n%s", out)
	}
	for _, want := range []string{"building act-retrywise-retrywise-v1-dockeraction:latest failed (podman build exited", "  | E: Unable to locate package retrywise-does-not-exist"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}
