package httpstep

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseExpect(t *testing.T) {
	tests := []struct {
		in      string
		has     []int
		hasNot  []int
		str     string
		wantErr bool
	}{
		{in: "", has: []int{200, 204, 299}, hasNot: []int{199, 300, 404}, str: "any 2xx"},
		{in: "200,201", has: []int{200, 201}, hasNot: []int{202, 204}, str: "200-201"},
		{in: "200, 404", has: []int{200, 404}, hasNot: []int{201}, str: "200,404"},
		{in: "200-204,304", has: []int{200, 203, 304}, hasNot: []int{205}, str: "200-204,304"},
		{in: "2xx", wantErr: true},
		{in: "99", wantErr: true},
		{in: "600", wantErr: true},
		{in: "204-200", wantErr: true},
		{in: "+200", wantErr: true},
	}
	for _, tt := range tests {
		e, err := ParseExpect(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseExpect(%q) error %v", tt.in, err)
			continue
		}
		if err != nil {
			continue
		}
		for _, c := range tt.has {
			if !e.Has(c) {
				t.Errorf("%q does not have %d", tt.in, c)
			}
		}
		for _, c := range tt.hasNot {
			if e.Has(c) {
				t.Errorf("%q has %d", tt.in, c)
			}
		}
		if e.String() != tt.str {
			t.Errorf("%q.String() = %q, want %q", tt.in, e.String(), tt.str)
		}
	}
}

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

func TestHostKey(t *testing.T) {
	tests := []struct{ scheme, host, want string }{
		{"https", "API.github.com", "api.github.com:443"},
		{"http", "example.com", "example.com:80"},
		{"https", "example.com:8443", "example.com:8443"},
		{"http", "[::1]", "[::1]:80"},
		{"http", "[::1]:9000", "[::1]:9000"},
	}
	for _, tt := range tests {
		if got := HostKey(tt.scheme, tt.host); got != tt.want {
			t.Errorf("HostKey(%q, %q) = %q, want %q", tt.scheme, tt.host, got, tt.want)
		}
	}
}
