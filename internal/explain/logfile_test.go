package explain

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// entry is one file of a test archive.
type entry struct {
	name, text string
	store      bool
}

// zipOf builds a zip archive of entries, in their order.
func zipOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		if e.store {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.text)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runnerLines stamps each line as the runner does.
func runnerLines(lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "2026-12-01T10:00:%02d.1234567Z %s\n", i%60, l)
	}
	return b.String()
}

var (
	setUp    = runnerLines("Current runner version: '2.321.0'", "##[group]Operating System", "Ubuntu", "##[endgroup]")
	checkout = runnerLines("##[group]Run actions/checkout@v4", "with:", "  repository: octo/widget", "##[endgroup]", "Syncing repository: octo/widget")
	npmFail  = runnerLines("##[group]Run npm publish", "npm publish", "shell: /usr/bin/bash -e {0}", "##[endgroup]",
		"npm ERR! code E503",
		"npm ERR! 503 Service Unavailable - PUT https://registry.npmjs.org/@octo%2fwidget - Service Unavailable",
		"##[error]Process completed with exit code 1.")
	pushFail = runnerLines("##[group]Run git push origin HEAD:main", "git push origin HEAD:main", "##[endgroup]",
		"remote: Permission to octo/site.git denied to github-actions[bot].",
		"fatal: unable to access 'https://github.com/octo/site/': The requested URL returned error: 403",
		"##[error]Process completed with exit code 128.")
	postCheckout = runnerLines("Post job cleanup.", "[command]/usr/bin/git version", "git version 2.47.1", "Cleaning up orphan processes")
	okStep       = runnerLines("##[group]Run npm test", "npm test", "##[endgroup]", "ok 1 - widget")
)

// explainBytes runs ExplainLog over b as a regular file.
func explainBytes(t *testing.T, name string, b []byte, lim LogLimits) (*Result, error) {
	t.Helper()
	return ExplainLog(context.Background(), LogFile{Name: name, ReaderAt: bytes.NewReader(b), Size: int64(len(b))},
		LogOptions{Clock: clock.NewFake(time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC), true), Limits: lim})
}

// TestExplainLogFindsTheFailedSteps: the failed steps of a run's archive
// (per-step files, or a job's whole log only) and of a job's .txt log are
// found from the runner's own lines, and each is classified as online.
func TestExplainLogFindsTheFailedSteps(t *testing.T) {
	twoJobs := zipOf(t,
		entry{name: "0_publish.txt", text: setUp + checkout + npmFail + postCheckout},
		entry{name: "1_deploy.txt", text: setUp + pushFail},
		entry{name: "publish/"},
		entry{name: "publish/1_Set up job.txt", text: setUp},
		entry{name: "publish/2_Run actionscheckout@v4.txt", text: checkout},
		entry{name: "publish/3_Publish the package.txt", text: "\ufeff" + npmFail},
		entry{name: "publish/5_Post Run actionscheckout@v4.txt", text: postCheckout},
		entry{name: "deploy/1_Set up job.txt", text: setUp},
		entry{name: "deploy/2_Push the site.txt", text: pushFail},
	)
	type row struct {
		id    string
		class failure.Class
		code  failure.Code
	}
	for _, tt := range []struct {
		name    string
		file    string
		data    []byte
		lim     LogLimits
		rows    []row
		exit    int
		inHead  string
		inNotes string
	}{
		{name: "archive with per-step logs", file: "logs_77.zip", data: twoJobs,
			rows: []row{{"publish / Publish the package", failure.Transient, "http-503"}, {"deploy / Push the site", failure.Policy, "git-permission-denied"}},
			exit: 77, inHead: "2 failed steps; worst deploy / Push the site: policy"},
		{name: "archive of whole job logs only: steps split at the Run markers", file: "logs_78.zip",
			data: zipOf(t, entry{name: "1_deploy.txt", text: setUp + pushFail}, entry{name: "0_publish.txt", text: setUp + checkout + okStep + npmFail + postCheckout}),
			rows: []row{{"publish / Run npm publish", failure.Transient, "http-503"}, {"deploy / Run git push origin HEAD:main", failure.Policy, "git-permission-denied"}},
			exit: 77},
		{name: "a job's txt log", file: "dl/0_publish.txt", data: []byte(setUp + checkout + npmFail + postCheckout),
			rows: []row{{"publish / Run npm publish", failure.Transient, "http-503"}}, exit: 75, inHead: "publish / Run npm publish: transient"},
		{name: "a job's txt log named by the user", file: "build log.txt", data: []byte(setUp + pushFail),
			rows: []row{{"build log / Run git push origin HEAD:main", failure.Policy, "git-permission-denied"}}, exit: 77},
		{name: "a txt whose name has odd characters", file: "dir/3_we\x1bird\\name.txt", data: []byte(setUp + pushFail),
			rows: []row{{`we\x1bird\name / Run git push origin HEAD:main`, failure.Policy, "git-permission-denied"}}, exit: 77},
		{name: "no failed step", file: "ok.zip", data: zipOf(t, entry{name: "0_test.txt", text: setUp + okStep}, entry{name: "test/1_Set up job.txt", text: setUp}, entry{name: "test/2_Run npm test.txt", text: okStep}),
			exit: 0, inHead: "no failed step in ok.zip"},
		{name: "no failed step in a txt", file: "ok.txt", data: []byte(setUp + okStep), exit: 0, inHead: "nothing to explain"},
		{name: "a failed step without the exit line (an action's ##[error])", file: "a.txt",
			data: []byte(setUp + runnerLines("##[group]Run actions/upload-artifact@v4", "##[endgroup]", "##[error]Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run")),
			rows: []row{{"a / Run actions/upload-artifact@v4", failure.Structural, ""}}, exit: 65},
		{name: "odd characters in the names are data", file: "odd.zip",
			data: zipOf(t, entry{name: "0_bu\x1b[31mild.txt", text: setUp + pushFail}, entry{name: "bu\x1b[31mild/2_Push\x07 the\u202e site\x00.txt", text: pushFail}),
			rows: []row{{`bu\x1b[31mild / Push\x07 the` + "\u202e" + ` site\x00`, failure.Policy, "git-permission-denied"}}, exit: 77},
		{name: "an entry past its bound is cut, and the row says so", file: "huge.zip",
			data: zipOf(t, entry{name: "0_deploy.txt", text: setUp}, entry{name: "deploy/2_Push the site.txt", text: pushFail + strings.Repeat("y", 10<<20)}),
			lim:  LogLimits{Entry: 1 << 20},
			rows: []row{{"deploy / Push the site", failure.Policy, "git-permission-denied"}}, exit: 77, inNotes: "cut at 1 MiB, the bound of one entry inflated"},
		{name: "past the bound of the archive inflated, the rest is not read, and the headline says so", file: "big.zip",
			data: zipOf(t, entry{name: "0_deploy.txt", text: setUp + pushFail}, entry{name: "1_publish.txt", text: setUp + npmFail}),
			lim:  LogLimits{Inflated: int64(len(setUp + pushFail))},
			rows: []row{{"deploy / Run git push origin HEAD:main", failure.Policy, "git-permission-denied"}}, exit: 77, inHead: "1 of its 2 logs were not read"},
		{name: "past the bound with no failed step read", file: "big.zip",
			data: zipOf(t, entry{name: "0_deploy.txt", text: setUp + okStep}, entry{name: "1_publish.txt", text: setUp + npmFail}),
			lim:  LogLimits{Inflated: int64(len(setUp + okStep))},
			exit: 1, inHead: "so the failed steps were not found"},
		{name: "failed steps past their bound are counted", file: "many.txt",
			data: []byte(setUp + npmFail + npmFail + npmFail), lim: LogLimits{FailedSteps: 2},
			rows: []row{{"many / Run npm publish", failure.Transient, "http-503"}, {"many / Run npm publish", failure.Transient, "http-503"}},
			exit: 75, inHead: "3 failed steps were found; the first 2 (the bound) were classified"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := explainBytes(t, tt.file, tt.data, tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.exit || res.Report.Run.ExitCode != tt.exit {
				t.Errorf("exit %d (report %d), want %d: %s", res.ExitCode, res.Report.Run.ExitCode, tt.exit, res.Headline)
			}
			if len(res.Report.Steps) != len(tt.rows) {
				t.Fatalf("%d rows, want %d: %s", len(res.Report.Steps), len(tt.rows), res.Headline)
			}
			notes := ""
			for i, s := range res.Report.Steps {
				w := tt.rows[i]
				if s.ID != w.id || s.Class != w.class || (w.code != "" && s.Code != w.code) || s.Kind != Kind {
					t.Errorf("row %d: %q %s %s, want %q %s %s", i, s.ID, s.Class, s.Code, w.id, w.class, w.code)
				}
				notes += strings.Join(s.Notes, "\n")
			}
			if tt.name == "archive with per-step logs" && !strings.Contains(notes, "classified as npm output") {
				t.Errorf("the step's Run group (after the log's byte order mark) does not name the tool: %q", notes)
			}
			if !strings.Contains(res.Headline, tt.inHead) || !strings.Contains(notes, tt.inNotes) {
				t.Errorf("headline %q, notes %q; want %q, %q", res.Headline, notes, tt.inHead, tt.inNotes)
			}
			var text bytes.Buffer
			res.WriteText(&text, tt.file)
			for _, c := range text.String() {
				if c < 0x20 && c != '\n' && c != '\t' {
					t.Errorf("the text shows a raw control character %q:\n%s", c, text.String())
					break
				}
			}
		})
	}
}

// TestExplainLogClassifiesTheStepsOwnLines: a failed step's text ends at
// its last ##[error] line (a post step's cleanup after it is not its
// output), and the exit code is the runner's.
func TestExplainLogClassifiesTheStepsOwnLines(t *testing.T) {
	res, err := explainBytes(t, "0_publish.txt", []byte(setUp+npmFail+postCheckout), LogLimits{})
	if err != nil || len(res.Report.Steps) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	s := res.Report.Steps[0]
	ev := strings.Join(s.Evidence, "\n")
	if strings.Contains(ev, "orphan") || strings.Contains(ev, "git version") || !strings.Contains(ev, "E503") {
		t.Errorf("evidence %q", ev)
	}
	if s.Outputs["job"] != "publish" || s.Outputs["step"] != "Run npm publish" || s.Outputs["log"] != "0_publish.txt" {
		t.Errorf("outputs %v", s.Outputs)
	}
}

// TestExplainLogRefuses: a file that is not a log, or an archive past the
// bound of entries, is a *LogError of 65 naming what is wrong; nothing of
// it is explained.
func TestExplainLogRefuses(t *testing.T) {
	good := zipOf(t, entry{name: "0_deploy.txt", text: setUp + pushFail}, entry{name: "deploy/2_Push.txt", text: pushFail})
	var many []entry
	for i := range 6 {
		many = append(many, entry{name: fmt.Sprintf("deploy/%d_Step.txt", i+1), text: okStep})
	}
	for _, tt := range []struct {
		name string
		data []byte
		lim  LogLimits
		want string
	}{
		{"empty", nil, LogLimits{}, "the file is empty"},
		{"binary", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03binary"), LogLimits{}, "neither a zip archive nor a text log"},
		{"truncated zip", good[:len(good)/2], LogLimits{}, "not a valid zip archive"},
		{"truncated before its directory's end", good[:len(good)-10], LogLimits{}, "not a valid zip archive"},
		{"too many entries", zipOf(t, many...), LogLimits{Entries: 5}, "more than 5 entries"},
		{"a zip of other files", zipOf(t, entry{name: "README.md", text: "hello"}), LogLimits{}, "not a run's log archive"},
		{"a txt past its bound", []byte(setUp + pushFail), LogLimits{Text: 100}, "over the bound of 100 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := explainBytes(t, "logs.zip", tt.data, tt.lim)
			var le *LogError
			if !errors.As(err, &le) || le.Code != 65 || !strings.Contains(le.Msg, tt.want) || !strings.Contains(le.Msg, "logs.zip") || res != nil {
				t.Errorf("got %v, %v; want a LogError of 65 saying %q", res, err, tt.want)
			}
		})
	}
	// The bound of entries is counted in the directory, not taken from the
	// count the archive declares (checked by archive/zip modulo 65,536 only).
	if n, err := countEntries(bytes.NewReader(zipOf(t, many...)), int64(len(zipOf(t, many...))), 3); err != nil || n != 4 {
		t.Errorf("countEntries = %d, %v; want 4 (stopped past the bound of 3)", n, err)
	}
}

// TestExplainLogCountsWhileInflating: an entry that inflates far past its
// bound (10 MiB of zeros in a few KiB) is cut at the bound, counted while
// it is inflated, whatever size the archive declares.
func TestExplainLogCountsWhileInflating(t *testing.T) {
	data := zipOf(t, entry{name: "0_deploy.txt", text: setUp}, entry{name: "deploy/2_Push.txt", text: pushFail + strings.Repeat("\n", 10<<20)})
	if len(data) > 64<<10 {
		t.Fatalf("the archive is %d bytes: no bomb", len(data))
	}
	res, err := explainBytes(t, "bomb.zip", data, LogLimits{Entry: 1 << 20, Inflated: 3 << 20})
	if err != nil || len(res.Report.Steps) != 1 || !strings.Contains(strings.Join(res.Report.Steps[0].Notes, " "), "cut at 1 MiB") {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestExplainLogStream: a FIFO's or pipe's job log is read once as a
// stream; an archive must be a regular file.
func TestExplainLogStream(t *testing.T) {
	o := LogOptions{Clock: clock.NewFake(time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC), true)}
	res, err := ExplainLog(context.Background(), LogFile{Name: "/dev/stdin", Stream: strings.NewReader(setUp + pushFail)}, o)
	if err != nil || res.ExitCode != 77 || len(res.Report.Steps) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	_, err = ExplainLog(context.Background(), LogFile{Name: "p", Stream: bytes.NewReader(zipOf(t, entry{name: "0_a.txt", text: pushFail}))}, o)
	if le := (*LogError)(nil); !errors.As(err, &le) || le.Code != 65 || !strings.Contains(le.Msg, "regular file") {
		t.Errorf("an archive in a pipe: %v", err)
	}
	o.Limits.Text = 100
	_, err = ExplainLog(context.Background(), LogFile{Name: "p", Stream: strings.NewReader(setUp + pushFail)}, o)
	if le := (*LogError)(nil); !errors.As(err, &le) || le.Code != 65 || !strings.Contains(le.Msg, "over the bound") {
		t.Errorf("a stream past the bound: %v", err)
	}
}

// TestExplainLogCancelled: a signal while the log is read ends it at
// once; the record says cancelled, with the signal's code.
func TestExplainLogCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt"))
	b := []byte(setUp + pushFail)
	res, err := ExplainLog(ctx, LogFile{Name: "x.txt", ReaderAt: bytes.NewReader(b), Size: int64(len(b))}, LogOptions{})
	if err != nil || res.ExitCode != 130 || res.Report.Run.Result != "cancelled" || !strings.Contains(res.Headline, "cancelled") {
		t.Fatalf("%v %+v", err, res)
	}
}
