package acttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The act section of docs/github-action.md is run as written by
// TestDocsActSection (build tag act). A ```sh block of that section after a
// line actMarker runs; lines between the marker and the block name what the
// test changes where a command needs the internet or a person:
//
//	<!-- act-test: replace "OLD" with "NEW" -->  OLD (once in the block) becomes NEW
//	<!-- act-test: env NAME -->                  the test sets NAME (act would ask for it)
const (
	actDoc     = "docs/github-action.md"
	actSection = "## Run locally with act"
	actMarker  = "<!-- act-test -->"
)

var (
	actReplaceRE = regexp.MustCompile(`^<!-- act-test: replace ("(?:[^"\\]|\\.)*") with ("(?:[^"\\]|\\.)*") -->$`)
	actEnvRE     = regexp.MustCompile(`^<!-- act-test: env ([A-Z_][A-Z0-9_]*) -->$`)
)

// actBlock is one runnable block of the act section: the script as the
// test runs it (the substitutions made), and the variables the test sets.
type actBlock struct {
	line   int
	script string
	env    []string
}

// actBlocks returns the act section's blocks, failing the test on a ```sh
// block without the marker, a marker line it cannot read, or a
// substitution whose text is not in its block exactly once.
func actBlocks(t *testing.T) []actBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), actDoc))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := -1
	for i, l := range lines {
		if l == actSection {
			start = i
		} else if start >= 0 && strings.HasPrefix(l, "## ") {
			lines = lines[:i]
			break
		}
	}
	if start < 0 {
		t.Fatalf("%s has no %q", actDoc, actSection)
	}
	var out []actBlock
	var pending *actBlock
	var replaces [][2]string
	for i := start; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == actMarker:
			pending, replaces = &actBlock{}, nil
		case strings.HasPrefix(l, "<!-- act-test"):
			if pending == nil {
				t.Errorf("%s:%d: %q is not after %s", actDoc, i+1, l, actMarker)
				continue
			}
			if m := actReplaceRE.FindStringSubmatch(l); m != nil {
				old, err1 := strconv.Unquote(m[1])
				with, err2 := strconv.Unquote(m[2])
				if err1 != nil || err2 != nil {
					t.Errorf("%s:%d: cannot read %q", actDoc, i+1, l)
				}
				replaces = append(replaces, [2]string{old, with})
			} else if m := actEnvRE.FindStringSubmatch(l); m != nil {
				pending.env = append(pending.env, m[1])
			} else {
				t.Errorf("%s:%d: %q is neither a replace nor an env line", actDoc, i+1, l)
			}
		case strings.HasPrefix(l, "```sh"):
			if pending == nil {
				t.Errorf("%s:%d: a sh block of %q without %s: every command there is run by the test", actDoc, i+1, actSection, actMarker)
			}
			end := i + 1
			for end < len(lines) && lines[end] != "```" {
				end++
			}
			script := strings.Join(lines[i+1:end], "\n") + "\n"
			if pending != nil {
				for _, r := range replaces {
					if n := strings.Count(script, r[0]); n != 1 {
						t.Errorf("%s:%d: %q is in the block %d times, want once (the docs changed: change the act-test line too)", actDoc, i+1, r[0], n)
					}
					script = strings.Replace(script, r[0], r[1], 1)
				}
				pending.line, pending.script = i+1, script
				out = append(out, *pending)
			}
			pending, i = nil, end
		case strings.HasPrefix(l, "```"):
			for i++; i < len(lines) && lines[i] != "```"; i++ {
			}
		}
	}
	if pending != nil {
		t.Errorf("%s: %s at the end without a ```sh block", actDoc, actMarker)
	}
	return out
}

// TestActSectionIsRunnable: every command of the act section is marked to
// run, its substitutions apply, nothing left reaches the internet, and what
// runs holds the engine's settings, the images' command and act's flags
// the section states (so TestDocsActSection runs them, not others).
func TestActSectionIsRunnable(t *testing.T) {
	blocks := actBlocks(t)
	if len(blocks) < 4 {
		t.Fatalf("%d runnable blocks in the act section, want the engine, the images, a workflow and the host form", len(blocks))
	}
	var all strings.Builder
	for _, b := range blocks {
		all.WriteString(b.script)
		if strings.Contains(b.script, "https://github.com") {
			t.Errorf("%s:%d: the block run reaches github.com:\n%s", actDoc, b.line, b.script)
		}
		for _, name := range b.env {
			if !actDocEnv[name] {
				t.Errorf("%s:%d: env %s is not one the test sets (%v)", actDoc, b.line, name, actDocEnv)
			}
		}
	}
	for _, want := range []string{
		`default_ulimits = ["nofile=20000:20000"`, `runtime = "runc"`, "export CONTAINERS_CONF=", "podman system service",
		"export DOCKER_HOST=", "/scripts/act-images", "-P ubuntu-latest=localhost/retrywise-act-runner:latest",
		"--pull=false", "--action-offline-mode", "--local-repository retrywise/retrywise@v1=",
		"retrywise/retrywise/host@v1", "--env RETRYWISE_BINARY=", "actions/setup-go@v6=",
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the act section's commands do not hold %q", want)
		}
	}
}

// actDocEnv is what TestDocsActSection sets for an env line.
var actDocEnv = map[string]bool{"PUBLISH_TOKEN": true}
