// Package workflows holds the lint test of the repository's GitHub Actions
// files: .github/workflows/*.yml and examples/workflows/*.yml are checked with
// actionlint (as a library), with `uses: ./` and `uses: ./host` resolved
// against the repository's action.yml and host/action.yml, so a wrong input
// name in a workflow fails the test. It has no code of its own.
package workflows
