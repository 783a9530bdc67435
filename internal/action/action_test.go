package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

func inputs(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestChooseMode(t *testing.T) {
	tests := []struct {
		in      map[string]string
		want    Mode
		wantErr string
	}{
		{map[string]string{"run": "make"}, ModeRun, ""},
		{map[string]string{"push": "true"}, ModePush, ""},
		{map[string]string{"push": "false", "url": "https://x/"}, ModeHTTP, ""},
		{map[string]string{"config": "j.yml"}, ModeJob, ""},
		{map[string]string{}, "", "no mode chosen"},
		{map[string]string{"push": "false"}, "", "no mode chosen"},
		{map[string]string{"run": "x", "config": "j.yml"}, "", "several modes chosen (run, config)"},
		{map[string]string{"push": "True"}, "", `invalid input push "True": want true or false`},
	}
	for _, tt := range tests {
		got, err := ChooseMode(inputs(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ChooseMode(%v) = %v, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ChooseMode(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestValuesAndInputVar(t *testing.T) {
	if got := Values("Accept: a\r\n\n  X-B: 1  \n", true); !slices.Equal(got, []string{"Accept: a", "X-B: 1"}) {
		t.Errorf("repeatable = %q", got)
	}
	if got := Values("2s,4s", false); !slices.Equal(got, []string{"2s,4s"}) {
		t.Errorf("single = %q", got)
	}
	if got := InputVar("max-attempts"); got != "INPUT_MAX-ATTEMPTS" {
		t.Errorf("InputVar = %q", got)
	}
	for _, tt := range []struct {
		text string
		want bool
		err  bool
	}{{"", true, false}, {"true", true, false}, {"false", false, false}, {"yes", false, true}} {
		got, err := ParseBool("step-summary", tt.text, true)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseBool(%q) = %v, %v", tt.text, got, err)
		}
	}
}

func TestOutputsJSON(t *testing.T) {
	small := map[string]any{"a": "1", "n": 2}
	if doc, cut, err := OutputsJSON(small, 100); err != nil || cut || doc != `{"a":"1","n":2}` {
		t.Errorf("small = %s, %v, %v", doc, cut, err)
	}
	big := map[string]any{"big": strings.Repeat("é", 3000), "mid": strings.Repeat("x", 500), "keep": "yes"}
	doc, cut, err := OutputsJSON(big, 1000)
	if err != nil || !cut || len(doc) > 1000 || !utf8.ValidString(doc) {
		t.Fatalf("big = %d bytes, cut %v, %v", len(doc), cut, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if m["keep"] != "yes" || m["mid"] != strings.Repeat("x", 500) || !strings.HasPrefix(m["big"].(string), "(cut: ") {
		t.Errorf("the longest value alone should be cut: %v", m)
	}
	if names, _ := m["retrywise-cut"].([]any); len(names) != 1 || names[0] != "big" {
		t.Errorf("retrywise-cut = %v", m["retrywise-cut"])
	}
}

func TestFilesWriteWhatTheRunnerReads(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GITHUB_OUTPUT": filepath.Join(dir, "out"), "GITHUB_ENV": filepath.Join(dir, "env")}
	f := NewFiles(context.Background(), func(k string) string { return env[k] })
	if err := f.SetOutput("multi", "line one\nline two"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetEnv("X", "1"); err != nil {
		t.Fatal(err)
	}
	fh, _ := os.Open(env["GITHUB_OUTPUT"])
	entries, err := outputfile.Parse(fh)
	fh.Close()
	if err != nil || outputfile.Map(entries)["multi"] != "line one\nline two" {
		t.Errorf("outputs = %v, %v", entries, err)
	}
	// A value holding the toolkit's delimiter would end early and set another name.
	if err := f.SetOutput("evil", "x\n"+toolkitDelimiter+"\nresult=success"); err == nil {
		t.Errorf("a value holding the delimiter was written")
	}
	var me *MissingError
	if err := f.AddPath("/bin"); !errors.As(err, &me) || me.Var != "GITHUB_PATH" {
		t.Errorf("AddPath without GITHUB_PATH = %v, want a MissingError", err)
	}
}

// finalFiles returns the file commands of one attempt, as
// execstep.AttemptFiles gives them, in dir.
func finalFiles(dir string) map[string]string {
	m := map[string]string{}
	for _, v := range ScriptFileVars {
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
	n := summaryNote("the script's step summary", MaxStepSummary, 1<<62)
	if len(n) >= summaryNoteRoom || !strings.Contains(n, "was cut") {
		t.Errorf("note of %d bytes (room %d): %q", len(n), summaryNoteRoom, n)
	}
}

func TestLogCommands(t *testing.T) {
	var b bytes.Buffer
	env := map[string]string{"GITHUB_ACTIONS": "true"}
	flushed := 0
	l := NewLog(&b, func(k string) string { return env[k] }, func(s string) string { return strings.ReplaceAll(s, "sekret", "***") }, func() { flushed++ })
	l.Mask("sekret", "")
	l.Group("attempt 1: curl sekret")
	resume, err := l.StopCommands()
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("::set-output name=x::1\n")
	resume()
	l.EndGroup()
	l.Error("retrywise: failed", "a\nb sekret")
	l.Warning("t", "w")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 8 || lines[0] != "::add-mask::sekret" || lines[1] != "::group::attempt 1: curl ***" || lines[6] != "::error title=retrywise%3A failed::a%0Ab ***" || lines[7] != "::warning title=t::w" {
		t.Fatalf("log:\n%s", b.String())
	}
	token := strings.TrimPrefix(lines[2], "::stop-commands::")
	if len(token) != 32 || lines[4] != "::"+token+"::" || lines[5] != "::endgroup::" {
		t.Errorf("stop-commands %q / resume %q", lines[2], lines[4])
	}
	if flushed != 7 {
		t.Errorf("flushed %d times, want before each of the 7 commands", flushed)
	}
	b.Reset()
	env["GITHUB_ACTIONS"] = ""
	NewLog(&b, func(k string) string { return env[k] }, nil, nil).Mask("sekret")
	if b.Len() != 0 {
		t.Errorf("outside the runner Mask wrote %q", b.String())
	}
}

func TestFilesWriteFailureIsRecordedOnceAnd78OnSuccess(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"GITHUB_OUTPUT":       filepath.Join(dir, "gone", "set_output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
	}
	f := NewFiles(context.Background(), func(k string) string { return env[k] })
	for _, n := range []string{"a", "b", "c"} {
		if err := f.SetOutput(n, "v"); err != nil {
			t.Errorf("SetOutput(%s) = %v, want nil (recorded, not returned)", n, err)
		}
	}
	if err := f.AddStepSummary("# ok"); err != nil {
		t.Fatal(err)
	}
	err := f.Failures()
	if err == nil || strings.Count(err.Error(), "GITHUB_OUTPUT") != 1 || strings.Contains(err.Error(), "GITHUB_STEP_SUMMARY") {
		t.Errorf("Failures() = %v, want one error naming $GITHUB_OUTPUT", err)
	}
	if code, msg := f.WriteFailureExit(0); code != 78 || !strings.Contains(msg, "exit 78") || strings.Contains(msg, "\n") {
		t.Errorf("WriteFailureExit(0) = %d, %q", code, msg)
	}
	if code, msg := f.WriteFailureExit(75); code != 75 || msg == "" {
		t.Errorf("WriteFailureExit(75) = %d, %q; a failed step keeps its code", code, msg)
	}
	ok := NewFiles(context.Background(), func(k string) string { return env[k] })
	if code, msg := ok.WriteFailureExit(0); code != 0 || msg != "" {
		t.Errorf("nothing failed: %d %q", code, msg)
	}
}

func TestActShareOnlyUnderAct(t *testing.T) {
	old := ActShareDir
	t.Cleanup(func() { ActShareDir = old })
	ActShareDir = t.TempDir()
	if got := ActShare(func(string) string { return "" }); got != "" {
		t.Errorf("on the runner ActShare = %q, want \"\"", got)
	}
	act := func(k string) string {
		if k == "ACT" {
			return "true"
		}
		return ""
	}
	got := ActShare(act)
	if got != filepath.Join(ActShareDir, "retrywise") {
		t.Errorf("under act ActShare = %q", got)
	}
	if st, err := os.Stat(got); err != nil || !st.IsDir() {
		t.Errorf("%s not made: %v", got, err)
	}
	ActShareDir = filepath.Join(ActShareDir, "absent")
	if got := ActShare(act); got != "" {
		t.Errorf("without /var/run/act ActShare = %q, want \"\"", got)
	}
}

// summaryRun is an actionRun with what writeSummary uses: the runner's
// step summary at sum, a redactor knowing secret, and the log in log.
func summaryRun(t *testing.T, sum, script, secret string, log *bytes.Buffer) *actionRun {
	t.Helper()
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": sum}
	getenv := func(k string) string { return env[k] }
	red := redact.New(redact.Options{Values: []string{secret}})
	a := &actionRun{getenv: getenv, summary: true, red: red, files: NewFiles(context.Background(), getenv), scriptSummary: script}
	a.log = NewLog(log, getenv, red.String, nil)
	return a
}

// TestStepSummaryCutMasksTheSecretItSplits: a script's one-line summary
// with a secret across the cut keeps none of the secret's fragment.
func TestStepSummaryCutMasksTheSecretItSplits(t *testing.T) {
	dir := t.TempDir()
	secret := "Zq8Xv2Lk9Wm4Rt7Yp3Hn6Bc1"
	report := "### retrywise: exec — success\n"
	// The script's room: the whole, less the report and a line end each, less the note's room.
	limit := MaxStepSummary - (len(report) + 1) - 1 - summaryNoteRoom
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte(strings.Repeat("a", limit-10)+secret+strings.Repeat("b", 100<<10)), 0o600)
	sum := filepath.Join(dir, "summary")
	var log bytes.Buffer
	summaryRun(t, sum, script, secret, &log).writeSummary(report)
	b, _ := os.ReadFile(sum)
	got := string(b)
	if len(b) > MaxStepSummary || !strings.HasSuffix(got, report+"\n") || !strings.Contains(got, "was cut here") {
		t.Errorf("summary of %d bytes ends %q", len(b), got[max(0, len(got)-600):])
	}
	if strings.Contains(got, secret[:10]) || strings.Contains(got, secret[:4]) {
		t.Errorf("the summary keeps the fragment of the secret the cut split: %q", got[limit-40:limit+20])
	}
	if !strings.Contains(log.String(), "::warning title=retrywise%3A step summary cut::") {
		t.Errorf("no warning: %q", log.String())
	}
}

// TestStepSummaryFitsWithoutACut: a summary that fits is copied whole and
// masked, without a note or a warning.
func TestStepSummaryFitsWithoutACut(t *testing.T) {
	dir := t.TempDir()
	secret := "Zq8Xv2Lk9Wm4Rt7Yp3Hn6Bc1"
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("# mine\ntoken "+secret+"\n"), 0o600)
	sum := filepath.Join(dir, "summary")
	var log bytes.Buffer
	summaryRun(t, sum, script, secret, &log).writeSummary("### report\n")
	if b, _ := os.ReadFile(sum); string(b) != "# mine\ntoken ***\n\n### report\n\n" {
		t.Errorf("summary = %q", b)
	}
	if log.Len() != 0 {
		t.Errorf("log = %q", log.String())
	}
}
