package acttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func repoRoot(t testing.TB) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// scratchCheckout copies scripts/act-images into a scratch checkout with
// an empty ca-certificates/ and a Dockerfile, so that what the script
// writes into its checkout stays in the test's folder; it returns the
// checkout and a folder to put a fake engine in, first on PATH.
func scratchCheckout(t *testing.T) (dir, binDir string) {
	t.Helper()
	dir, binDir = t.TempDir(), t.TempDir()
	path := filepath.Join(repoRoot(t), "scripts", "act-images")
	script, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s is not executable: the docs run it as a command", path)
	}
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.MkdirAll(filepath.Join(dir, "ca-certificates"), 0o755)
	os.WriteFile(filepath.Join(dir, "scripts", "act-images"), script, 0o755)
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM debian:bookworm-slim\n"), 0o644)
	return dir, binDir
}

// fakeEngine is a podman that records each build (its arguments, the
// files of its context and its Containerfile) in $FAKE_LOG, and fails the
// build whose arguments hold $FAKE_FAIL with 100 lines of output.
const fakeEngine = `#!/bin/sh
for a; do ctx=$a; done
{
	echo "ARGS $*"
	(cd "$ctx" && find . -type f | sort)
	[ -f "$ctx/Containerfile" ] && cat "$ctx/Containerfile"
	[ -f "$ctx/ca-certificates/act-images.crt" ] && echo "BUNDLE $(cat "$ctx/ca-certificates/act-images.crt")"
} >>"$FAKE_LOG"
case "$*" in
*"$FAKE_FAIL"*)
	i=0
	while [ $i -lt 100 ]; do i=$((i+1)); echo "STEP line $i"; done
	echo "fetching https://deploy:hunter2-pass@proxy.corp.example/golang.org/x/text"
	echo "Authorization: Bearer $MY_API_TOKEN"
	printf 'long %01000d end\n' 0
	echo "E: the builder's own words" >&2
	exit 3
	;;
esac
`

func runImages(t *testing.T, dir, binDir string, env []string, args ...string) (string, error) {
	t.Helper()
	os.WriteFile(filepath.Join(binDir, "podman"), []byte(fakeEngine), 0o755)
	cmd := exec.Command(filepath.Join(dir, "scripts", "act-images"), args...)
	cmd.Env = append([]string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + t.TempDir(), "FAKE_LOG=" + filepath.Join(dir, "engine.log"), "FAKE_FAIL=never-matches"}, env...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// TestActImagesShowsTheBuildersError: a failed build prints the builder's
// own last lines, bounded in lines and width, with a URL's password and a
// secret-named variable's value masked, not only an exit code.
func TestActImagesShowsTheBuildersError(t *testing.T) {
	dir, binDir := scratchCheckout(t)
	secret := "s3cr3t-value-42"
	out, err := runImages(t, dir, binDir, []string{"FAKE_FAIL=retrywise-act-runner", "MY_API_TOKEN=" + secret}, "--no-ca-bundle")
	if err == nil {
		t.Fatalf("a failed build exited 0:\n%s", out)
	}
	for _, want := range []string{"building localhost/retrywise-act-runner:latest failed (podman build exited 3)", "E: the builder's own words", "STEP line 100", "https://***@proxy.corp.example/", "Bearer ***", "long 0000"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, never := range []string{secret, "hunter2-pass", "STEP line 60\n", "0 end"} {
		if strings.Contains(out, never) {
			t.Errorf("the output holds %q (a secret, or past the bounds):\n%s", never, out)
		}
	}
	if n := strings.Count(out, "  | "); n != 40 {
		t.Errorf("%d lines of the builder's output, want the last 40:\n%s", n, out)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "engine.log"))
	if strings.Contains(string(log), "dockeraction") {
		t.Errorf("the action's image was built after the job image failed:\n%s", log)
	}
}

// TestActImagesCABundle: --ca-bundle (or SSL_CERT_FILE) is checked, copied
// to ca-certificates/act-images.crt where the Dockerfile reads it, and into
// the job image's context with SSL_CERT_FILE set; --no-ca-bundle removes it.
func TestActImagesCABundle(t *testing.T) {
	pem := "-----BEGIN CERTIFICATE-----\nMIIBcorporate\n-----END CERTIFICATE-----\n"
	dir, binDir := scratchCheckout(t)
	bundle := filepath.Join(t.TempDir(), "corp.pem")
	os.WriteFile(bundle, []byte(pem), 0o644)
	inTree := filepath.Join(dir, "ca-certificates", "act-images.crt")
	for _, tt := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--ca-bundle", []string{"SSL_CERT_FILE="}, []string{"--ca-bundle", bundle}},
		{"SSL_CERT_FILE", []string{"SSL_CERT_FILE=" + bundle}, nil},
	} {
		os.Remove(filepath.Join(dir, "engine.log"))
		out, err := runImages(t, dir, binDir, tt.env, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, out)
		}
		if b, _ := os.ReadFile(inTree); string(b) != pem {
			t.Errorf("%s: %s holds %q, want the bundle", tt.name, inTree, b)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "engine.log"))
		builds := strings.Split(string(log), "ARGS ")
		if len(builds) != 3 {
			t.Fatalf("%s: %d builds, want 2:\n%s", tt.name, len(builds)-1, log)
		}
		runner, action := builds[1], builds[2]
		for _, want := range []string{"./ca-certificates/act-images.crt", "BUNDLE -----BEGIN CERTIFICATE-----", "update-ca-certificates", "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "--isolation chroot"} {
			if !strings.Contains(runner, want) {
				t.Errorf("%s: the job image's build lacks %q:\n%s", tt.name, want, runner)
			}
		}
		for _, want := range []string{"-t act-retrywise-retrywise-v1-dockeraction:latest", "-t act-dockeraction:latest", "./ca-certificates/act-images.crt", "BUNDLE -----BEGIN"} {
			if !strings.Contains(action, want) {
				t.Errorf("%s: the action image's build lacks %q:\n%s", tt.name, want, action)
			}
		}
	}
	// without one, the copy goes and the job image sets nothing
	os.Remove(filepath.Join(dir, "engine.log"))
	if out, err := runImages(t, dir, binDir, []string{"SSL_CERT_FILE=" + bundle}, "--no-ca-bundle"); err != nil {
		t.Fatalf("--no-ca-bundle: %v\n%s", err, out)
	}
	if _, err := os.Stat(inTree); !os.IsNotExist(err) {
		t.Errorf("--no-ca-bundle left %s", inTree)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "engine.log")); strings.Contains(string(log), "BUNDLE") || strings.Contains(string(log), "ENV SSL_CERT_FILE") {
		t.Errorf("--no-ca-bundle still passed a bundle:\n%s", log)
	}
	// what is not a bundle is refused before any build
	notPEM := filepath.Join(t.TempDir(), "x.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o644)
	for _, bad := range []string{notPEM, filepath.Join(dir, "missing.pem")} {
		os.Remove(filepath.Join(dir, "engine.log"))
		out, err := runImages(t, dir, binDir, nil, "--ca-bundle", bad)
		if err == nil || !strings.Contains(out, "CA bundle "+bad) {
			t.Errorf("--ca-bundle %s: %v\n%s", bad, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "engine.log")); err == nil {
			t.Errorf("--ca-bundle %s: a build ran", bad)
		}
	}
}
