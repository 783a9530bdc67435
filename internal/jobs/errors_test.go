package jobs

import (
	"bytes"
	"testing"
)

func TestErrorsWrite(t *testing.T) {
	errs := Errors{
		{Path: "job.yml", Pos: Pos{9, 3}, Msg: `unknown key "x"`},
		{Path: "job.yml", Pos: Pos{2, 7}, Msg: "version 2 is not supported", Fix: "write version: 1"},
		{Path: "job.yml", Pos: Pos{9, 1}, Msg: `say "hi" <here>`, Fix: "a & b"},
	}
	errs.Sort()
	tests := []struct {
		name  string
		errs  Errors
		write func(Errors, *bytes.Buffer) error
		want  string
	}{
		{name: "text", errs: errs, write: func(e Errors, b *bytes.Buffer) error { return e.WriteText(b) },
			want: "job.yml:2:7: version 2 is not supported\n  fix: write version: 1\n" +
				"job.yml:9:1: say \"hi\" <here>\n  fix: a & b\n" +
				"job.yml:9:3: unknown key \"x\"\n"},
		{name: "json", errs: errs, write: func(e Errors, b *bytes.Buffer) error { return e.WriteJSON(b) },
			want: `[{"file":"job.yml","line":2,"col":7,"message":"version 2 is not supported","fix":"write version: 1"},` +
				`{"file":"job.yml","line":9,"col":1,"message":"say \"hi\" <here>","fix":"a & b"},` +
				`{"file":"job.yml","line":9,"col":3,"message":"unknown key \"x\"","fix":""}]` + "\n"},
		{name: "no errors as text", write: func(e Errors, b *bytes.Buffer) error { return e.WriteText(b) }, want: ""},
		{name: "no errors as json", write: func(e Errors, b *bytes.Buffer) error { return e.WriteJSON(b) }, want: "[]\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := tt.write(tt.errs, &b); err != nil || b.String() != tt.want {
			t.Errorf("%s:\n%s\nerr %v; want:\n%s", tt.name, b.String(), err, tt.want)
		}
	}
	if got := errs[0].Error(); got != "job.yml:2:7: version 2 is not supported" {
		t.Errorf("Error() = %q", got)
	}
}

func TestLoadSyntaxErrorAsText(t *testing.T) {
	_, errs := Load("ci/job.yml", []byte("version: 1\njobs: [a,\n"), fakeCatalog(nil))
	var b bytes.Buffer
	if err := errs.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "ci/job.yml:2:7: YAML: sequence end token ']' not found\n  fix: fix the YAML syntax\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		s    string
		cand []string
		want string
	}{
		{"qouta", []string{"post", "quota"}, "did you mean quota?"},
		{"outcom", []string{"outcome", "class", "found", "outputs"}, "did you mean outcome?"},
		{"jbos", []string{"version", "defaults", "jobs"}, "did you mean jobs?"},
		{"zzz", []string{"quota"}, ""},
		{"x", nil, ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.s, tt.cand); got != tt.want {
			t.Errorf("didYouMean(%q, %v) = %q, want %q", tt.s, tt.cand, got, tt.want)
		}
	}
}
