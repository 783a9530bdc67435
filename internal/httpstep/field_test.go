package httpstep

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFieldPaths(t *testing.T) {
	doc, err := decodeJSON([]byte(`{"items":[{"id":7,"tags":["a","b"]},{"id":8}],"a.b":{"c]":1},"n":null,"big":12345678901234567890,"s":"x\ny"}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		want  string // FormatValue of the value
		found bool
	}{
		{".", `{"a.b":{"c]":1},"big":12345678901234567890,"items":[{"id":7,"tags":["a","b"]},{"id":8}],"n":null,"s":"x\ny"}`, true},
		{".items[0].id", "7", true},
		{".items[-1].id", "8", true},
		{".items[0].tags[1]", "b", true},
		{".items.[1].id", "8", true},
		{`.["a.b"]["c]"]`, "1", true},
		{`["a.b"]`, `{"c]":1}`, true},
		{".n", "null", true},
		{".big", "12345678901234567890", true},
		{".s", `"x\ny"`, true},
		{".items[2]", "null", false},
		{".items[-3]", "null", false},
		{".items.id", "null", false},
		{".missing.deeper", "null", false},
		{".n.x", "null", false},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.path)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.path, err)
			continue
		}
		v, ok := p.Lookup(doc)
		if ok != tt.found || FormatValue(v) != tt.want {
			t.Errorf("%s: %s (found %v), want %s (found %v)", tt.path, FormatValue(v), ok, tt.want, tt.found)
		}
	}
	for _, bad := range []string{"", "items", ".a..b", ".a[", ".a[x]", `.["a"`, `.["a"x]`, ".a b"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
}

func TestParseField(t *testing.T) {
	f, err := ParseField("run-id=.workflow_runs[0].id")
	if err != nil || f.Name != "run-id" || f.Path.String() != ".workflow_runs[0].id" {
		t.Fatalf("%+v %v", f, err)
	}
	for _, bad := range []string{"noequals", "=.x", "a b=.x", "id=x", "id=.a["} {
		if _, err := ParseField(bad); err == nil || !strings.Contains(err.Error(), "--field") {
			t.Errorf("ParseField(%q) = %v", bad, err)
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"}, {"plain text", "plain text"}, {json.Number("1.5"), "1.5"}, {true, "true"},
		{[]any{"a", json.Number("1")}, `["a",1]`}, {map[string]any{"k": nil}, `{"k":null}`}, {"two\nlines", `"two\nlines"`},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
