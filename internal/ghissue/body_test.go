package ghissue

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkerEscapesNames(t *testing.T) {
	hostile := testRun
	hostile.Workflow = "build --> <b>\"x\" 100%\nnext"
	m := Marker(hostile)
	want := `<!-- retrywise-failure repository="octo-org/nightly" workflow="build --%3E %3Cb%3E%22x%22 100%25%0Anext" job="export" -->`
	if m != want {
		t.Errorf("Marker = %q, want %q", m, want)
	}
	if strings.Count(m, "-->") != 1 || !strings.HasSuffix(m, "-->") || strings.Count(m, `"`) != 6 {
		t.Errorf("marker %q can be closed or unquoted early", m)
	}
	// Names that differ give markers that differ, and none contains another.
	variants := []Run{testRun}
	for _, mod := range []func(*Run){
		func(r *Run) { r.Workflow = `Nightly export" job="export` },
		func(r *Run) { r.Workflow = "Nightly export%22" },
		func(r *Run) { r.Job = "export2" },
		func(r *Run) { r.Owner = "octo" },
	} {
		r := testRun
		mod(&r)
		variants = append(variants, r)
	}
	for i, a := range variants {
		for j, b := range variants {
			if i != j && strings.Contains(Marker(a), Marker(b)) {
				t.Errorf("marker %q contains %q", Marker(a), Marker(b))
			}
		}
	}
}

func TestTitle(t *testing.T) {
	if got := Title(testRun); got != "retrywise: Nightly export / export failed" {
		t.Errorf("Title = %q", got)
	}
	r := testRun
	r.Workflow = "line one\nline two"
	if got := Title(r); got != "retrywise: line one line two / export failed" {
		t.Errorf("Title with a newline = %q", got)
	}
	r.Workflow = strings.Repeat("日本語ワークフロー", 40)
	got := Title(r)
	if len(got) > MaxTitleLen || !utf8.ValidString(got) || !strings.HasPrefix(got, "retrywise: 日本語") || !strings.HasSuffix(got, "… failed") {
		t.Errorf("long title (%d bytes) = %q", len(got), got)
	}
	if len(got) < MaxTitleLen-3 {
		t.Errorf("long title cut to %d bytes, more than needed", len(got))
	}
}

func TestCodeSpan(t *testing.T) {
	cases := map[string]string{
		"export":  "`export`",
		"a`b":     "``a`b``",
		"`x`":     "`` `x` ``",
		"@team":   "`@team`",
		"two\nln": "`two ln`",
	}
	for in, want := range cases {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenFence(t *testing.T) {
	cases := []struct{ md, want string }{
		{"text", ""},
		{"```\ncode\n```\n", ""},
		{"```go\ncode", "```"},
		{"````\n```\nstill code", "````"},
		{"~~~\ncode\n```\n", "~~~"},
		{"~~~\ncode\n~~~~ \n", ""},
		{"    ```\nindented code, not a fence", ""},
		{"``` a`b\nnot a fence", ""},
		{"```\ncode\n```  x\n", "```"},
	}
	for _, c := range cases {
		if got := openFence(c.md); got != c.want {
			t.Errorf("openFence(%q) = %q, want %q", c.md, got, c.want)
		}
	}
}

func TestCompose(t *testing.T) {
	head := "HEAD"
	if got := compose(testRun, head, "report\n\n"); got != "HEAD\n\nreport" {
		t.Errorf("short: %q", got)
	}
	if got := compose(testRun, head, ""); got != "HEAD" {
		t.Errorf("empty report: %q", got)
	}
	if got := compose(testRun, head, "bad \xff byte"); got != "HEAD\n\nbad \uFFFD byte" {
		t.Errorf("invalid UTF-8: %q", got)
	}
	// Exactly at the limit: kept whole; one byte more: cut.
	exact := strings.Repeat("x", MaxBodyLen-len(head)-2)
	if got := compose(testRun, head, exact); got != head+"\n\n"+exact {
		t.Errorf("a report that fits exactly was changed (%d bytes)", len(got))
	}
	got := compose(testRun, head, exact+"y")
	if len(got) > MaxBodyLen || !strings.HasSuffix(got, cutNote(testRun)) || !strings.HasPrefix(got, head+"\n\nxxx") {
		t.Errorf("one byte over: %d bytes, note %v", len(got), strings.HasSuffix(got, cutNote(testRun)))
	}
	// A long single line of 4-byte runes is cut on a rune boundary.
	got = compose(testRun, head, strings.Repeat("🚀", MaxBodyLen/4+10))
	if len(got) > MaxBodyLen || !utf8.ValidString(got) || len(got) < MaxBodyLen-4-len(cutNote(testRun))-8 {
		t.Errorf("emoji line: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
