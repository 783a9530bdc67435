package filecmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/outputfile"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/userfile"
)

// Writer is the runner's file commands (action.Files): what a Forwarder
// copies the final attempts' files into.
type Writer interface {
	SetOutput(name, value string) error
	SetEnv(name, value string) error
	AddPath(dir string) error
	AddStepSummary(markdown string) error
}

// Forwarder gives the exec steps of one run file commands of their own,
// per attempt, and copies each step's final attempt's into the runner's
// once the step's loop ended. A process an attempt leaves in the
// background keeps its attempt's files, which nobody reads after the copy.
//
// $GITHUB_OUTPUT and $GITHUB_ENV are parsed in the runner's format within
// MaxFileCommand and written again through Files; $GITHUB_PATH is read
// within MaxFileCommand. A file over its bound, one that does not parse
// or one that is not a regular file is left out whole, with one warning.
// The step summaries are kept, masked, within MaxStepSummary in all, and
// WriteSummary appends them, then retrywise's report, to the runner's
// summary within MaxStepSummary, what the runner's file already holds
// included.
type Forwarder struct {
	// Dir is a private folder (0700) the caller made and removes after the
	// run: each step's attempts get folders in a folder of their own there.
	Dir string
	// Vars are the file commands the attempts get: those the runner set.
	Vars []string
	// Files are the runner's file commands.
	Files Writer
	// SummaryPath is the runner's $GITHUB_STEP_SUMMARY ("" when unset):
	// what it already holds counts against MaxStepSummary.
	SummaryPath string
	// Mask masks what is copied: outputs and summaries (not $GITHUB_ENV
	// and $GITHUB_PATH, which later steps use as they are); nil means as it is.
	Mask func(string) string
	// Warn writes one warning annotation; nil means none.
	Warn func(title, msg string)
	// Reserved, when set, says why an output name is the caller's own
	// ("" when it is not): such an output is not copied, and Warn says why.
	Reserved func(name string) string

	mu sync.Mutex
	// parts are the steps' summaries, masked, in order; kept is their size.
	parts []part
	kept  int
	// outputs are the $GITHUB_OUTPUT entries of the last step forwarded.
	outputs []outputfile.Entry
}

// part is one step's summary, kept for WriteSummary.
type part struct {
	// what names whose summary it is ("the script's step summary").
	what string
	// text is what was read of it, masked; cut is true when that is not all.
	text string
	cut  bool
	// size is the size of the step's whole summary file.
	size int64
}

// Present returns the file commands of Vars that getenv names a file for.
func Present(getenv func(string) string) []string {
	var out []string
	for _, v := range Vars {
		if getenv(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// Attempts returns the attempt files of one step, in a new folder under
// Dir; done removes the folder once the step forwarded its final attempt's.
func (f *Forwarder) Attempts() (files *execstep.AttemptFiles, done func(), err error) {
	dir, err := os.MkdirTemp(f.Dir, "step-")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create the file commands: %w", err)
	}
	return &execstep.AttemptFiles{Dir: dir, Vars: f.Vars}, func() { os.RemoveAll(dir) }, nil
}

// Forward copies the files of a step's final attempt (AttemptFiles.Final)
// into the runner's, and keeps its step summary for WriteSummary; who
// names the step in warnings ("the script", "step build"). Outputs
// returns its $GITHUB_OUTPUT entries afterwards. A step a signal ended is
// still forwarded, within userfile.Finishing's grace from ctx.
func (f *Forwarder) Forward(ctx context.Context, who string, files map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ctx, cancel := userfile.Finishing(ctx) // a cancelled run's files are still forwarded
	defer cancel()
	fin, err := ReadFinal(ctx, files)
	f.outputs = fin.Outputs
	if err != nil {
		f.warn("retrywise: "+who+"'s file commands", err.Error()+"; nothing of such a file reaches the workflow")
	}
	for _, e := range fin.Outputs {
		if why := f.reserved(e.Name); why != "" {
			f.warn("retrywise: reserved output", fmt.Sprintf("%s's output %q has the name of one of the action's own outputs: %s", who, e.Name, why))
			continue
		}
		if err := f.Files.SetOutput(e.Name, f.mask(e.Value)); err != nil {
			f.warn("retrywise: output "+e.Name, err.Error())
		}
	}
	for _, e := range fin.Env {
		if err := f.Files.SetEnv(e.Name, e.Value); err != nil {
			f.warn("retrywise: env "+e.Name, err.Error())
		}
	}
	for _, p := range fin.Path {
		if err := f.Files.AddPath(p); err != nil {
			f.warn("retrywise: path", err.Error())
		}
	}
	if fin.SummaryFile != "" && f.SummaryPath != "" {
		f.keepSummary(who+"'s step summary", fin.SummaryFile)
	}
}

// Outputs returns the $GITHUB_OUTPUT entries of the last step Forward
// copied, in order, reserved names included (the action's run: mode puts
// them in its output outputs).
func (f *Forwarder) Outputs() []outputfile.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outputs
}

// keepSummary reads a step's summary no further than what is left of
// MaxStepSummary after the runner's file and the summaries kept before,
// and keeps it masked.
func (f *Forwarder) keepSummary(what, path string) {
	limit := MaxStepSummary - f.runnerSize() - f.kept
	text, cut, size, err := ReadSummary(path, max(limit, 0))
	if err != nil {
		f.warn("retrywise: step summary", fmt.Sprintf("cannot read %s: %v", what, err))
		return
	}
	if text == "" && !cut {
		return
	}
	if cut {
		// The cut marker lets the redactor mask the fragment of a secret
		// the cut left at the end.
		text = strings.TrimSuffix(f.mask(text+redact.Cut), redact.Cut)
	} else {
		text = f.mask(text)
	}
	f.parts = append(f.parts, part{what: what, text: text, cut: cut, size: size})
	f.kept += len(text)
}

// runnerSize is what the runner's summary already holds, at most MaxStepSummary.
func (f *Forwarder) runnerSize() int {
	if st, err := os.Stat(f.SummaryPath); err == nil {
		return int(min(st.Size(), MaxStepSummary))
	}
	return 0
}

// WriteSummary appends to the runner's step summary the steps' summaries
// kept by Forward, in order, and then report (retrywise's own, already
// masked; "" for none), together within MaxStepSummary: what the runner's
// file already holds counts, the report's room is set aside first, a
// summary that does not fit in what is left is cut there with a visible
// note and the later ones are left out, and each cut gets one warning.
func (f *Forwarder) WriteSummary(report string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := f.parts
	f.parts, f.kept = nil, 0
	if f.SummaryPath == "" || (report == "" && len(parts) == 0) {
		return
	}
	room := MaxStepSummary - f.runnerSize()
	if room <= 2*NoteRoom {
		f.warn("retrywise: step summary cut", fmt.Sprintf("$GITHUB_STEP_SUMMARY already holds %d bytes of GitHub's %d for a step: the commands' summaries and retrywise's report are left out", MaxStepSummary-room, MaxStepSummary))
		return
	}
	// Each part is written with a line end after it; the report leaves the
	// summaries room for a note at least.
	reportRoom := room
	if len(parts) > 0 {
		reportRoom -= NoteRoom
	}
	if report != "" && len(report)+1 > reportRoom {
		kept := CutText(report, reportRoom-NoteRoom-1)
		f.warn("retrywise: step summary cut", fmt.Sprintf("retrywise's report is %d bytes, and %d bytes are left of GitHub's %d for the step summary: its first %d bytes are kept", len(report), reportRoom, MaxStepSummary, len(kept)))
		report = kept + summaryNote("retrywise's report", len(kept), int64(len(report)), 0)
	}
	if report != "" {
		room -= len(report) + 1
	}
	for i, p := range parts {
		later := len(parts) - i - 1
		// A summary that fits whole leaves a later one room for its note.
		free := room
		if later > 0 {
			free -= NoteRoom
		}
		if !p.cut && len(p.text)+1 <= free {
			f.add(p.text)
			room -= len(p.text) + 1
			continue
		}
		kept := CutText(p.text, max(room-1-NoteRoom, 0))
		msg := fmt.Sprintf("%s is %d bytes: its first %d bytes are kept, with a note, so that the step summary stays within GitHub's %d bytes (1 MiB) for a step", p.what, p.size, len(kept), MaxStepSummary)
		if later > 0 {
			msg += fmt.Sprintf("; the summaries of %d later step(s) are left out", later)
		}
		f.warn("retrywise: step summary cut", msg)
		f.add(kept + summaryNote(p.what, len(kept), p.size, later))
		break
	}
	if report != "" {
		f.add(report)
	}
}

// add appends text to the runner's step summary, or warns why it cannot.
func (f *Forwarder) add(text string) {
	if err := f.Files.AddStepSummary(text); err != nil {
		f.warn("retrywise: step summary", err.Error())
	}
}

func (f *Forwarder) warn(title, msg string) {
	if f.Warn != nil {
		f.Warn(title, msg)
	}
}

func (f *Forwarder) mask(s string) string {
	if f.Mask == nil {
		return s
	}
	return f.Mask(s)
}

func (f *Forwarder) reserved(name string) string {
	if f.Reserved == nil {
		return ""
	}
	return f.Reserved(name)
}
