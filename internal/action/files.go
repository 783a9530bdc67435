package action

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/retrywise/retrywise/internal/filecmd"
)

// NewForwarder returns the file commands of the exec steps of a run
// inside a workflow (the action; retrywise exec and run when
// GITHUB_ACTIONS=true): each attempt gets files of its own for every file
// command the runner set, in a private folder under tempDir, and only each
// step's final attempt's are copied into files (the runner's), masked by
// mask, with warn's warnings. It returns nil when the runner set none;
// done removes the folder after the run.
func NewForwarder(getenv Getenv, tempDir string, files *Files, mask func(string) string, warn func(title, msg string)) (fw *filecmd.Forwarder, done func(), err error) {
	vars := filecmd.Present(getenv)
	if len(vars) == 0 {
		return nil, func() {}, nil
	}
	// A private folder (MkdirTemp's 0700), removed when the run ends.
	dir, err := os.MkdirTemp(tempDir, "retrywise-files-")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create the file commands: %w", err)
	}
	fw = &filecmd.Forwarder{Dir: dir, Vars: vars, Files: files, SummaryPath: getenv("GITHUB_STEP_SUMMARY"), Mask: mask, Warn: warn}
	return fw, func() { os.RemoveAll(dir) }, nil
}

// ActShareDir is the folder act shares between a job's steps and its
// actions' containers (a volume at /var/run/act), besides the workspace.
// A variable so a test can point it elsewhere.
var ActShareDir = "/var/run/act"

// ActShare returns the folder, under act (ACT=true), for the files later
// steps read (the JSON report, http's body-file): act sets RUNNER_TEMP to
// /tmp, which is private to a Docker action's container, and the workspace
// is where a later `git add -A` would commit them, so they go to
// ActShareDir/retrywise, which every step of the job sees at the same path.
// It returns "" on the runner (no ACT=true) or when that folder cannot be
// made; the caller keeps its own placement then.
func ActShare(getenv Getenv) string {
	if getenv("ACT") != "true" {
		return ""
	}
	if st, err := os.Stat(ActShareDir); err != nil || !st.IsDir() {
		return ""
	}
	dir := filepath.Join(ActShareDir, "retrywise")
	// Readable by whoever runs the later steps (act's job container may
	// run them as another user than the action's root).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

// writeSummary appends to the runner's step summary the exec steps' own
// (their final attempts') and then retrywise's report, masked, together
// within filecmd.MaxStepSummary (Forwarder.WriteSummary).
func (a *actionRun) writeSummary(report string) {
	if !a.summary {
		report = ""
	}
	if a.fw != nil {
		a.fw.WriteSummary(report)
		return
	}
	if report != "" && a.getenv("GITHUB_STEP_SUMMARY") != "" {
		fw := &filecmd.Forwarder{Files: a.files, SummaryPath: a.getenv("GITHUB_STEP_SUMMARY"), Warn: a.warn}
		fw.WriteSummary(report)
	}
}
