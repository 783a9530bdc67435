package filecmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/outputfile"
	"github.com/retrywise/retrywise/internal/redact"
)

// finalFiles returns the file commands of one attempt, as
// execstep.AttemptFiles gives them, in dir.
func finalFiles(dir string) map[string]string {
	m := map[string]string{}
	for _, v := range Vars {
		m[v] = filepath.Join(dir, strings.ToLower(v))
	}
	return m
}

func TestReadFinal(t *testing.T) {
	dir := t.TempDir()
	files := finalFiles(dir)
	os.WriteFile(files["GITHUB_OUTPUT"], []byte("a=1\nb<<E\nx\ny\nE\n"), 0o600)
	os.WriteFile(files["GITHUB_PATH"], []byte("/one\r\n\n/two\n"), 0o600)
	os.WriteFile(files["GITHUB_STEP_SUMMARY"], []byte("# hi\n"), 0o600)
	// GITHUB_ENV: removed by the script, which means nothing was written.
	fin, err := ReadFinal(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if m := outputfile.Map(fin.Outputs); m["a"] != "1" || m["b"] != "x\ny" || len(fin.Env) != 0 || !slices.Equal(fin.Path, []string{"/one", "/two"}) || fin.SummaryFile != files["GITHUB_STEP_SUMMARY"] {
		t.Errorf("final = %+v", fin)
	}
	os.WriteFile(files["GITHUB_ENV"], []byte("no separator here\n"), 0o600)
	if _, err := ReadFinal(context.Background(), files); err == nil || !strings.Contains(err.Error(), "$GITHUB_ENV") {
		t.Errorf("a malformed $GITHUB_ENV = %v", err)
	}
}

// TestReadFinalRefusesAFileOverTheBound: a file command over
// MaxFileCommand is refused whole, named, without its value, and the
// others are still read.
func TestReadFinalRefusesAFileOverTheBound(t *testing.T) {
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files := finalFiles(dir)
			os.WriteFile(files["GITHUB_OUTPUT"], []byte("ok=1\n"), 0o600)
			big := "BIG=" + strings.Repeat("s3cr3t", MaxFileCommand/6) + "\n"
			if name == "GITHUB_PATH" {
				big = strings.Repeat("/some/bin\n", MaxFileCommand/10+1)
			}
			os.WriteFile(files[name], []byte(big), 0o600)
			fin, err := ReadFinal(context.Background(), files)
			var tl *outputfile.TooLargeError
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), "$"+name) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("err = %v, want a TooLargeError naming $%s", err, name)
			}
			if name != "GITHUB_OUTPUT" && outputfile.Map(fin.Outputs)["ok"] != "1" {
				t.Errorf("the other files were not read: %+v", fin.Outputs)
			}
			if len(fin.Env) != 0 || len(fin.Path) != 0 {
				t.Errorf("part of a refused file was kept: %d env, %d path", len(fin.Env), len(fin.Path))
			}
		})
	}
}

func TestCutText(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  string
	}{
		{"short\n", 10, "short\n"},
		{"one\ntwo\nthree\n", 10, "one\ntwo\n"},
		// No line end: never half of a character.
		{"aéé", 2, "a"},
		{"aéé", 3, "aé"},
		{"a✓", 3, "a"},
		{"a✓b", 4, "a✓"},
		{"😀😀", 7, "😀"},
		{"x", 0, ""},
		// A line end further back than 64 KiB is not worth the loss.
		{"a\n" + strings.Repeat("é", 40<<10), 70<<10 + 1, "a\n" + strings.Repeat("é", (70<<10-2)/2)},
	}
	for _, tt := range tests {
		got := CutText(tt.s, tt.limit)
		if got != tt.want {
			t.Errorf("CutText(%.20q, %d) = %.20q (%d bytes), want %.20q (%d bytes)", tt.s, tt.limit, got, len(got), tt.want, len(tt.want))
		}
		if len(got) > tt.limit && len(tt.s) > tt.limit || !utf8.ValidString(got) {
			t.Errorf("CutText(%.20q, %d) = %.20q: over the limit or not UTF-8", tt.s, tt.limit, got)
		}
	}
}

// TestReadSummaryReadsNoMoreThanItsLimit: a summary that grows while it
// is read is read up to limit+1 bytes only.
func TestReadSummaryReadsNoMoreThanItsLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary")
	os.WriteFile(path, []byte("line one\nline two\nline three\n"), 0o600)
	text, cut, size, err := ReadSummary(path, 12)
	if err != nil || !cut || text != "line one\n" || size != 29 {
		t.Errorf("ReadSummary = %q, %v, %d, %v; want the first line, cut, 29", text, cut, size, err)
	}
}

// TestReadFinalRefusesWhatIsNotARegularFile: a script that puts a FIFO
// no one writes, or a device, in place of its file commands gets an error
// at once, not a step that hangs or reads forever.
func TestReadFinalRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	files := finalFiles(dir)
	if err := syscall.Mkfifo(files["GITHUB_OUTPUT"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(files["GITHUB_STEP_SUMMARY"], 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", files["GITHUB_ENV"])
	done := make(chan struct{})
	go func() {
		defer close(done)
		fin, err := ReadFinal(context.Background(), files)
		if err == nil || !strings.Contains(err.Error(), "$GITHUB_OUTPUT: not a regular file") || !strings.Contains(err.Error(), "$GITHUB_ENV: not a regular file") {
			t.Errorf("ReadFinal = %v", err)
		}
		if _, _, _, err := ReadSummary(fin.SummaryFile, 100); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadSummary of a FIFO = %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reading the file commands blocked on a FIFO")
	}
}

func TestSummaryNoteFitsItsRoom(t *testing.T) {
	n := summaryNote(strings.Repeat("step x", 100), MaxStepSummary, 1<<62, 999)
	if len(n) >= NoteRoom || !strings.Contains(n, "was cut") {
		t.Errorf("note of %d bytes (room %d): %q", len(n), NoteRoom, n)
	}
}

// summaryFiles is the runner's step summary, as action.Files writes it.
type summaryFiles struct{ path string }

func (s summaryFiles) SetOutput(name, value string) error { return errors.New("no outputs here") }
func (s summaryFiles) SetEnv(name, value string) error    { return errors.New("no env here") }
func (s summaryFiles) AddPath(dir string) error           { return errors.New("no path here") }
func (s summaryFiles) AddStepSummary(md string) error {
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, md)
	return err
}

// summaryForwarder is a Forwarder writing the runner's step summary at
// sum, masking secret, with its warnings in log.
func summaryForwarder(sum, secret string, log *bytes.Buffer) *Forwarder {
	red := redact.New(redact.Options{Values: []string{secret}})
	return &Forwarder{Files: summaryFiles{sum}, SummaryPath: sum, Mask: red.String, Warn: func(title, msg string) { fmt.Fprintf(log, "warning %s: %s\n", title, msg) }}
}

// stepSummary is a step's final attempt's files with only a summary.
func stepSummary(t *testing.T, text string) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "github_step_summary")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"GITHUB_STEP_SUMMARY": path}
}

// TestStepSummaryCutMasksTheSecretItSplits: a script's one-line summary
// with a secret across the cut keeps none of the secret's fragment.
func TestStepSummaryCutMasksTheSecretItSplits(t *testing.T) {
	secret := "Zq8Xv2Lk9Wm4Rt7Yp3Hn6Bc1"
	report := "### retrywise: exec — success\n"
	for _, at := range []struct {
		name  string
		limit int
	}{
		// Across the cut WriteSummary makes for the report, and across the
		// cut of the read itself (1 MiB).
		{"report", MaxStepSummary - (len(report) + 1) - 1 - NoteRoom},
		{"read", MaxStepSummary},
	} {
		t.Run(at.name, func(t *testing.T) {
			sum := filepath.Join(t.TempDir(), "summary")
			var log bytes.Buffer
			fw := summaryForwarder(sum, secret, &log)
			fw.Forward(context.Background(), "the script", stepSummary(t, strings.Repeat("a", at.limit-10)+secret+strings.Repeat("b", 100<<10)))
			fw.WriteSummary(report)
			b, _ := os.ReadFile(sum)
			got := string(b)
			if len(b) > MaxStepSummary || !strings.HasSuffix(got, report+"\n") || !strings.Contains(got, "the script's step summary was cut here") {
				t.Errorf("summary of %d bytes ends %q", len(b), got[max(0, len(got)-600):])
			}
			if strings.Contains(got, secret[:10]) || strings.Contains(got, secret[:4]) {
				t.Errorf("the summary keeps the fragment of the secret the cut split")
			}
			if !strings.Contains(log.String(), "warning retrywise: step summary cut:") {
				t.Errorf("no warning: %q", log.String())
			}
		})
	}
}

// TestStepSummaryFitsWithoutACut: summaries that fit are copied whole,
// in order, masked, without a note or a warning.
func TestStepSummaryFitsWithoutACut(t *testing.T) {
	secret := "Zq8Xv2Lk9Wm4Rt7Yp3Hn6Bc1"
	sum := filepath.Join(t.TempDir(), "summary")
	var log bytes.Buffer
	fw := summaryForwarder(sum, secret, &log)
	fw.Forward(context.Background(), "step a", stepSummary(t, "# mine\ntoken "+secret+"\n"))
	fw.Forward(context.Background(), "step b", stepSummary(t, "# b\n"))
	fw.WriteSummary("### report\n")
	if b, _ := os.ReadFile(sum); string(b) != "# mine\ntoken ***\n\n# b\n\n### report\n\n" {
		t.Errorf("summary = %q", b)
	}
	if log.Len() != 0 {
		t.Errorf("log = %q", log.String())
	}
}

// TestStepSummariesOfAJobShareTheMiB: the steps of a job and the report
// together stay within 1 MiB, what the runner's file held counts; the
// step that does not fit is cut with a note, the later ones are left out
// and said so.
func TestStepSummariesOfAJobShareTheMiB(t *testing.T) {
	sum := filepath.Join(t.TempDir(), "summary")
	os.WriteFile(sum, []byte(strings.Repeat("earlier step\n", 10000)), 0o600)
	var log bytes.Buffer
	fw := summaryForwarder(sum, "unused-secret-value", &log)
	fw.Forward(context.Background(), "step a", stepSummary(t, strings.Repeat("| a | row |\n", 50000)))
	fw.Forward(context.Background(), "step b", stepSummary(t, strings.Repeat("| b | row |\n", 50000)))
	fw.Forward(context.Background(), "step c", stepSummary(t, "# c\n"))
	report := "### retrywise: job — success\n" + strings.Repeat("| step | ok |\n", 1000)
	fw.WriteSummary(report)
	b, _ := os.ReadFile(sum)
	got := string(b)
	if len(b) > MaxStepSummary {
		t.Errorf("summary is %d bytes, over %d", len(b), MaxStepSummary)
	}
	if !strings.Contains(got, "| a | row |\n") || !strings.Contains(got, "step b's step summary was cut here") || !strings.Contains(got, "1 later step(s) are left out") || strings.Contains(got, "# c\n") || !strings.HasSuffix(got, report+"\n") {
		t.Errorf("summary ends %q", got[max(0, len(got)-1200):])
	}
	if strings.Count(log.String(), "step summary cut") != 1 || !strings.Contains(log.String(), "step b's step summary is 600000 bytes") {
		t.Errorf("log = %q", log.String())
	}
}

// recordFiles is the runner's file commands, recorded.
type recordFiles struct{ outputs, env, path []string }

func (r *recordFiles) SetOutput(name, value string) error {
	r.outputs = append(r.outputs, name+"="+value)
	return nil
}
func (r *recordFiles) SetEnv(name, value string) error {
	r.env = append(r.env, name+"="+value)
	return nil
}
func (r *recordFiles) AddPath(dir string) error {
	r.path = append(r.path, dir)
	return nil
}
func (r *recordFiles) AddStepSummary(string) error { return nil }

// TestReadFinalStopsWithItsContext: an ended ctx reads no file, and each
// file's error says why.
func TestReadFinalStopsWithItsContext(t *testing.T) {
	files := finalFiles(t.TempDir())
	os.WriteFile(files["GITHUB_OUTPUT"], []byte("a=1\n"), 0o600)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stopped by SIGTERM"))
	fin, err := ReadFinal(ctx, files)
	if err == nil || !strings.Contains(err.Error(), "$GITHUB_OUTPUT: stopped by SIGTERM") || len(fin.Outputs) != 0 {
		t.Errorf("ReadFinal after the signal = %+v, %v", fin, err)
	}
}

// TestForwardAfterASignal: a step a signal ended still has its final
// attempt's files forwarded, within userfile.Finishing's grace.
func TestForwardAfterASignal(t *testing.T) {
	files := finalFiles(t.TempDir())
	os.WriteFile(files["GITHUB_OUTPUT"], []byte("a=1\n"), 0o600)
	os.WriteFile(files["GITHUB_ENV"], []byte("B=2\n"), 0o600)
	os.WriteFile(files["GITHUB_PATH"], []byte("/opt/bin\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var log bytes.Buffer
	rec := &recordFiles{}
	fw := &Forwarder{Files: rec, Warn: func(title, msg string) { fmt.Fprintf(&log, "%s: %s\n", title, msg) }}
	fw.Forward(ctx, "the script", files)
	if !slices.Equal(rec.outputs, []string{"a=1"}) || !slices.Equal(rec.env, []string{"B=2"}) || !slices.Equal(rec.path, []string{"/opt/bin"}) {
		t.Errorf("forwarded %+v; log %q", rec, log.String())
	}
}
