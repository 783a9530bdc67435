package reporttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// recorder is a testing.TB that records failures instead of failing; the
// embedded TB is nil, so a method Validate should not call panics.
type recorder struct {
	testing.TB
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// valid is a well-formed report of one step.
func valid(t *testing.T) []byte {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	p, err := retry.Policy{Schedule: []time.Duration{time.Second}, MaxElapsed: time.Minute}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	out := &retry.Outcome{Policy: p, Stop: retry.StopSucceeded, Elapsed: time.Second, Attempts: []retry.Attempt{{N: 1, Start: start, Duration: time.Second, OK: true}}}
	var b bytes.Buffer
	if err := report.Single(report.New("exec", "true", out, 0), start, start.Add(time.Second)).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestValidate(t *testing.T) {
	good := string(valid(t))
	tests := []struct {
		name string
		doc  string
		want string // in the failure message; "" for a valid document
	}{
		{"valid", good, ""},
		{"result maybe", strings.Replace(good, `"result": "success"`, `"result": "maybe"`, 1), "maybe"},
		{"missing version", strings.Replace(good, `"version": 1,`, "", 1), "version"},
		{"version 2", strings.Replace(good, `"version": 1,`, `"version": 2,`, 1), "version"},
		{"unknown field", strings.Replace(good, `"version": 1,`, `"version": 1, "extra": true,`, 1), "extra"},
		{"duration as a string", strings.Replace(good, `"elapsed_ns": 1000000000`, `"elapsed_ns": "1s"`, 1), "elapsed_ns"},
		{"policy duration as an integer", strings.Replace(good, `"max_elapsed": "1m0s"`, `"max_elapsed": 60`, 1), "max_elapsed"},
		{"policy duration not Go's", strings.Replace(good, `"max_elapsed": "1m0s"`, `"max_elapsed": "one minute"`, 1), "max_elapsed"},
		{"on_unknown maybe", strings.Replace(good, `"on_unknown": "stop"`, `"on_unknown": "maybe"`, 1), "on_unknown"},
		{"bad start", strings.Replace(good, `"start": "2026-11-30T10:00:00Z"`, `"start": "yesterday"`, 1), "start"},
		{"run result skipped", strings.Replace(good, "\"result\": \"success\"\n  }", "\"result\": \"skipped\"\n  }", 1), "skipped"},
		{"not JSON", "{", "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name != "valid" && tt.doc == good {
				t.Fatal("the test's replacement did not apply")
			}
			rec := &recorder{}
			Validate(rec, []byte(tt.doc))
			switch {
			case tt.want == "" && rec.failed:
				t.Errorf("Validate rejected a valid report: %s", rec.msgs)
			case tt.want != "" && !rec.failed:
				t.Errorf("Validate accepted:\n%s", tt.doc)
			case tt.want != "" && !strings.Contains(strings.Join(rec.msgs, "\n"), tt.want):
				t.Errorf("failure does not mention %q: %s", tt.want, rec.msgs)
			}
			if rec.failed && !strings.Contains(rec.msgs[0], tt.doc) {
				t.Errorf("failure does not quote the document: %s", rec.msgs)
			}
		})
	}
}

func TestValidateFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, valid(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"run": {}, "steps": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		fail bool
	}{
		{good, false},
		{bad, true},
		{filepath.Join(dir, "missing.json"), true},
	}
	for _, tt := range tests {
		rec := &recorder{}
		ValidateFile(rec, tt.path)
		if rec.failed != tt.fail {
			t.Errorf("ValidateFile(%s) failed = %v, want %v: %s", filepath.Base(tt.path), rec.failed, tt.fail, rec.msgs)
		}
	}
}
