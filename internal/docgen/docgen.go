// Package docgen keeps the generated regions of the Markdown docs (README.md,
// docs/**/*.md) in step with their sources. A region is
//
//	<!-- generated: NAME -->
//	...
//	<!-- end generated -->
//
// and its content is written only by the tests that own NAME (the failure
// codes from internal/failure, the action's inputs and outputs and each
// command's --help from internal/cli), run with -update-docs:
//
//	go test ./internal/cli ./internal/failure -run TestDocsTables -update-docs
//
// Without -update-docs the same tests fail when a region is stale. It is used
// by tests only and is not linked into the binary.
package docgen

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// UpdateCommand is the one command that rewrites every generated region.
const UpdateCommand = "go test ./internal/cli ./internal/failure -run TestDocsTables -update-docs"

const endMarker = "<!-- end generated -->"

// Begin returns the line that opens region name.
func Begin(name string) string { return "<!-- generated: " + name + " -->" }

// Replace returns text with the content of each region in regions replaced
// by its new content (framed by blank lines). Every region named must be
// present exactly once.
func Replace(text string, regions map[string]string) (string, error) {
	names := make([]string, 0, len(regions))
	for n := range regions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		begin := Begin(n)
		if c := strings.Count(text, begin+"\n"); c != 1 {
			return "", fmt.Errorf("%d regions %q, want 1 (a line %q, then one %q)", c, n, begin, endMarker)
		}
		i := strings.Index(text, begin+"\n") + len(begin) + 1
		j := strings.Index(text[i:], endMarker)
		if j < 0 {
			return "", fmt.Errorf("region %q has no %q", n, endMarker)
		}
		text = text[:i] + "\n" + strings.TrimRight(regions[n], "\n") + "\n\n" + text[i+j:]
	}
	return text, nil
}

// Sync brings the regions of the file at path up to date when update is
// true; either way it returns the names of the regions that were stale
// before (none: the file is up to date).
func Sync(path string, regions map[string]string, update bool) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(b)
	want, err := Replace(text, regions)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var stale []string
	for n, content := range regions {
		if r, _ := Replace(text, map[string]string{n: content}); r != text {
			stale = append(stale, n)
		}
	}
	sort.Strings(stale)
	if update && want != text {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			return nil, err
		}
	}
	return stale, nil
}
