package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// times8 is format('{0}' eight times, x): x eight times over.
func times8(x string) string { return "format('" + strings.Repeat("{0}", 8) + "', " + x + ")" }

// nest8 is x eight times over, n times.
func nest8(x string, n int) string {
	for range n {
		x = times8(x)
	}
	return x
}

// mib is an expression making exactly 1 MiB ('xxxx' 8^6 times): within
// MaxValueBytes.
var mib = nest8("'xxxx'", 6)

// chain joins n copies of x with op, up to MaxBytes.
func chain(x, op string, n int) string {
	parts := make([]string, 0, n)
	for range n {
		if len(parts)*(len(x)+len(op)) > MaxBytes-len(x)-len(op) {
			break
		}
		parts = append(parts, x)
	}
	return strings.Join(parts, op)
}

// TestExprBuildersStopAtBound: an if: of at most 21,000 bytes whose
// functions would build gigabytes (toJSON of deep nesting indents it with
// the square of the depth; format and join multiply; every call may build
// a MiB anew) stops at a bound while it builds: under 50 MB allocated and
// 2 s, with an error naming the bound. Before, toJSON(fromJSON('[[[…]]]'))
// 8,000 deep took 858 MB and 3.9 s before its error.
func TestExprBuildersStopAtBound(t *testing.T) {
	deep := func(d int) string { return strings.Repeat("[", d) + strings.Repeat("]", d) }
	big := envRoot(map[string]string{"BIG": "[" + strings.Repeat("0,", 1<<20) + "0]"})
	tests := []struct {
		name, src, bound string
		st               map[string]any
	}{
		{"toJSON of 8,000 levels", "toJSON(fromJSON('" + deep(8000) + "'))", "nests deeper than the limit of 64 levels", envRoot(nil)},
		{"fromJSON of 10,400 levels", "fromJSON('" + deep(10400) + "')", "nests deeper than the limit of 64 levels", envRoot(nil)},
		{"toJSON of 60 levels, 512 times", "toJSON(fromJSON(format('[{0}[]]', " + nest8("'"+deep(60)+",'", 3) + ")))", "longer than the limit of 1048576 bytes", envRoot(nil)},
		{"format 8^9 times", nest8("'xxxxxxxx'", 9), "longer than the limit of 1048576 bytes", envRoot(nil)},
		{"join with a 1 MiB separator", "join(fromJSON('[1,2,3,4,5,6,7,8,9]'), " + mib + ")", "longer than the limit of 1048576 bytes", envRoot(nil)},
		{"fromJSON of 2 MiB", "fromJSON(env.BIG)", "longer than the limit of 1048576 bytes", big},
		{"a MiB built again and again", chain(mib+" == "+mib, " && ", 100), "the limit of 16777216 bytes in all", envRoot(nil)},
		{"fromJSON of a MiB again and again", chain("fromJSON(format('[{0}0]', "+nest8("'[],'", 6)+"))", " || ", 100), "the limit of 16777216 bytes in all", envRoot(nil)},
		{"contains on a MiB again and again", chain("contains("+mib+", 'y')", " || ", 100), "the limit of 16777216 bytes in all", envRoot(nil)},
		{"comparisons of a MiB again and again", chain(mib+" < "+mib, " || ", 100), "the limit of 16777216 bytes in all", envRoot(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.src) > MaxBytes {
				t.Fatalf("the expression is %d bytes", len(tt.src))
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := evalExpr(t, tt.src, tt.st)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes of if: %v, %.1f MB allocated: %v", len(tt.src), took, float64(alloc)/1e6, err)
			if err == nil || !strings.Contains(err.Error(), tt.bound) {
				t.Errorf("error %v, want one naming %q", err, tt.bound)
			}
			if alloc > 50<<20 || took > 2*time.Second {
				t.Errorf("%.1f MB allocated in %v, want under 50 MB and 2 s", float64(alloc)/1e6, took)
			}
		})
	}
}

// TestExprWithinBounds: values at the bounds are made: a string of exactly
// MaxValueBytes, fromJSON of 64 levels, and a few MiB built in one if:.
func TestExprWithinBounds(t *testing.T) {
	for _, src := range []string{
		"format('{0}', " + mib + ") == " + mib,
		"toJSON(fromJSON('" + strings.Repeat("[", 64) + strings.Repeat("]", 64) + "')) != ''",
		"fromJSON('" + strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64) + "')" + strings.Repeat(".a", 40) + " != 0",
		chain(mib+" == "+mib, " && ", 3),
	} {
		v, err := evalExpr(t, src, envRoot(nil))
		if err != nil || v != true {
			t.Errorf("%.80s: %v, %v; want true", src, v, err)
		}
	}
}

// TestToJSONAsMarshalIndent: toJSON writes what json.MarshalIndent with two
// spaces writes, key order, escapes and numbers included.
func TestToJSONAsMarshalIndent(t *testing.T) {
	values := []any{
		nil, true, false, 0.0, math.Copysign(0, -1), 1.5, -2.0, 1e21, 1e20, 1e-7, 1e-6, 123456789012345678.0, 0.1,
		"", "plain", "q\"uote\\back/slash", "<a&b>", "tab\tnl\ncr\r\b\f\x01\x1f", "\u2028\u2029", "bad\xffutf8\xe2\x82", "日本語",
		strings.Repeat("é<", 3000) + "\xe2",
		[]any{}, map[string]any{}, []any{1.0, []any{}, map[string]any{}},
		map[string]any{"b": 1.0, "a": []any{"x", map[string]any{"z": nil, "B": true}}, "": "empty", "<k>": "html"},
	}
	for _, v := range values {
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		w := &valueBuilder{ev: &exprEval{}}
		if err := w.json(v, 0); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if got := w.String(); got != string(want) {
			t.Errorf("toJSON(%#.60v)\n got %q\nwant %q", v, got, want)
		}
	}
	w := &valueBuilder{ev: &exprEval{}}
	w.json(filtered{math.NaN(), math.Inf(1)}, 0)
	if got := w.String(); got != "[\n  null,\n  null\n]" {
		t.Errorf("NaN and Inf: %q", got)
	}
}

// TestExprErrorsQuoteNoInnerText: an error quotes the value only through
// the one cut, never a piece from inside it (a format's index, the
// character JSON stumbled on).
func TestExprErrorsQuoteNoInnerText(t *testing.T) {
	const secret = "Qz7vK2mXp9Lw{R4tYb8NcJ6}hFd3GsA1eUo5iZyVxTq0WnMkPjHlBgCfDrE"
	st := envRoot(map[string]string{"S": secret})
	for _, src := range []string{
		"fromJSON(env.S)",
		"format(env.S)",
		"format(format('{0}{{', env.S))",
		"format(format('{{{0}}}', env.S))",
		"format(format('{0}{{999}}', env.S))",
		"fromJSON(format('[{0}', env.S))",
	} {
		_, err := evalExpr(t, src, st)
		if err == nil {
			t.Fatalf("%s: no error", src)
		}
		msg := err.Error()
		if !strings.Contains(msg, "…\"") {
			t.Errorf("%s: %q quotes no cut value", src, msg)
		}
		// Past the quoted value's cut, no piece of the secret.
		rest := msg[strings.Index(msg, "…\"")+len("…\""):]
		for i := 0; i+3 <= len(secret); i++ {
			if strings.Contains(rest, secret[i:i+3]) {
				t.Errorf("%s: %q shows %q past the cut", src, msg, secret[i:i+3])
				break
			}
		}
		if strings.Contains(msg, "...") {
			t.Errorf("%s: %q cuts with ...", src, msg)
		}
	}
	_, err := evalExpr(t, "format(format('{0}{{999}}', 'a'))", envRoot(nil))
	if err == nil || !strings.Contains(fmt.Sprint(err), "names no argument") {
		t.Errorf("format of {999}: %v", err)
	}
}
