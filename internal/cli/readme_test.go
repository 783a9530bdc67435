package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// readmePath is the README; the docs' pages (docs/**/*.md) hold runnable
// examples too, and docPaths lists them all.
const readmePath = "../../README.md"

// docPaths returns README.md and every Markdown page under docs/, the files
// whose runnable examples TestReadmeExamples runs.
func docPaths(t *testing.T) []string {
	t.Helper()
	paths := []string{readmePath}
	err := filepath.WalkDir("../../docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// readmeMarker, alone on a line, marks the ```sh block after it as a
// runnable example; the next fenced block after that one is its output.
// readmeAnyOrder marks one whose lines may come in another order: a git
// writes its stdout and stderr through two pipes, so their lines interleave
// either way on the terminal.
const (
	readmeMarker   = "<!-- readme-test -->"
	readmeAnyOrder = "<!-- readme-test: lines in any order -->"
)

// readmeExample is one runnable example of the README.
type readmeExample struct {
	line     int // the line of its ```sh fence
	script   string
	want     string
	anyOrder bool
}

// readmeExamples returns the README's marked examples in order.
func readmeExamples(t *testing.T, readmePath, text string) []readmeExample {
	t.Helper()
	lines := strings.Split(text, "\n")
	// block returns the fenced block opening at or after line i: its first
	// line's index, its text, and the index after its closing fence.
	block := func(i int) (int, string, int) {
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		if i >= len(lines) {
			t.Fatalf("%s: no fenced block after line %d", readmePath, i)
		}
		open := i
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		if i >= len(lines) {
			t.Fatalf("%s:%d: the block does not end", readmePath, open+1)
		}
		return open, strings.Join(lines[open+1:i], "\n") + "\n", i + 1
	}
	var out []readmeExample
	for i := 0; i < len(lines); i++ {
		if lines[i] != readmeMarker && lines[i] != readmeAnyOrder {
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "```sh" {
			t.Fatalf("%s:%d: %s is not followed by a ```sh block", readmePath, i+1, readmeMarker)
		}
		open, script, next := block(i + 1)
		_, want, _ := block(next)
		out = append(out, readmeExample{line: open + 1, script: script, want: want, anyOrder: lines[i] == readmeAnyOrder})
	}
	return out
}

// readmeNoise is what differs from run to run, with what stands for it on
// both sides: times, durations measured, ports, temporary paths and git's
// hints.
var readmeNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`), "HH:MM:SS"},
	{regexp.MustCompile(`(at HH:MM:SS, |after \d+ attempts? in |(?:succeeded|failed|cancelled) in )` + durationRE), "${1}D"},
	// a job's table of steps ends each row with the step's time
	{regexp.MustCompile(`(?m)^(  \S+ +(?:exec|push|http|probe|github-quota) .* )` + durationRE + `$`), "${1}D"},
	// schedule's line for a run's end, and the history file it names
	{regexp.MustCompile(`(: exit \d+ after )` + durationRE), "${1}D"},
	{regexp.MustCompile(`\b\d{8}T\d{6}\.\d{3}Z\b`), "YYYYMMDDTHHMMSS.MMMZ"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`[^\s']*/retrywise-demo-\d+`), "TMP/retrywise-demo"},
	// git's advice differs from one git version to the next
	{regexp.MustCompile(`(?m)^hint: .*\n`), ""},
}

// durationRE is a time.Duration's String, e.g. 3.047s, 605ms, 1m2s, 0s.
const durationRE = `(?:\d+(?:\.\d+)?(?:ms|µs|ns|h|m|s))+`

func normaliseReadme(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, n := range readmeNoise {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// runOnTerminal runs script with sh -c in dir on a pseudo-terminal, as a
// person would in a shell, with bin's folder first on PATH, and returns what
// the terminal showed and sh's exit code.
func runOnTerminal(t *testing.T, dir, binDir, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	// A clean environment: no CI variables (GITHUB_ACTIONS picks live
	// output), no proxies, no user git config.
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "TERM=dumb", "LANG=C.UTF-8"}
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(done) }() // ends with EIO once no process holds the terminal
	werr := cmd.Wait()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the terminal stayed open after sh ended:\n%s", out.String())
	}
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return out.String(), code
}

// TestReadmeExamples runs every example README.md and the docs' pages mark
// runnable (the README's first run's at least, and one on each command's
// page) on a terminal with the built binary as retrywise, and compares what
// it shows, exit codes echoed included, with the page's text, so the docs
// cannot drift from the binary. "go run ./cmd/retrywise" in an example is
// that binary too.
func TestReadmeExamples(t *testing.T) {
	bin := buildBinary(t)
	for _, path := range docPaths(t) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		examples := readmeExamples(t, path, string(text))
		rel := strings.TrimPrefix(path, "../../")
		switch {
		case path == readmePath && len(examples) < 1:
			t.Errorf("%s has no runnable example, want the demo at least", rel)
		case strings.HasPrefix(rel, "docs/commands/") && len(examples) < 1:
			t.Errorf("%s has no runnable example: every command's page has one", rel)
		}
		for _, ex := range examples {
			t.Run(fmt.Sprintf("%s:%d", rel, ex.line), func(t *testing.T) {
				t.Parallel()
				script := strings.ReplaceAll(ex.script, "go run ./cmd/retrywise", "retrywise")
				dir := t.TempDir()
				if strings.Contains(script, "testdata/") {
					// The example reads the repository's testdata (the
					// sample log archive) as it would from the repository's root.
					abs, err := filepath.Abs("../../testdata")
					if err != nil || os.Symlink(abs, filepath.Join(dir, "testdata")) != nil {
						t.Fatalf("testdata: %v", err)
					}
				}
				got, code := runOnTerminal(t, dir, filepath.Dir(bin), script)
				if code != 0 {
					t.Errorf("sh exits %d: an example that fails shows its code with echo $?", code)
				}
				g, w := normaliseReadme(got), normaliseReadme(ex.want)
				if ex.anyOrder {
					g, w = sortedLines(g), sortedLines(w)
				}
				if g != w {
					t.Errorf("%s:%d: the example shows\n%s\nbut runs as\n%s\n(normalised; raw output:)\n%s", rel, ex.line, w, g, got)
				}
			})
		}
	}
}

// sortedLines returns s with its lines sorted.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestReadmeGoVersion: the README's Go requirement is go.mod's go line.
func TestReadmeGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	line := "go " + string(m[1]) + string(m[2])
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if want := "with Go " + string(m[1]) + " or later (`go.mod`'s `" + line + "`)"; !bytes.Contains(readme, []byte(want)) {
		t.Errorf("the README's Install does not say %q", want)
	}
}

// TestReadmeDemoDurationCountsTheBuild: where the README says how long the
// demo takes, the same paragraph says that `go run` compiles first, so a
// reader who runs it that way is not surprised by the build.
func TestReadmeDemoDurationCountsTheBuild(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, para := range strings.Split(string(readme), "\n\n") {
		if !strings.Contains(para, "about a second") {
			continue
		}
		found = true
		if !strings.Contains(para, "`go run`") || !strings.Contains(para, "compiles") {
			t.Errorf("the demo's duration does not say that go run compiles first:\n%s", para)
		}
	}
	if !found {
		t.Error("the README no longer says how long the demo takes")
	}
}
