// Package acttest runs the action under act (nektos/act) with podman's
// Docker API, as a user runs it on their machine: workflows in run:, url,
// push and config modes against stand-ins on 127.0.0.1 (an API that answers
// 503 then 200, a denying Squid, a git remote that moved on), checking that
// the outputs, a job output and the report file reach later steps and that
// the summary and the annotations reach act's log.
//
// The tests carry the build tag act and run through scripts/test-act, which
// installs act and podman, starts the Docker API, and builds the images.
package acttest
