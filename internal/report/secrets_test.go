package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// jsonEscapedSecrets each hold characters that JSON writes escaped.
var jsonEscapedSecrets = []string{"hunter2&more", `pa"ss\word`, "lt<gt>secret", "multi\nline-secret", "ctl\x01secret"}

// renders returns the run's JSON, Markdown and text renderings.
func renders(t *testing.T, r *report.Run) map[string]string {
	t.Helper()
	var j, md, txt bytes.Buffer
	if err := r.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	r.WriteMarkdown(&md)
	r.WriteText(&txt)
	return map[string]string{"json": j.String(), "markdown": md.String(), "text": txt.String()}
}

// TestJSONReportEscapedSecrets: a secret that JSON escapes is masked in
// every rendering when the model is masked before encoding and, belt and
// braces, in the JSON when only the encoded document goes through the
// redactor.
func TestJSONReportEscapedSecrets(t *testing.T) {
	red := redact.New(redact.Options{Values: jsonEscapedSecrets})
	for _, secret := range jsonEscapedSecrets {
		for _, maskModel := range []bool{true, false} {
			fl := failure.New(failure.Policy, failure.CodeUnexpectedStatus, "rejected "+secret, "rotate "+secret, "body: "+secret)
			out := &retry.Outcome{Policy: testPolicy(), Stop: retry.StopNotRetryable, Final: fl, Detail: secret,
				Attempts: []retry.Attempt{{N: 1, Start: t0, Class: failure.Policy, Reason: fl.Reason}}}
			s := report.New("http", "GET https://api.test/?q="+secret, out, exitcode.For(out, false))
			s.Outputs = map[string]any{"body": secret}
			run := report.Single(s, t0, t0)
			if maskModel {
				run.Mask(red.String)
			}
			for name, doc := range renders(t, run) {
				if !maskModel && name != "json" {
					continue // the belt and braces covers JSON's escapes only
				}
				got := red.String(doc)
				for _, part := range []string{"hunter2", "ss\\", "ss\\\\", "lt<", `lt\u003c`, "line-secret", "ctl"} {
					if strings.Contains(got, part) {
						t.Errorf("secret %q, model masked %v: %s shows %q:\n%s", secret, maskModel, name, part, got)
					}
				}
			}
		}
	}
}

// TestJSONReportTokenAcrossEvidenceCut: a token across the 300-byte evidence
// cut shows in no part in the masked report.
func TestJSONReportTokenAcrossEvidenceCut(t *testing.T) {
	const token = "ghp_Str4ddl3T0kenValue0123456789ab" // 34 bytes
	red := redact.New(redact.Options{Env: []string{"GH_TOKEN=" + token}})
	head := "fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403 "
	for at := 270; at < 300; at++ {
		line := head + strings.Repeat("x", at-len(head)) + " " + token + " trailing words after the token\n"
		fl := failure.Classify(failure.Input{Tool: failure.ToolGit, Text: line, ExitCode: 128})
		out := &retry.Outcome{Policy: testPolicy(), Stop: retry.StopNotRetryable, Final: fl,
			Attempts: []retry.Attempt{{N: 1, Start: t0, Class: fl.Class, Reason: fl.Reason}}}
		run := report.Single(report.New("push", "origin main", out, exitcode.For(out, false)), t0, t0)
		run.Mask(red.String)
		for name, doc := range renders(t, run) {
			for n := len(token) - 1; n >= 6; n-- {
				if strings.Contains(doc, token[:n]) {
					t.Fatalf("token at byte %d: the %s report shows %q:\n%s", at, name, token[:n], doc)
				}
			}
		}
	}
}
