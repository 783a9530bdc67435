// Package filecmd is the workflow's file commands ($GITHUB_OUTPUT,
// $GITHUB_ENV, $GITHUB_PATH and $GITHUB_STEP_SUMMARY) of the commands
// retrywise runs inside a workflow, in every mode: the action's run: and
// config: modes, and retrywise exec and run as a workflow's step
// (GITHUB_ACTIONS=true). Each attempt of an exec step writes to files of
// its own (execstep.AttemptFiles); after the step's loop a Forwarder copies
// the final attempt's into the runner's, each read within a bound and
// never whole, validated (internal/outputfile) and masked, and the step
// summaries of every step and retrywise's own report stay within
// GitHub's 1 MiB for a step's summary.
package filecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/outputfile"
)

// Vars are the file commands an attempt may write to; each attempt gets
// files of its own, and only the final attempt's reach the workflow.
var Vars = []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}

// MaxFileCommand bounds each of the final attempt's $GITHUB_OUTPUT,
// $GITHUB_ENV and $GITHUB_PATH as it is read (1 MiB, outputfile.MaxSize):
// nothing past it is read, and a larger file is refused whole, with a
// warning, rather than cut into a different set of values.
const MaxFileCommand = outputfile.MaxSize

// MaxStepSummary is the most the runner takes of a step's summary
// (1 MiB, 1024 KiB): over it, the runner shows none of it. The commands'
// summaries and retrywise's own share it.
const MaxStepSummary = 1 << 20

// NoteRoom is what a cut summary keeps free for its note.
const NoteRoom = 512

// lineCutReach is how far back from the limit CutText looks for a line end.
const lineCutReach = 64 << 10

// Final is what the final attempt of an exec step wrote to its file commands.
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
// after the loop, each within MaxFileCommand; a file the command removed
// holds nothing, as the runner treats it. Only regular files are read, and
// they are opened without blocking (outputfile.OpenRegular), so a FIFO the
// command put in a file's place is refused, not waited on; ctx ends the
// reading between files. An error names the variable and never quotes a
// value.
func ReadFinal(ctx context.Context, files map[string]string) (Final, error) {
	var fin Final
	var errs []error
	for _, name := range Vars {
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

// readFinal reads one file command file into fin.
func readFinal(fin *Final, name, path string) error {
	f, err := outputfile.OpenRegular(path)
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
	f, err := outputfile.OpenRegular(path)
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

// summaryNote is the visible note after a cut part of the step summary;
// with left (the later summaries left out) under 1000, it is shorter than
// NoteRoom.
func summaryNote(what string, kept int, size int64, left int) string {
	nl := ""
	if kept > 0 {
		nl = "\n"
	}
	what = CutText(what, 150)
	more := ""
	if left > 0 {
		more = fmt.Sprintf("\n> The step summaries of %d later step(s) are left out.", left)
	}
	return fmt.Sprintf("%s\n> [!WARNING]\n> %s was cut here by retrywise: %d of its %d bytes are shown. GitHub shows no step summary over 1 MiB (%d bytes), and the commands' summaries and retrywise's report share it.%s\n", nl, what, kept, size, MaxStepSummary, more)
}
