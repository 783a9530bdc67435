// Package action is retrywise's side of the GitHub Actions runner: which
// mode the action's inputs choose and how an input's text becomes flag
// values, the workflow commands of the log (masks, groups, stop-commands,
// annotations) and the file commands (outputs, env, path, step summary),
// all written through github.com/sethvargo/go-githubactions, and the files
// a run: script writes, of which only the final attempt's reach the
// workflow.
//
// The command that runs a mode is internal/cli's `retrywise action`; this
// package knows nothing of step kinds.
package action
