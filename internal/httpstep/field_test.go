package httpstep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// extractOne runs one --field on body as a step does after an expected answer.
func extractOne(t *testing.T, ctx context.Context, field, body string) (Result, *failure.Failure) {
	t.Helper()
	fd, err := ParseField(field)
	if err != nil {
		t.Fatalf("ParseField(%q): %v", field, err)
	}
	s := &Step{opts: Options{Fields: []Field{fd}}, result: Result{Found: true}}
	f := s.extract(ctx, &capture{b: []byte(body)})
	return s.result, f
}

func TestFieldExpressions(t *testing.T) {
	t.Setenv("RETRYWISE_TEST_SECRET", "s3cret")
	doc := `{"items":[{"id":7,"tags":["a","b"],"on":true},{"id":8,"on":false}],"a.b":{"c]":1},"n":null,"f":false,` +
		`"big":12345678901234567890,"dec":0.1000000000000000055511151231257827,"s":"x\ny"}`
	tests := []struct {
		expr string
		want string       // FormatValue of the value
		code failure.Code // "" when found
		why  string       // in the reason when code is set
	}{
		// paths, as the former hand-written syntax wrote them
		{".", `{"a.b":{"c]":1},"big":12345678901234567890,"dec":0.1000000000000000055511151231257827,"f":false,"items":[{"id":7,"on":true,"tags":["a","b"]},{"id":8,"on":false}],"n":null,"s":"x\ny"}`, "", ""},
		{".items[0].id", "7", "", ""},
		{".items[-1].id", "8", "", ""},
		{".items[0].tags[1]", "b", "", ""},
		{`.["a.b"]["c]"]`, "1", "", ""},
		{`.["a.b"]`, `{"c]":1}`, "", ""},
		{".s", `"x\ny"`, "", ""},
		{".f", "false", "", ""},
		// numbers stay exact, read and computed
		{".big", "12345678901234567890", "", ""},
		{".big + 1", "12345678901234567891", "", ""},
		{".dec", "0.1000000000000000055511151231257827", "", ""},
		{"[.big]", "[12345678901234567890]", "", ""},
		// jq
		{".items | length", "2", "", ""},
		{".items | map(.id)", "[7,8]", "", ""},
		{"[.items[].id]", "[7,8]", "", ""},
		{`.missing // "x"`, "x", "", ""},
		{`.n // "x"`, "x", "", ""},
		{".items[] | select(.on) | .id", "7", "", ""},
		{`.items | first(.[] | select(.id > 7)) | .id`, "8", "", ""},
		{`"id-\(.items[0].id)"`, "id-7", "", ""},
		{".items.id?", "null", failure.CodeFieldMissing, ""},
		{"nan", "null", failure.CodeFieldMissing, ""},
		{"infinite", "1.7976931348623157e+308", "", ""},
		{".items[0].id, halt", "7", "", ""},
		// no process environment
		{"$ENV", "{}", "", ""},
		{"env", "{}", "", ""},
		{"$ENV.RETRYWISE_TEST_SECRET", "null", failure.CodeFieldMissing, ""},
		{"env | length", "0", "", ""},
		// null and nothing are the same absence
		{".n", "null", failure.CodeFieldMissing, "not in the response: v=.n"},
		{".missing", "null", failure.CodeFieldMissing, "not in the response: v=.missing"},
		{".items[2]", "null", failure.CodeFieldMissing, ""},
		{".missing.deeper", "null", failure.CodeFieldMissing, ""},
		{".n.x", "null", failure.CodeFieldMissing, ""},
		{"empty", "null", failure.CodeFieldMissing, "not in the response: v=empty"},
		{".items[] | select(.id > 100)", "null", failure.CodeFieldMissing, ""},
		// jq errors are structural, with jq's message
		{".items.id", "null", failure.CodeFieldExprFailed, "--field v=.items.id failed: jq: expected an object but got: array"},
		{".s | tonumber", "null", failure.CodeFieldExprFailed, "--field v=.s | tonumber failed: jq: "},
		{`error("boom")`, "null", failure.CodeFieldExprFailed, "boom"},
		{`halt_error`, "null", failure.CodeFieldExprFailed, "halt error"},
		// several results are structural
		{".items[].id", "null", failure.CodeFieldSeveral, "--field v=.items[].id yields more than one result"},
		{".items[0].id, .items[1].id", "null", failure.CodeFieldSeveral, "more than one result"},
		{"range(infinite)", "null", failure.CodeFieldSeveral, "more than one result"},
	}
	for _, tt := range tests {
		res, f := extractOne(t, context.Background(), "v="+tt.expr, doc)
		got := FormatValue(res.Fields["v"])
		switch {
		case tt.code == "" && f != nil:
			t.Errorf("%s: %s: %s", tt.expr, f.Code, f.Reason)
		case tt.code != "" && (f == nil || f.Code != tt.code || !strings.Contains(f.Reason, tt.why)):
			t.Errorf("%s: %v, want %s with %q", tt.expr, f, tt.code, tt.why)
		case got != tt.want:
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
		if wantFound := tt.code == ""; res.Found != wantFound && (tt.code == "" || tt.code == failure.CodeFieldMissing) {
			t.Errorf("%s: found %v, want %v", tt.expr, res.Found, wantFound)
		}
		if f != nil {
			class := map[failure.Code]failure.Class{failure.CodeFieldMissing: failure.Absent,
				failure.CodeFieldExprFailed: failure.Structural, failure.CodeFieldSeveral: failure.Structural}[f.Code]
			if f.Class != class {
				t.Errorf("%s: class %s, want %s", tt.expr, f.Class, class)
			}
		}
		if _, err := json.Marshal(res.Fields); err != nil {
			t.Errorf("%s: the report cannot hold the value: %v", tt.expr, err)
		}
	}
}

func TestFieldOtherBodies(t *testing.T) {
	tests := []struct {
		body string
		code failure.Code
	}{
		{`not json`, failure.CodeFieldNotJSON},
		{`{"a":1} {"a":2}`, failure.CodeFieldNotJSON},
		{`{"a":1}`, ""},
	}
	for _, tt := range tests {
		_, f := extractOne(t, context.Background(), "a=.a", tt.body)
		if (f == nil && tt.code != "") || (f != nil && f.Code != tt.code) {
			t.Errorf("%q: %v, want %q", tt.body, f, tt.code)
		}
	}
	s := &Step{opts: Options{Fields: []Field{mustField(t, "a=.a")}}}
	if f := s.extract(context.Background(), &capture{over: true}); f == nil || f.Code != failure.CodeFieldTooLarge {
		t.Errorf("a body over the limit: %v", f)
	}
}

// TestFieldCancelled: a cancelled step stops an expression that would run forever.
func TestFieldCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, f := extractOne(t, ctx, "v=last(range(infinite))", `{}`)
	if f == nil || f.Code != failure.CodeCancelled {
		t.Fatalf("cancelled evaluation: %v", f)
	}
}

// TestFieldsAll: every field is read; a missing one makes the answer absent
// and names each field that is not there.
func TestFieldsAll(t *testing.T) {
	s := &Step{opts: Options{Fields: []Field{mustField(t, "a=.a"), mustField(t, "b=.b"), mustField(t, "c=.c")}}, result: Result{Found: true}}
	f := s.extract(context.Background(), &capture{b: []byte(`{"a":1,"b":null}`)})
	if f == nil || f.Code != failure.CodeFieldMissing || f.Reason != "not in the response: b=.b, c=.c" || s.result.Found {
		t.Fatalf("%v (found %v)", f, s.result.Found)
	}
	if FormatValue(s.result.Fields["a"]) != "1" || s.result.Fields["b"] != nil || len(s.result.Fields) != 3 {
		t.Errorf("fields %v", s.result.Fields)
	}
}

func mustField(tb testing.TB, s string) Field {
	tb.Helper()
	f, err := ParseField(s)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestParseField(t *testing.T) {
	tests := []struct {
		in, name, expr string
		why            string // in the error; "" when valid
	}{
		{"run-id=.workflow_runs[0].id", "run-id", ".workflow_runs[0].id", ""},
		{"n=.items | map(select(.a == 1)) | length", "n", ".items | map(select(.a == 1)) | length", ""},
		{`k=.["a=b"]`, "k", `.["a=b"]`, ""},
		{"noequals", "", "", "want NAME=EXPR"},
		{"=.x", "", "", "want NAME=EXPR"},
		{"a b=.x", "", "", "NAME may hold"},
		{"a.b=.x", "", "", "NAME may hold"},
		{"id=", "", "", "EXPR is empty"},
		{"id=  ", "", "", "EXPR is empty"},
		{"id=.a[", "", "", "jq: unexpected EOF"},
		{"id=x", "", "", "jq: function not defined: x/0"},
		{"id=items", "", "", "function not defined: items/0"},
		{"id=$token", "", "", "variable not defined: $token"},
		{"id=input", "", "", "not allowed"},
		{`id=import "m" as m; .`, "", "", "cannot load module"},
	}
	for _, tt := range tests {
		f, err := ParseField(tt.in)
		if tt.why == "" {
			if err != nil || f.Name != tt.name || f.Expr != tt.expr || f.String() != tt.in {
				t.Errorf("ParseField(%q) = %+v, %v", tt.in, f, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("invalid --field %q", tt.in)) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("ParseField(%q) = %v, want an error with %q", tt.in, err, tt.why)
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"}, {"plain text", "plain text"}, {json.Number("1.5"), "1.5"}, {true, "true"}, {3, "3"},
		{[]any{"a", json.Number("1")}, `["a",1]`}, {map[string]any{"k": nil}, `{"k":null}`}, {"two\nlines", `"two\nlines"`},
		{jsonSafe([]any{math.NaN(), math.Inf(-1)}), `[null,-1.7976931348623157e+308]`},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// BenchmarkField measures what --field costs on a 1 MiB answer: decoding
// it (numbers kept exact) and running three compiled jq expressions.
func BenchmarkField(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"total":12345678901234567890,"items":[`)
	items := 0
	for sb.Len() < 1<<20 {
		if items > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item %d","tags":["a","b"],"ok":%v,"score":%d.25}`, items, items, items%2 == 0, items)
		items++
	}
	sb.WriteString(`]}`)
	doc := []byte(sb.String())
	fields := []Field{mustField(b, "total=.total"), mustField(b, "last=.items[-1].id"), mustField(b, "n=[.items[] | select(.ok)] | length")}
	b.Run("decode+3-fields", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			s := &Step{opts: Options{Fields: fields}}
			if f := s.extract(context.Background(), &capture{b: doc}); f != nil {
				b.Fatal(f)
			}
		}
	})
	b.Run("3-fields-only", func(b *testing.B) {
		v, err := decodeJSON(doc)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			for _, fd := range fields {
				if x, err := fd.eval(context.Background(), v); err != nil || x == nil {
					b.Fatal(fd, err)
				}
			}
		}
	})
	b.Run("decode-only", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, err := decodeJSON(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
