package cli

import (
	"context"
	"os"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/filecmd"
	"github.com/retrywise/retrywise/internal/redact"
)

// workflowFiles are the file commands of a command's exec steps inside a
// workflow (GITHUB_ACTIONS=true, the runner's $GITHUB_OUTPUT and the like
// set): each attempt writes to files of its own, and only each step's
// final attempt's reach the runner's (action.NewForwarder).
type workflowFiles struct {
	fw    *filecmd.Forwarder
	files *action.Files
	log   *action.Log
	done  func()
}

// workflowFiles returns the command's file commands; nil outside a
// workflow or when the runner set none. Its warnings are workflow
// commands on stderr, masked by red; ctx abandons the writes to the
// runner's files (action.NewFiles).
func (f *factory) workflowFiles(ctx context.Context, red *redact.Redactor, stderr *redact.Writer) (*workflowFiles, error) {
	env := environ.Map(f.env)
	getenv := func(k string) string { return env[k] }
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil, nil
	}
	tmp := getenv("RUNNER_TEMP")
	if st, err := os.Stat(tmp); tmp == "" || err != nil || !st.IsDir() {
		tmp = ""
	}
	w := &workflowFiles{files: action.NewFiles(ctx, getenv), log: action.NewLog(stderr, getenv, red.String, func() { stderr.Flush() })}
	fw, done, err := action.NewForwarder(getenv, tmp, w.files, red.String, w.warn)
	if err != nil || fw == nil {
		return nil, err
	}
	w.fw, w.done = fw, done
	return w, nil
}

// warn writes one warning annotation.
func (w *workflowFiles) warn(title, msg string) { w.log.Warning(title, msg) }

// forwarder is the Forwarder to give the run's services; nil for none.
func (w *workflowFiles) forwarder() *filecmd.Forwarder {
	if w == nil {
		return nil
	}
	return w.fw
}

// writeSummary appends the steps' summaries to the runner's and removes
// the attempts' files: before the command's report, so that its warnings
// come before the one-line reason.
func (w *workflowFiles) writeSummary() {
	if w == nil {
		return
	}
	w.fw.WriteSummary("")
	w.done()
}

// exit is the run's exit code: code, or 78 when the run succeeded but the
// runner's files could not be written (later steps cannot read what it
// wrote), with a warning.
func (w *workflowFiles) exit(code int) int {
	if w == nil {
		return code
	}
	code, msg := w.files.WriteFailureExit(code)
	if msg != "" {
		w.warn("retrywise: file commands not written", msg)
	}
	return code
}
