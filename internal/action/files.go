package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/outputfile"
	"github.com/retrywise/retrywise/internal/redact"
)

// ScriptFileVars are the file commands a run: script may write to; each
// attempt gets files of its own (NewAttemptFiles), and only the final
// attempt's reach the workflow.
var ScriptFileVars = []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}

// NewAttemptFiles returns the script's file commands, a folder of them for
// each attempt in dir (a private folder the caller removes after the run).
func NewAttemptFiles(dir string) *execstep.AttemptFiles {
	return &execstep.AttemptFiles{Dir: dir, Vars: ScriptFileVars}
}

// MaxFileCommand bounds each of the final attempt's $GITHUB_OUTPUT,
// $GITHUB_ENV and $GITHUB_PATH as it is read (1 MiB, outputfile.MaxSize):
// nothing past it is read, and a larger file is refused whole, with a
// warning, rather than cut into a different set of values.
const MaxFileCommand = outputfile.MaxSize

// MaxStepSummary is the most the runner takes of a step's summary
// (1 MiB, 1024 KiB): over it, the runner shows none of it. The script's
// summary and retrywise's own share it.
const MaxStepSummary = 1 << 20

// summaryNoteRoom is what a cut summary keeps free for its note.
const summaryNoteRoom = 512

// lineCutReach is how far back from the limit CutText looks for a line end.
const lineCutReach = 64 << 10

// Final is what the final attempt of a run: script wrote to its file commands.
type Final struct {
	// Outputs are its $GITHUB_OUTPUT entries, in order.
	Outputs []outputfile.Entry
	// Env are its $GITHUB_ENV entries, in order.
	Env []outputfile.Entry
	// Path are the non-empty lines of its $GITHUB_PATH.
	Path []string
	// SummaryFile is its $GITHUB_STEP_SUMMARY, unread ("" when there is
	// none): ReadSummary reads it within a bound.
	SummaryFile string
}

// ReadFinal reads the files of the final attempt (execstep.AttemptFiles.Final)
// after the loop, each within MaxFileCommand; a file the script removed
// holds nothing, as the runner treats it. Only regular files are read, and
// they are opened without blocking (openFinal), so a FIFO the script put in
// a file's place is refused, not waited on; ctx ends the reading between
// files. An error names the variable and never quotes a value.
func ReadFinal(ctx context.Context, files map[string]string) (Final, error) {
	var fin Final
	var errs []error
	for _, name := range ScriptFileVars {
		path := files[name]
		if path == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("$%s: %w", name, context.Cause(ctx)))
			continue
		}
		if name == "GITHUB_STEP_SUMMARY" {
			fin.SummaryFile = path
			continue
		}
		if err := readFinal(&fin, name, path); err != nil {
			errs = append(errs, fmt.Errorf("$%s: %w", name, err))
		}
	}
	return fin, errors.Join(errs...)
}

// openFinal opens a file the script wrote for reading. It must be a
// regular file: a FIFO or a device the script put in its place (mkfifo,
// ln -s /dev/zero) is refused, never waited on.
func openFinal(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readFinal reads one file command file into fin.
func readFinal(fin *Final, name, path string) error {
	f, err := openFinal(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if name != "GITHUB_PATH" {
		entries, err := outputfile.Parse(f)
		if err != nil {
			return err
		}
		if name == "GITHUB_OUTPUT" {
			fin.Outputs = entries
		} else {
			fin.Env = entries
		}
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileCommand+1))
	if err != nil {
		return err
	}
	if len(b) > MaxFileCommand {
		return &outputfile.TooLargeError{Limit: MaxFileCommand}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSuffix(line, "\r"); line != "" {
			fin.Path = append(fin.Path, line)
		}
	}
	return nil
}

// ReadSummary reads at most limit bytes of the summary file at path, never
// more: the text, cut by CutText when the file is longer (cut is true
// then), and the file's size. A file that is not there holds nothing; one
// that is not a regular file is an error.
func ReadSummary(path string, limit int) (text string, cut bool, size int64, err error) {
	f, err := openFinal(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, 0, nil
	}
	if err != nil {
		return "", false, 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max(limit, 0))+1))
	if err != nil {
		return "", false, size, err
	}
	size = max(size, int64(len(b)))
	if len(b) <= limit {
		return string(b), false, size, nil
	}
	return CutText(string(b), limit), true, size, nil
}

// CutText returns s when it is at most limit bytes, else its longest
// prefix of at most limit bytes that ends a line, when one ends in the last
// 64 KiB before the limit, or else that ends a UTF-8 character: never half
// a character.
func CutText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	if limit <= 0 {
		return ""
	}
	if i := strings.LastIndexByte(s[:limit], '\n'); i >= 0 && limit-(i+1) <= lineCutReach {
		return s[:i+1]
	}
	end := limit
	for j := limit; j > 0 && j > limit-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			end = j
			break
		}
	}
	return s[:end]
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

// writeSummary appends to the runner's step summary the run: script's own
// (the final attempt's) and then retrywise's report, masked, together
// within MaxStepSummary: what the runner's file already holds counts, the
// script's summary is read no further than the room left after the report,
// and a cut part ends with a note and gets one warning.
func (a *actionRun) writeSummary(report string) {
	dst := a.getenv("GITHUB_STEP_SUMMARY")
	if !a.summary {
		report = ""
	}
	if dst == "" || (report == "" && a.scriptSummary == "") {
		return
	}
	room := MaxStepSummary
	if st, err := os.Stat(dst); err == nil {
		room -= int(min(st.Size(), MaxStepSummary))
	}
	if room <= 2*summaryNoteRoom {
		a.warn("retrywise: step summary cut", fmt.Sprintf("$GITHUB_STEP_SUMMARY already holds %d bytes of GitHub's %d for a step: the script's summary and retrywise's report are left out", MaxStepSummary-room, MaxStepSummary))
		return
	}
	// Each part is written with a line end after it; the report leaves the
	// script's summary room for its note at least.
	reportRoom := room
	if a.scriptSummary != "" {
		reportRoom -= summaryNoteRoom
	}
	if report != "" && len(report)+1 > reportRoom {
		kept := CutText(report, reportRoom-summaryNoteRoom-1)
		a.warn("retrywise: step summary cut", fmt.Sprintf("retrywise's report is %d bytes, and %d bytes are left of GitHub's %d for the step summary: its first %d bytes are kept", len(report), reportRoom, MaxStepSummary, len(kept)))
		report = kept + summaryNote("retrywise's report", len(kept), int64(len(report)))
	}
	if report != "" {
		room -= len(report) + 1
	}
	if a.scriptSummary != "" {
		a.copyScriptSummary(room)
	}
	if report != "" {
		if err := a.files.AddStepSummary(report); err != nil {
			a.line("cannot write the step summary: %v", err)
		}
	}
}

// copyScriptSummary appends the script's summary, masked, within room
// bytes (its line end included), reading no more of it than that.
func (a *actionRun) copyScriptSummary(room int) {
	limit := room - 1 - summaryNoteRoom
	text, cut, size, err := ReadSummary(a.scriptSummary, max(limit, 0))
	if err != nil {
		a.warn("retrywise: step summary", fmt.Sprintf("cannot read the script's step summary: %v", err))
		return
	}
	if !cut {
		// Masking rarely lengthens a text (a 1-byte credential becomes ***):
		// a text that no longer fits is cut as a longer one is.
		masked := a.red.String(text)
		if len(masked)+1 <= room {
			if masked != "" {
				a.addSummary(masked)
			}
			return
		}
		text, cut = masked, true
	}
	// The cut marker lets the redactor mask the fragment of a secret the
	// cut left at the end; the masked text is cut again, should masking
	// have made it longer.
	masked := strings.TrimSuffix(a.red.String(text+redact.Cut), redact.Cut)
	kept := CutText(masked, max(limit, 0))
	a.warn("retrywise: step summary cut", fmt.Sprintf("the script's step summary is %d bytes: its first %d bytes are kept, with a note, so that it and retrywise's report stay within GitHub's %d bytes (1 MiB) for a step's summary", size, len(kept), MaxStepSummary))
	a.addSummary(kept + summaryNote("the script's step summary", len(kept), size))
}

// addSummary appends text to the runner's step summary, or says why it cannot.
func (a *actionRun) addSummary(text string) {
	if err := a.files.AddStepSummary(text); err != nil {
		a.warn("retrywise: step summary", err.Error())
	}
}

// summaryNote is the visible note after a cut part of the step summary;
// it is shorter than summaryNoteRoom.
func summaryNote(what string, kept int, size int64) string {
	nl := ""
	if kept > 0 {
		nl = "\n"
	}
	return fmt.Sprintf("%s\n> [!WARNING]\n> %s was cut here by retrywise: %d of its %d bytes are shown. GitHub shows no step summary over 1 MiB (%d bytes), and the script's summary and retrywise's report share it.\n", nl, what, kept, size, MaxStepSummary)
}
