package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles returns README.md, CONTRIBUTING.md and every Markdown page
// under docs/, relative to the repository's root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdCodeSpan = regexp.MustCompile("`+[^`]*`+")
	mdHTMLTag  = regexp.MustCompile(`<[^>]+>`)
)

// proseLines returns the lines of a Markdown text outside fenced blocks,
// with their line numbers.
func proseLines(text string) (lines []string, numbers []int) {
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		case fence == "":
			lines = append(lines, l)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// githubAnchor is the anchor GitHub gives a heading: its text lower-cased,
// every character but letters, digits, spaces, '-' and '_' removed, and
// spaces turned into '-'.
func githubAnchor(heading string) string {
	heading = mdHTMLTag.ReplaceAllString(heading, "")
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown text's headings, duplicates
// numbered -1, -2, ... as GitHub does.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines, _ := proseLines(text)
	for _, l := range lines {
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := githubAnchor(m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocsLinks: every relative link of README.md, CONTRIBUTING.md and
// docs/**/*.md names a file that exists and, with #anchor, a heading of it
// (GitHub's anchor rules).
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	texts := map[string]string{}
	read := func(rel string) (string, bool) {
		if s, ok := texts[rel]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return "", false
		}
		texts[rel] = string(b)
		return string(b), true
	}
	checked := 0
	for _, file := range markdownFiles(t, root) {
		text, ok := read(file)
		if !ok {
			t.Errorf("%s does not exist", file)
			continue
		}
		lines, numbers := proseLines(text)
		for i, l := range lines {
			l = mdCodeSpan.ReplaceAllString(l, "")
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Clean(filepath.Join(filepath.Dir(file), path))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", file, numbers[i], target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				destText, ok := read(dest)
				if !ok || !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %s: an anchor into %s, which is not a Markdown page", file, numbers[i], target, dest)
					continue
				}
				if !anchors(destText)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s", file, numbers[i], target, dest, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the link pattern right?", checked)
	}
}

// TestGithubAnchor: GitHub's rules on headings the docs have.
func TestGithubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"A first run: the demo (offline)":                      "a-first-run-the-demo-offline",
		"`retrywise exec [flags] -- CMD [ARGS...]`":            "retrywise-exec-flags----cmd-args",
		"Egress: \"not allowed\" or \"not reachable\"":         "egress-not-allowed-or-not-reachable",
		"Conditions: `if:`":                                    "conditions-if",
		"Flags, as `retrywise push --help` prints them":        "flags-as-retrywise-push---help-prints-them",
		"The failure issue (`report-issue: true`)":             "the-failure-issue-report-issue-true",
		"Start-up, and the push target":                        "start-up-and-the-push-target",
		"Checking and running: `validate`, `run`, `--dry-run`": "checking-and-running-validate-run---dry-run",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
	a := anchors("# Outputs\n\n## Outputs\n\n```\n# not a heading\n```\n### Outputs\n")
	for _, want := range []string{"outputs", "outputs-1", "outputs-2"} {
		if !a[want] {
			t.Errorf("anchors: no %s in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("anchors: a fenced line is not a heading")
	}
}
