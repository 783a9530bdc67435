package hostinstall

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// release is a fake release's assets, by file name.
type release map[string][]byte

// server serves releases at BASE/vVERSION/ASSET and counts the requests.
type server struct {
	*httptest.Server
	releases map[string]release
	requests atomic.Int32
}

func newServer(t *testing.T, releases map[string]release) *server {
	s := &server{releases: releases}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if len(parts) != 2 {
			http.NotFound(w, r)
			return
		}
		b, ok := s.releases[parts[0]][parts[1]]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// fakeBinary is a script that stands for a release binary.
func fakeBinary(word string) []byte { return []byte("#!/bin/sh\necho " + word + "\n") }

// sums is a SHA256SUMS file as the release workflow writes it.
func sums(files map[string][]byte) []byte {
	var b strings.Builder
	for name, content := range files {
		fmt.Fprintf(&b, "%s  %s\n", sum(content), name)
	}
	return []byte(b.String())
}

type run struct {
	out     map[string]string
	log     string
	err     error
	elapsed time.Duration
}

// install runs host/install.sh CMD as the host action's step does.
func install(t *testing.T, cmd string, env ...string) run {
	t.Helper()
	dir := t.TempDir()
	ghOut := filepath.Join(dir, "github_output")
	c := exec.Command("bash", filepath.Join(repoRoot(t), "host", "install.sh"), cmd)
	c.Env = append(os.Environ(), "GITHUB_OUTPUT="+ghOut, "RUNNER_TEMP="+dir, "RETRYWISE_OS=linux", "RETRYWISE_ARCH=amd64")
	c.Env = append(c.Env, env...)
	start := time.Now()
	b, err := c.CombinedOutput()
	r := run{out: map[string]string{}, log: string(b), err: err, elapsed: time.Since(start)}
	text, _ := os.ReadFile(ghOut)
	for _, line := range strings.Split(string(text), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.out[k] = v
		}
	}
	return r
}

func runBin(t *testing.T, path string) string {
	t.Helper()
	b, err := exec.Command(path).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return strings.TrimSpace(string(b))
}

func TestInstallGoodBinaryIsVerifiedAndCached(t *testing.T) {
	good := fakeBinary("release-1.2.3")
	assets := map[string][]byte{"retrywise-v1.2.3-linux-amd64": good, "retrywise-v1.2.3-darwin-arm64": fakeBinary("other")}
	rel := release{"SHA256SUMS": sums(assets)}
	for k, v := range assets {
		rel[k] = v
	}
	srv := newServer(t, map[string]release{"v1.2.3": rel})
	cache := t.TempDir()
	env := []string{"RETRYWISE_VERSION=1.2.3", "RETRYWISE_DOWNLOAD_BASE=" + srv.URL, "RUNNER_TOOL_CACHE=" + cache}
	r := install(t, "fetch", env...)
	if r.err != nil {
		t.Fatalf("fetch: %v\n%s", r.err, r.log)
	}
	want := filepath.Join(cache, "retrywise", "1.2.3", "amd64", "retrywise")
	if r.out["bin"] != want || r.out["build"] != "" {
		t.Fatalf("outputs %v, want bin=%s\n%s", r.out, want, r.log)
	}
	if got := runBin(t, want); got != "release-1.2.3" {
		t.Errorf("the installed binary says %q", got)
	}
	if !strings.Contains(r.log, "verified") {
		t.Errorf("the log does not say the checksum was verified:\n%s", r.log)
	}
	t.Logf("host install from the local server: %v", r.elapsed)
	// the second run takes it from the tool cache, without the network
	n := srv.requests.Load()
	r = install(t, "fetch", env...)
	if r.err != nil || r.out["bin"] != want || srv.requests.Load() != n || !strings.Contains(r.log, "tool cache") {
		t.Errorf("second fetch: %v, outputs %v, %d requests (want none)\n%s", r.err, r.out, srv.requests.Load()-n, r.log)
	}
	t.Logf("host install from the tool cache: %v", r.elapsed)
}

func TestInstallRefusesABadChecksum(t *testing.T) {
	assets := map[string][]byte{"retrywise-v1.2.3-linux-amd64": fakeBinary("good")}
	rel := release{"SHA256SUMS": sums(assets), "retrywise-v1.2.3-linux-amd64": fakeBinary("tampered")}
	srv := newServer(t, map[string]release{"v1.2.3": rel})
	cache := t.TempDir()
	r := install(t, "fetch", "RETRYWISE_VERSION=v1.2.3", "RETRYWISE_DOWNLOAD_BASE="+srv.URL, "RUNNER_TOOL_CACHE="+cache)
	if r.err == nil {
		t.Fatalf("a bad checksum was accepted: %v\n%s", r.out, r.log)
	}
	if !strings.Contains(r.log, "::error title=retrywise/host install::checksum mismatch for retrywise-v1.2.3-linux-amd64") || !strings.Contains(r.log, "refusing") {
		t.Errorf("the error does not say what was refused:\n%s", r.log)
	}
	if r.out["bin"] != "" || r.out["build"] != "" {
		t.Errorf("outputs %v after a refusal, want none (no fallback around a bad download)", r.out)
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "retrywise", "*", "*", "*")); len(entries) != 0 {
		t.Errorf("the tool cache kept %v", entries)
	}
}

func TestInstallFallsBackToABuild(t *testing.T) {
	assets := map[string][]byte{"retrywise-v1.2.3-darwin-arm64": fakeBinary("mac")}
	srv := newServer(t, map[string]release{"v1.2.3": {"SHA256SUMS": sums(assets)}})
	for _, tt := range []struct {
		name, version, arch, says string
	}{
		{"missing arch", "1.2.3", "amd64", "has no retrywise-v1.2.3-linux-amd64"},
		{"no such release", "9.9.9", "amd64", "no release v9.9.9"},
		{"no version stamped (@main)", "", "amd64", "no release version stamped"},
	} {
		r := install(t, "fetch", "RETRYWISE_VERSION="+tt.version, "RETRYWISE_DOWNLOAD_BASE="+srv.URL, "RUNNER_TOOL_CACHE="+t.TempDir(), "RETRYWISE_ARCH="+tt.arch)
		if r.err != nil || r.out["build"] != "true" || r.out["bin"] != "" || !strings.Contains(r.log, tt.says) {
			t.Errorf("%s: %v, outputs %v, want build=true and %q\n%s", tt.name, r.err, r.out, tt.says, r.log)
		}
	}
}

// TestInstallBuildFromSource: the fallback builds ./cmd/retrywise of the
// action's source with the runner's go (a stand-in module here, to keep it fast).
func TestInstallBuildFromSource(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "cmd", "retrywise"), 0o755)
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.test/fake\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(src, "cmd", "retrywise", "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built from source\") }\n"), 0o644)
	r := install(t, "build", "RETRYWISE_SOURCE="+src, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if r.err != nil {
		t.Fatalf("build: %v\n%s", r.err, r.log)
	}
	if got := runBin(t, r.out["bin"]); got != "built from source" {
		t.Errorf("the built binary says %q", got)
	}
	if runtime.GOOS == "linux" && !strings.Contains(r.log, "building retrywise from "+src) {
		t.Errorf("log:\n%s", r.log)
	}
}

func TestInstallRefusesAnUnsupportedOS(t *testing.T) {
	r := install(t, "fetch", "RETRYWISE_OS=Windows_NT", "RETRYWISE_VERSION=1.0.0")
	if r.err == nil || !strings.Contains(r.log, "Linux and macOS runners only") {
		t.Errorf("%v\n%s", r.err, r.log)
	}
}

// TestInstallTimeOfAReleaseSizedBinary logs how long the install of an
// 18 MiB asset (the release binary's size) takes from 127.0.0.1, checksum
// included: the host action's start cost on a tool cache miss, network aside.
func TestInstallTimeOfAReleaseSizedBinary(t *testing.T) {
	big := append(fakeBinary("big"), make([]byte, 18<<20)...)
	assets := map[string][]byte{"retrywise-v2.0.0-linux-amd64": big}
	rel := release{"SHA256SUMS": sums(assets), "retrywise-v2.0.0-linux-amd64": big}
	srv := newServer(t, map[string]release{"v2.0.0": rel})
	r := install(t, "fetch", "RETRYWISE_VERSION=2.0.0", "RETRYWISE_DOWNLOAD_BASE="+srv.URL, "RUNNER_TOOL_CACHE="+t.TempDir())
	if r.err != nil || r.out["bin"] == "" {
		t.Fatalf("%v %v\n%s", r.err, r.out, r.log)
	}
	t.Logf("host install of an 18 MiB binary from 127.0.0.1: %v", r.elapsed)
}

// TestInstallLocalBinaryOnlyUnderAct: RETRYWISE_BINARY is taken (no
// download, no build, so no setup-go) only under act (ACT=true); on a runner
// an earlier step could swap that file for one that reads the token, so
// there it is ignored with a warning and the release is installed as
// usual, verified against SHA256SUMS.
func TestInstallLocalBinaryOnlyUnderAct(t *testing.T) {
	good := fakeBinary("release-1.2.3")
	assets := map[string][]byte{"retrywise-v1.2.3-linux-amd64": good}
	rel := release{"SHA256SUMS": sums(assets), "retrywise-v1.2.3-linux-amd64": good}
	srv := newServer(t, map[string]release{"v1.2.3": rel})
	local := filepath.Join(t.TempDir(), "retrywise")
	if err := os.WriteFile(local, fakeBinary("local"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "retrywise")
	os.WriteFile(notExec, fakeBinary("x"), 0o644)
	for _, tt := range []struct {
		name     string
		act      string // ACT's value; "-" leaves it unset
		binary   string
		version  string
		wantBin  string // "local", "release" or "" (a failure)
		wantLog  string
		requests bool // whether the release server is asked
	}{
		{"under act, a release stamped", "true", local, "1.2.3", "local", "RETRYWISE_BINARY=" + local, false},
		{"under act, no release (@main): no build", "true", local, "", "local", "no download, no build", false},
		{"on a runner: ignored, the release", "-", local, "1.2.3", "release", "::warning title=retrywise/host install::RETRYWISE_BINARY is ignored", true},
		{"ACT=false: ignored", "false", local, "1.2.3", "release", "RETRYWISE_BINARY is ignored", true},
		{"ACT=1 is not act's value: ignored", "1", local, "1.2.3", "release", "RETRYWISE_BINARY is ignored", true},
		{"under act, missing file", "true", local + ".missing", "1.2.3", "", "is not an executable file", false},
		{"under act, not executable", "true", notExec, "1.2.3", "", "is not an executable file", false},
		{"under act, relative path", "true", "bin/retrywise", "1.2.3", "", "absolute path", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			env := []string{"RETRYWISE_VERSION=" + tt.version, "RETRYWISE_DOWNLOAD_BASE=" + srv.URL, "RUNNER_TOOL_CACHE=" + cache, "RETRYWISE_BINARY=" + tt.binary, "ACT="}
			if tt.act != "-" {
				env = append(env, "ACT="+tt.act)
			}
			n := srv.requests.Load()
			r := install(t, "fetch", env...)
			if asked := srv.requests.Load() != n; asked != tt.requests {
				t.Errorf("release server asked: %v, want %v", asked, tt.requests)
			}
			if !strings.Contains(r.log, tt.wantLog) {
				t.Errorf("log does not say %q:\n%s", tt.wantLog, r.log)
			}
			switch tt.wantBin {
			case "local":
				if r.err != nil || r.out["bin"] != tt.binary || r.out["build"] != "" {
					t.Errorf("%v, outputs %v, want bin=%s\n%s", r.err, r.out, tt.binary, r.log)
				}
			case "release":
				if r.err != nil || r.out["bin"] == "" || r.out["bin"] == tt.binary || runBin(t, r.out["bin"]) != "release-1.2.3" {
					t.Errorf("%v, outputs %v, want the verified release\n%s", r.err, r.out, r.log)
				}
			default:
				if r.err == nil || r.out["bin"] != "" || r.out["build"] != "" || !strings.Contains(r.log, "::error") {
					t.Errorf("%v, outputs %v, want a failure with ::error and no outputs\n%s", r.err, r.out, r.log)
				}
			}
		})
	}
}

// TestInstallFromAMirror: RETRYWISE_DOWNLOAD_BASE names a mirror of the
// release assets (under act or behind a firewall); its download is checked
// against the mirror's SHA256SUMS as the normal one is, and a tampered
// asset on the mirror is refused.
func TestInstallFromAMirror(t *testing.T) {
	good := fakeBinary("mirrored")
	assets := map[string][]byte{"retrywise-v1.2.3-linux-amd64": good}
	for _, tt := range []struct {
		name  string
		asset []byte
		ok    bool
	}{{"good copy", good, true}, {"tampered copy", fakeBinary("evil"), false}} {
		t.Run(tt.name, func(t *testing.T) {
			mirror := newServer(t, map[string]release{"v1.2.3": {"SHA256SUMS": sums(assets), "retrywise-v1.2.3-linux-amd64": tt.asset}})
			r := install(t, "fetch", "ACT=true", "RETRYWISE_VERSION=1.2.3", "RETRYWISE_DOWNLOAD_BASE="+mirror.URL+"/", "RUNNER_TOOL_CACHE="+t.TempDir(), "GITHUB_SERVER_URL=http://127.0.0.1:1")
			if tt.ok {
				if r.err != nil || r.out["bin"] == "" || runBin(t, r.out["bin"]) != "mirrored" || !strings.Contains(r.log, "verified") {
					t.Errorf("%v %v\n%s", r.err, r.out, r.log)
				}
				return
			}
			if r.err == nil || r.out["bin"] != "" || !strings.Contains(r.log, "checksum mismatch") {
				t.Errorf("a tampered mirror copy: %v %v\n%s", r.err, r.out, r.log)
			}
		})
	}
}
