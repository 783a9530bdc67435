// Package docgen keeps the generated regions of the Markdown docs (README.md,
// docs/**/*.md) in step with their sources. A region is
//
//	<!-- generated: NAME -->
//	...
//	<!-- end generated -->
//
// and its content is written only by internal/artefact, which renders every
// region (each command's --help and options, the action's inputs and
// outputs, the failure codes) with the other generated files:
//
//	go generate ./...
//
// It is used by the generator and tests only and is not linked into the
// binary.
package docgen

import (
	"fmt"
	"sort"
	"strings"
)

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
