// Package tools holds the recognisers of the tool families that scheduled
// jobs run (npm, docker and the registries, PyPI's twine, cargo, the GitHub
// CLI, goreleaser, the agent CLIs, GitHub's own actions), one file and its
// codes per family, on the matcher API of package failure. Its init
// registers them with failure.Register: import it (blank) where a program
// is assembled; failure panics when asked to classify with none registered.
package tools

import "github.com/retrywise/retrywise/internal/failure"

func init() {
	// The order --tool auto tries the families' marks.
	failure.Register(
		&npmFamily, &dockerFamily, &twineFamily, &cargoFamily, &ghFamily, &goreleaserFamily,
		&codexFamily, &claudeFamily, &geminiFamily, &aiderFamily, &actionsFamily, &rsyncFamily,
	)
}
