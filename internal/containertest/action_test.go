//go:build container

package containertest

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// env is what every test shares: the image, action.yml, and one Squid.
type env struct {
	buildah   buildah
	imageName string
	image     imageConfig
	action    actionFile
	squid     *proxytest.Squid
	// apiURL is GITHUB_API_URL: a closed port on 127.0.0.1, so nothing the
	// action does can reach out of this machine.
	apiURL string
}

// shared is set up by TestMain: the Squid is started once for the package, as
// internal/proxytest asks.
var shared struct {
	squid  *proxytest.Squid
	apiURL string
}

func TestMain(m *testing.M) {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "containertest: needs root (buildah --isolation chroot); run it through: sudo ./scripts/test-container")
		os.Exit(1)
	}
	if os.Getenv(imageEnv) == "" {
		fmt.Fprintf(os.Stderr, "containertest: %s is not set; run it through ./scripts/test-container, which builds the image\n", imageEnv)
		os.Exit(1)
	}
	squid, err := proxytest.StartSquid(proxytest.SquidOptions{Allow: []string{".allowed.test"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "containertest:", err)
		os.Exit(1)
	}
	closed, err := proxytest.ClosedAddr()
	if err != nil {
		squid.Close()
		fmt.Fprintln(os.Stderr, "containertest:", err)
		os.Exit(1)
	}
	shared.squid, shared.apiURL = squid, "http://"+closed
	code := m.Run()
	squid.Close()
	os.Exit(code)
}

// newEnv returns the shared set-up; with the action it also loads action.yml.
func newEnv(t *testing.T, withAction bool) *env {
	t.Helper()
	storage := os.Getenv(storageEnv)
	if storage == "" {
		storage = "vfs"
	}
	e := &env{buildah: buildah{storage: storage}, imageName: os.Getenv(imageEnv), squid: shared.squid, apiURL: shared.apiURL}
	e.image = e.buildah.inspect(t, e.imageName)
	if withAction {
		e.action = loadAction(t)
	}
	return e
}

// sh runs a shell command in the image, outside the action (for controls).
func (e *env) sh(t *testing.T, script string, mounts ...mount) ran {
	t.Helper()
	return e.buildah.run(t, e.imageName, runSpec{argv: []string{"bash", "-c", script}, mounts: mounts, env: []string{"HOME=" + homeDir}})
}

// TestImage checks the image itself: the entrypoint, root, a static binary,
// the tools run scripts use, and no build settings or toolchain left behind.
func TestImage(t *testing.T) {
	e := newEnv(t, false)
	if got := strings.Join(e.image.Entrypoint, " "); got != "/usr/local/bin/retrywise" {
		t.Errorf("entrypoint %q, want /usr/local/bin/retrywise", got)
	}
	switch e.image.User {
	case "", "root", "0", "0:0":
	default:
		t.Errorf("the image runs as %q; GitHub runs container actions as root", e.image.User)
	}
	for _, kv := range e.image.Env {
		if strings.HasPrefix(kv, "GO") {
			t.Errorf("the runtime image keeps a build setting: %s", kv)
		}
	}

	id := e.buildah.newContainer(t, e.imageName)
	mnt := e.buildah.output(t, "mount", id)
	t.Cleanup(func() { exec.Command("buildah", "--storage-driver", e.buildah.storage, "umount", id).Run() })
	f, err := elf.Open(filepath.Join(mnt, "usr/local/bin/retrywise"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("/usr/local/bin/retrywise is dynamically linked (it has an interpreter); the Dockerfile builds with CGO_ENABLED=0")
		}
	}
	if syms, err := f.Symbols(); err == nil && len(syms) > 0 {
		t.Errorf("/usr/local/bin/retrywise keeps %d symbols; the Dockerfile strips them (-ldflags '-s -w')", len(syms))
	}
	for _, p := range []string{"usr/local/go", "go", "src"} {
		if _, err := os.Stat(filepath.Join(mnt, p)); err == nil {
			t.Errorf("/%s is in the runtime image: only the binary leaves the build stage", p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(mnt, "var/lib/apt/lists/*_Packages")); len(m) > 0 {
		t.Errorf("apt lists are left in the image: %v", m)
	}

	r := e.sh(t, "git --version && curl --version | head -n1 && ssh -V 2>&1 && bash --version | head -n1 && test -s /etc/ssl/certs/ca-certificates.crt && id -u && retrywise version")
	if r.exit != 0 {
		t.Fatalf("the tools in the image: exit %d\n%s%s", r.exit, r.stdout, r.stderr)
	}
	for _, want := range []string{"git version", "curl ", "OpenSSH", "GNU bash", "\n0\n", "retrywise "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the tools' output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestContainerReachesHostLoopback checks what the Squid case relies on: with
// chroot isolation the container shares the host's network, so 127.0.0.1 in
// the container is the host's.
func TestContainerReachesHostLoopback(t *testing.T) {
	e := newEnv(t, false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "host loopback") }))
	defer srv.Close()
	r := e.sh(t, "curl -fsS --max-time 10 "+srv.URL)
	if r.exit != 0 || r.stdout != "host loopback" {
		t.Fatalf("curl %s in the container: exit %d, stdout %q, stderr %q", srv.URL, r.exit, r.stdout, r.stderr)
	}
}

// fakeToken is the token the secret case passes: the shape of an installation
// token, a value found nowhere else.
const fakeToken = "ghs_C0ntainerT3stFakeT0kenNeverSh0wn42"

// want is what a case expects of the step.
type want struct {
	exit     int
	outputs  map[string]string
	warnings int
	errors   int
}

func TestAction(t *testing.T) {
	e := newEnv(t, true)
	gitEnv := gittest.Env(t)
	cases := []struct {
		name string
		// prepare returns the step; it may set up host folders.
		prepare func(t *testing.T) step
		want    want
		// check asserts what want cannot say.
		check func(t *testing.T, s step, r stepResult)
	}{
		{
			name: "a good run script succeeds with its outputs and a summary",
			prepare: func(t *testing.T) step {
				return step{with: map[string]string{"run": `echo "greeting=hi" >> "$GITHUB_OUTPUT"; echo hello from the script`}}
			},
			want: want{exit: 0, outputs: map[string]string{"result": "success", "greeting": "hi", "attempts": "1", "exit-code": "0"}},
			check: func(t *testing.T, s step, r stepResult) {
				if strings.TrimSpace(r.summary) == "" {
					t.Errorf("the step summary is empty")
				}
				if !strings.Contains(r.stdout, "hello from the script") {
					t.Errorf("the script's stdout is not relayed")
				}
				var outs map[string]any
				if err := json.Unmarshal([]byte(r.outputs["outputs"]), &outs); err != nil {
					t.Errorf("output outputs %q is not a JSON object: %v", r.outputs["outputs"], err)
				} else if outs["greeting"] != "hi" {
					t.Errorf("output outputs %q lacks greeting=hi", r.outputs["outputs"])
				}
			},
		},
		{
			name: "a transient failure recovers with one warning",
			prepare: func(t *testing.T) step {
				return step{with: map[string]string{
					"schedule": "100ms",
					"run": `n=$(cat "$HOME/count" 2>/dev/null || echo 0); echo $((n+1)) > "$HOME/count"
if [ "$n" -lt 1 ]; then echo "curl: (56) Recv failure: Connection reset by peer" >&2; exit 56; fi
echo recovered`,
				}}
			},
			want: want{exit: 0, warnings: 1, outputs: map[string]string{"result": "success", "attempts": "2", "exit-code": "0"}},
			check: func(t *testing.T, s step, r stepResult) {
				b, err := os.ReadFile(filepath.Join(r.home, "count"))
				if err != nil || strings.TrimSpace(string(b)) != "2" {
					t.Errorf("the script ran %q times (%v), want 2", b, err)
				}
			},
		},
		{
			name: "curl through a denying Squid stops as policy",
			prepare: func(t *testing.T) step {
				return step{
					with: map[string]string{"run": "curl -fsS --max-time 20 https://denied.example.test/"},
					env:  map[string]string{"HTTPS_PROXY": e.squid.URL, "HTTP_PROXY": e.squid.URL, "https_proxy": e.squid.URL, "http_proxy": e.squid.URL},
				}
			},
			want: want{exit: 77, errors: 1, outputs: map[string]string{"result": "failure", "class": "policy", "code": "proxy-denied", "attempts": "1", "exit-code": "77"}},
			check: func(t *testing.T, s step, r stepResult) {
				if n, err := e.squid.WaitLog("denied.example.test", 1, 10*time.Second); err != nil || n == 0 {
					t.Errorf("Squid's access log has no request for denied.example.test (%d, %v): the container did not use the host's proxy", n, err)
				}
				if !strings.Contains(r.outputs["remedy"], "allowlist") {
					t.Errorf("remedy %q does not say to add the host to the allowlist", r.outputs["remedy"])
				}
			},
		},
		{
			name: "a push to a remote that moved on stops as structural with the remedy",
			prepare: func(t *testing.T) step {
				root := t.TempDir()
				bare := gittest.NewBare(t, gitEnv, filepath.Join(root, "origin.git"))
				work := filepath.Join(root, "workspace")
				gittest.Git(t, gitEnv, "", "init", "--quiet", "--initial-branch=main", work)
				gittest.Commit(t, gitEnv, work, "README", "hello\n", "initial commit")
				gittest.Git(t, gitEnv, work, "remote", "add", "origin", bare)
				gittest.Git(t, gitEnv, work, "push", "--quiet", "origin", "HEAD:main")
				other := gittest.Clone(t, gitEnv, bare)
				gittest.Commit(t, gitEnv, other, "theirs.md", "theirs\n", "the remote moves on")
				gittest.Git(t, gitEnv, other, "push", "--quiet", "origin", "HEAD:main")
				gittest.Commit(t, gitEnv, work, "mine.md", "mine\n", "a commit to push")
				// the bare repository at the same path inside, so origin's URL holds there too
				return step{with: map[string]string{"push": "true", "push-args": "origin HEAD:main"}, workspace: work, mounts: []mount{{bare, bare}}}
			},
			want: want{exit: 65, errors: 1, outputs: map[string]string{"result": "failure", "class": "structural", "attempts": "1", "exit-code": "65"}},
			check: func(t *testing.T, s step, r stepResult) {
				if !regexp.MustCompile(`(?i)rebase|pull`).MatchString(r.outputs["remedy"]) {
					t.Errorf("remedy %q does not say to rebase or pull", r.outputs["remedy"])
				}
				bare := s.mounts[0].host
				if got, mine := gittest.Rev(t, gitEnv, bare, "main"), gittest.Rev(t, gitEnv, s.workspace, "HEAD"); got == mine {
					t.Errorf("the remote's main is the workspace's commit: the push was not rejected")
				}
			},
		},
		{
			name: "the token never leaks",
			prepare: func(t *testing.T) step {
				// the script prints the token itself, on both streams, and fails
				// with it in the evidence: only masking keeps it out
				return step{token: fakeToken, with: map[string]string{
					"token": fakeToken,
					"run": `echo "authenticating with ` + fakeToken + `"
echo "remote: token ` + fakeToken + ` rejected" >&2
echo "curl: (22) The requested URL returned error: 401" >&2
exit 22`,
				}}
			},
			want: want{exit: 77, errors: 1, outputs: map[string]string{"result": "failure", "class": "policy", "exit-code": "77"}},
			check: func(t *testing.T, s step, r stepResult) {
				masked := 0
				for _, l := range strings.Split(r.stdout, "\n") {
					if !strings.Contains(l, fakeToken) {
						continue
					}
					if l == "::add-mask::"+fakeToken {
						masked++
						continue
					}
					t.Errorf("stdout shows the token: %q", l)
				}
				if masked == 0 {
					t.Errorf("no ::add-mask:: line for the token on stdout, so the runner does not mask it in its own log")
				}
				if strings.Contains(r.stderr, fakeToken) {
					t.Errorf("stderr shows the token:\n%s", r.stderr)
				}
				files, err := filepath.Glob(filepath.Join(r.fileCommands, "*"))
				if err != nil {
					t.Fatal(err)
				}
				report := r.outputs["report"]
				if report == "" {
					t.Fatalf("no report output")
				}
				files = append(files, r.hostPath(t, report))
				for _, f := range files {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Errorf("%v", err)
						continue
					}
					if strings.Contains(string(b), fakeToken) {
						t.Errorf("%s shows the token:\n%s", filepath.Base(f), b)
					}
				}
				b, _ := os.ReadFile(r.hostPath(t, report))
				if !json.Valid(b) || !strings.Contains(string(b), "401") {
					t.Errorf("the report %s is not the JSON report of this failure:\n%s", report, b)
				}
			},
		},
		{
			name: "git works in a workspace another uid owns",
			prepare: func(t *testing.T) step {
				work := gittest.NewWork(t, gitEnv, "")
				chownAll(t, work, 1234)
				return step{with: map[string]string{"run": `git -C "$GITHUB_WORKSPACE" status --short --branch`}, workspace: work}
			},
			want: want{exit: 0, outputs: map[string]string{"result": "success", "exit-code": "0"}},
			check: func(t *testing.T, s step, r stepResult) {
				if !strings.Contains(r.stdout, "## main") {
					t.Errorf("git status printed no branch line")
				}
				// the control: the same git without the action refuses the workspace
				c := e.sh(t, `cd /github/workspace && git status`, mount{s.workspace, workspaceDir})
				if c.exit == 0 || !strings.Contains(c.stderr, "dubious ownership") {
					t.Errorf("without the action git accepted the workspace (exit %d, %q): this case proves nothing", c.exit, c.stderr)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.prepare(t)
			r := e.runStep(t, s)
			if r.exit != tc.want.exit {
				t.Errorf("exit %d, want %d", r.exit, tc.want.exit)
			}
			for k, v := range tc.want.outputs {
				if got, ok := r.outputs[k]; !ok || got != v {
					t.Errorf("output %s = %q (set: %v), want %q", k, got, ok, v)
				}
			}
			if got := r.outputs["exit-code"]; got != strconv.Itoa(r.exit) {
				t.Errorf("output exit-code %q, but the step exited %d", got, r.exit)
			}
			if n := len(r.workflowCommands("warning")); n != tc.want.warnings {
				t.Errorf("%d ::warning lines, want %d: %q", n, tc.want.warnings, r.workflowCommands("warning"))
			}
			if n := len(r.workflowCommands("error")); n != tc.want.errors {
				t.Errorf("%d ::error lines, want %d: %q", n, tc.want.errors, r.workflowCommands("error"))
			}
			if tc.want.exit != 0 && r.outputs["reason"] == "" {
				t.Errorf("a failure without a reason output")
			}
			tc.check(t, s, r)
			if t.Failed() || testing.Verbose() {
				t.Logf("step result:\n%s", r)
			}
		})
	}
}

// chownAll gives every file under dir to uid (and the same gid).
func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
