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
	"testing"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/outputfile"
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
