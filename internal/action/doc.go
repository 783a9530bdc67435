// Package action is retrywise's side of the GitHub Actions runner: which
// mode the action's inputs choose and how an input's text becomes flag
// values, the workflow commands of the log (masks, groups, stop-commands,
// annotations) and the file commands (outputs, env, path, step summary),
// all written through github.com/sethvargo/go-githubactions, and the files
// a run: script writes, of which only the final attempt's reach the
// workflow.
//
// Main runs the chosen mode: a step of the mode's kind, configured from the
// inputs through the kind's one field table (internal/step), or a job of a
// job file (internal/jobs); then the outputs, the step summary, one
// annotation, the JSON report, and the failure issue. internal/cli's
// `retrywise action` only hands it the process's streams and services
// (Host).
package action
