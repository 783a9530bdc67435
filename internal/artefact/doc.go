// Package artefact renders every generated file of the repository from its
// one source: action.yml and host/action.yml (the action's modes and
// inputs), docs/job.schema.json (the step kinds' field tables),
// docs/report.schema.json (the report's Go types), the generated regions of
// the docs (each command's --help and options table, the action's inputs and
// outputs, the failure codes) and internal/failure/builtin_codes.go (the
// codes the package declares).
//
// One command rewrites them all, from the repository's root:
//
//	go generate ./...
//
// and TestGeneratedFilesAreCurrent fails when one is stale. It is used by the
// generator and the tests only and is not linked into the binary.
package artefact

//go:generate go run ./generate
