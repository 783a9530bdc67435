// Package containertest runs the retrywise container image the way the GitHub
// runner runs a Docker container action: the image's entrypoint with
// action.yml's args, the workspace at /github/workspace, the file commands at
// /github/file_commands, every declared input as an INPUT_* variable, and the
// rest of the runner's environment. It asserts what a workflow sees: the exit
// code, the GITHUB_OUTPUT file, the step summary, the workflow commands on
// stdout, and that a token never leaks.
//
// Its tests are built only with -tags container and need root, buildah and an
// image built from the repository's Dockerfile; scripts/test-container builds
// the image (with the base images it needs) and runs them. Nothing else lives
// here.
package containertest
