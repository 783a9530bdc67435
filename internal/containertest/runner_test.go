//go:build container

package containertest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// Container paths, as the runner mounts them for a Docker action.
const (
	workspaceDir    = "/github/workspace"
	homeDir         = "/github/home"
	fileCommandsDir = "/github/file_commands"
	workflowDir     = "/github/workflow"
	runnerTempDir   = "/home/runner/work/_temp"
)

// runTimeout bounds one container run; the cases' schedules are milliseconds.
const runTimeout = 3 * time.Minute

// imageEnv and storageEnv name the variables scripts/test-container sets.
const (
	imageEnv   = "RETRYWISE_CONTAINER_IMAGE"
	storageEnv = "RETRYWISE_CONTAINER_STORAGE"
)

// buildah runs buildah on the storage driver the image was built with.
type buildah struct {
	storage string
}

// command returns the buildah command for args.
func (b buildah) command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "buildah", append([]string{"--storage-driver", b.storage}, args...)...)
}

// output runs buildah and returns its stdout; it fails the test on an error.
func (b buildah) output(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := b.command(ctx, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("buildah %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// newContainer creates a working container from image, removed when the test ends.
func (b buildah) newContainer(t testing.TB, image string) string {
	t.Helper()
	id := b.output(t, "from", "--pull=never", "--quiet", image)
	t.Cleanup(func() {
		if out, err := b.command(context.Background(), "rm", id).CombinedOutput(); err != nil {
			t.Errorf("buildah rm %s: %v\n%s", id, err, out)
		}
	})
	return id
}

// mount is a bind mount of a host folder into the container.
type mount struct {
	host, container string
}

// runSpec is one `buildah run`: the command, its mounts, environment and working directory.
type runSpec struct {
	argv    []string
	mounts  []mount
	env     []string
	workdir string
}

// ran is what a container run left: its exit code and output.
type ran struct {
	exit           int
	stdout, stderr string
}

// run runs spec in a fresh container from image, with chroot isolation: no
// namespaces of its own, so the container shares the host's network and
// reaches services on the host's 127.0.0.1.
func (b buildah) run(t testing.TB, image string, spec runSpec) ran {
	t.Helper()
	id := b.newContainer(t, image)
	args := []string{"run", "--isolation", "chroot"}
	for _, m := range spec.mounts {
		args = append(args, "--volume", m.host+":"+m.container)
	}
	for _, kv := range spec.env {
		args = append(args, "--env", kv)
	}
	if spec.workdir != "" {
		args = append(args, "--workingdir", spec.workdir)
	}
	args = append(append(args, id, "--"), spec.argv...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := b.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := ran{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		r.exit = exitErr.ExitCode()
	default:
		t.Fatalf("buildah %s: %v (timeout %s)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, runTimeout, r.stdout, r.stderr)
	}
	return r
}

// imageConfig is the part of `buildah inspect` the runner reads.
type imageConfig struct {
	Entrypoint []string `json:"Entrypoint"`
	Cmd        []string `json:"Cmd"`
	User       string   `json:"User"`
	Env        []string `json:"Env"`
	WorkingDir string   `json:"WorkingDir"`
}

// inspect returns the image's OCI configuration.
func (b buildah) inspect(t testing.TB, image string) imageConfig {
	t.Helper()
	var info struct {
		OCIv1 struct {
			Config imageConfig `json:"config"`
		} `json:"OCIv1"`
	}
	out := b.output(t, "inspect", "--type", "image", image)
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("buildah inspect %s: %v\n%s", image, err, out)
	}
	return info.OCIv1.Config
}

// actionInput is one declared input of action.yml.
type actionInput struct {
	Description string  `yaml:"description"`
	Required    bool    `yaml:"required"`
	Default     *string `yaml:"default"`
}

// actionFile is the part of action.yml the runner reads for a Docker action.
type actionFile struct {
	Inputs  map[string]actionInput `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"outputs"`
	Runs struct {
		Using      string            `yaml:"using"`
		Image      string            `yaml:"image"`
		Args       []string          `yaml:"args"`
		Env        map[string]string `yaml:"env"`
		Entrypoint string            `yaml:"entrypoint"`
	} `yaml:"runs"`
}

// loadAction reads the repository's action.yml.
func loadAction(t testing.TB) actionFile {
	t.Helper()
	path := filepath.Join("..", "..", "action.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the container action's metadata: %v (action.yml at the repository root, runs.using: docker)", err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if a.Runs.Using != "docker" || a.Runs.Image != "Dockerfile" {
		t.Fatalf("%s: runs.using %q, runs.image %q; this test runs a Docker action built from the Dockerfile", path, a.Runs.Using, a.Runs.Image)
	}
	return a
}

// exprRef is a ${{ ... }} expression the runner evaluates in action.yml.
var exprRef = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// evaluate replaces the ${{ inputs.X }} and ${{ github.X }} expressions in s
// with their values, and ${{ toJSON(matrix) }} with null (no matrix), as the
// runner does for defaults, args and env; any other expression fails the
// test.
func evaluate(t testing.TB, s string, inputs, github map[string]string) string {
	t.Helper()
	return exprRef.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRef.FindStringSubmatch(m)[1]
		switch {
		case e == "toJSON(matrix)":
			return "null" // a job without a matrix, as these steps are
		case strings.HasPrefix(e, "inputs."):
			return inputs[strings.TrimPrefix(e, "inputs.")]
		case strings.HasPrefix(e, "github."):
			if v, ok := github[strings.TrimPrefix(e, "github.")]; ok {
				return v
			}
		}
		t.Fatalf("action.yml: expression %s is not one this test evaluates", m)
		return ""
	})
}

// step is one use of the action in a workflow: its `with:` inputs, its
// `env:`, and the host folders behind /github/workspace and any extra mounts.
type step struct {
	with      map[string]string
	env       map[string]string
	workspace string
	mounts    []mount
	token     string
}

// stepResult is what the workflow sees after the step.
type stepResult struct {
	ran
	// outputs are the step's outputs, parsed from its GITHUB_OUTPUT file.
	outputs map[string]string
	// summary is the step summary file's content.
	summary string
	// fileCommands and home are the host folders behind /github/file_commands and /github/home.
	fileCommands, home string
	// mounts maps container paths to host paths.
	mounts []mount
	// views maps the paths later steps see (on the runner) to this host's
	// folders: $RUNNER_TEMP/_github_home is what the runner mounts at $HOME.
	views []mount
}

// hostPath returns the host path of a container path under one of the mounts.
func (r stepResult) hostPath(t testing.TB, p string) string {
	t.Helper()
	for _, m := range append(append([]mount(nil), r.views...), r.mounts...) {
		if p == m.container || strings.HasPrefix(p, m.container+"/") {
			return filepath.Join(m.host, strings.TrimPrefix(p, m.container))
		}
	}
	t.Fatalf("%s is on no folder the runner mounts (%v) or shows later steps (%v): it is lost when the container ends", p, r.mounts, r.views)
	return ""
}

// workflowCommands returns the stdout lines that start with "::"+name.
func (r stepResult) workflowCommands(name string) []string {
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "::"+name) {
			lines = append(lines, l)
		}
	}
	return lines
}

// String describes the result for failure messages.
func (r stepResult) String() string {
	keys := make([]string, 0, len(r.outputs))
	for k := range r.outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var o strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&o, "  %s=%q\n", k, r.outputs[k])
	}
	return fmt.Sprintf("exit %d\noutputs:\n%sstdout:\n%s\nstderr:\n%s\nsummary:\n%s", r.exit, o.String(), r.stdout, r.stderr, r.summary)
}

// randomID returns n random bytes in hex, as the runner's file command ids.
func randomID(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// runStep runs the action as the GitHub runner runs a Docker action: the
// image's entrypoint with action.yml's args, the runner's mounts, every
// declared input as INPUT_NAME (upper-cased, hyphens kept; the default when
// the step does not give it, empty when there is none), the runner's
// GITHUB_* and RUNNER_* variables, action.yml's runs.env and the step's env,
// in /github/workspace.
func (e *env) runStep(t testing.TB, s step) stepResult {
	t.Helper()
	root := t.TempDir()
	dirs := map[string]string{}
	for _, d := range []string{"home", "file_commands", "workflow"} {
		p := filepath.Join(root, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs[d] = p
	}
	if s.workspace == "" {
		s.workspace = filepath.Join(root, "workspace")
		if err := os.Mkdir(s.workspace, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dirs["workflow"], "event.json"), []byte(`{"repository":{"full_name":"retrywise/container-test"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	id := randomID(t, 16)
	outputFile := "set_output_" + id
	summaryFile := "step_summary_" + id
	for _, f := range []string{outputFile, summaryFile, "set_env_" + id, "add_path_" + id, "save_state_" + id} {
		if err := os.WriteFile(filepath.Join(dirs["file_commands"], f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	token := s.token
	if token == "" {
		token = "ghs_" + randomID(t, 18)
	}
	github := map[string]string{
		"token": token, "workspace": workspaceDir, "repository": "retrywise/container-test",
		"repository_owner": "retrywise", "server_url": "https://github.com", "actor": "octocat",
		"event_name": "workflow_dispatch", "ref": "refs/heads/main", "ref_name": "main",
		"sha": "0000000000000000000000000000000000000000", "run_id": "1", "run_number": "1",
		"run_attempt": "1", "job": "test", "workflow": "container-test", "action": "retrywise",
		"api_url": e.apiURL, "graphql_url": e.apiURL + "/graphql",
	}
	inputs := map[string]string{}
	for name, in := range e.action.Inputs {
		v := ""
		if in.Default != nil {
			v = evaluate(t, *in.Default, nil, github)
		}
		inputs[name] = v
	}
	for name, v := range s.with {
		if _, ok := e.action.Inputs[name]; !ok {
			t.Fatalf("the step gives input %q, which action.yml does not declare", name)
		}
		inputs[name] = v
	}
	var environ []string
	for name, v := range inputs {
		environ = append(environ, "INPUT_"+strings.ToUpper(strings.ReplaceAll(name, " ", "_"))+"="+v)
	}
	for k, v := range e.action.Runs.Env {
		environ = append(environ, k+"="+evaluate(t, v, inputs, github))
	}
	environ = append(environ,
		"HOME="+homeDir,
		"CI=true",
		"GITHUB_ACTIONS=true",
		"GITHUB_JOB=test",
		"GITHUB_REF=refs/heads/main",
		"GITHUB_REF_NAME=main",
		"GITHUB_REF_TYPE=branch",
		"GITHUB_SHA=0000000000000000000000000000000000000000",
		"GITHUB_REPOSITORY=retrywise/container-test",
		"GITHUB_REPOSITORY_OWNER=retrywise",
		"GITHUB_RUN_ID=1",
		"GITHUB_RUN_NUMBER=1",
		"GITHUB_RUN_ATTEMPT=1",
		"GITHUB_ACTOR=octocat",
		"GITHUB_TRIGGERING_ACTOR=octocat",
		"GITHUB_WORKFLOW=container-test",
		"GITHUB_EVENT_NAME=workflow_dispatch",
		"GITHUB_EVENT_PATH="+workflowDir+"/event.json",
		"GITHUB_SERVER_URL=https://github.com",
		"GITHUB_API_URL="+e.apiURL,
		"GITHUB_GRAPHQL_URL="+e.apiURL+"/graphql",
		"GITHUB_ACTION=retrywise",
		"GITHUB_ACTION_REPOSITORY=",
		"GITHUB_ACTION_REF=",
		"GITHUB_WORKSPACE="+workspaceDir,
		"GITHUB_OUTPUT="+fileCommandsDir+"/"+outputFile,
		"GITHUB_STEP_SUMMARY="+fileCommandsDir+"/"+summaryFile,
		"GITHUB_ENV="+fileCommandsDir+"/set_env_"+id,
		"GITHUB_PATH="+fileCommandsDir+"/add_path_"+id,
		"GITHUB_STATE="+fileCommandsDir+"/save_state_"+id,
		"RUNNER_OS=Linux",
		"RUNNER_ARCH=X64",
		"RUNNER_NAME=container-test",
		"RUNNER_ENVIRONMENT=github-hosted",
		"RUNNER_TEMP="+runnerTempDir,
		"RUNNER_TOOL_CACHE=/opt/hostedtoolcache",
		"RUNNER_WORKSPACE=/home/runner/work/container-test",
	)
	for k, v := range s.env {
		environ = append(environ, k+"="+v)
	}
	// As the runner does, RUNNER_TEMP names the runner's folder but is not
	// mounted: only its _github_home is, at /github/home.
	mounts := append([]mount{
		{dirs["home"], homeDir},
		{dirs["workflow"], workflowDir},
		{dirs["file_commands"], fileCommandsDir},
		{s.workspace, workspaceDir},
	}, s.mounts...)
	argv := append([]string{}, e.image.Entrypoint...)
	if e.action.Runs.Entrypoint != "" {
		argv = []string{e.action.Runs.Entrypoint}
	}
	for _, a := range e.action.Runs.Args {
		argv = append(argv, evaluate(t, a, inputs, github))
	}
	r := e.buildah.run(t, e.imageName, runSpec{argv: argv, mounts: mounts, env: environ, workdir: workspaceDir})
	res := stepResult{ran: r, fileCommands: dirs["file_commands"], home: dirs["home"], mounts: mounts,
		views: []mount{{dirs["home"], runnerTempDir + "/_github_home"}}}
	out, err := os.ReadFile(filepath.Join(dirs["file_commands"], outputFile))
	if err != nil {
		t.Fatal(err)
	}
	if res.outputs, err = parseOutputFile(string(out)); err != nil {
		t.Fatalf("GITHUB_OUTPUT: %v\n%s\n%s", err, out, res)
	}
	summary, err := os.ReadFile(filepath.Join(dirs["file_commands"], summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	res.summary = string(summary)
	return res
}

// parseOutputFile reads a GITHUB_OUTPUT file as the runner does: `name=value`
// lines and `name<<DELIMITER` blocks ending at a line that is the delimiter.
func parseOutputFile(text string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" {
			continue
		}
		heredoc := strings.Index(l, "<<")
		eq := strings.Index(l, "=")
		if heredoc > 0 && (eq < 0 || heredoc < eq) {
			name, delim := l[:heredoc], l[heredoc+2:]
			if delim == "" {
				return nil, fmt.Errorf("line %d: %q has an empty delimiter", line, l)
			}
			var value []string
			closed := false
			for sc.Scan() {
				line++
				if sc.Text() == delim {
					closed = true
					break
				}
				value = append(value, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("output %q: delimiter %q never closes", name, delim)
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		if eq <= 0 {
			return nil, fmt.Errorf("line %d: %q is neither name=value nor name<<DELIMITER", line, l)
		}
		out[l[:eq]] = l[eq+1:]
	}
	return out, sc.Err()
}
