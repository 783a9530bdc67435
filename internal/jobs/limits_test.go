package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/interrupt"
)

func init() {
	// A loader that recurses without bound must fail a test, not take the
	// machine's memory first: Go's default is a 1 GB stack.
	debug.SetMaxStack(256 << 20)
}

// limitCase is a hostile file and what its one error must say.
type limitCase struct {
	name string
	src  string
	msg  []string // substrings of the error's message
	pos  string   // LINE:COL of the error, or "" for any
}

// wantLimitError loads tt.src and checks it fails with an error whose
// message has every tt.msg, at tt.pos.
func wantLimitError(t *testing.T, tt limitCase) {
	t.Helper()
	f, errs := Load("job.yml", []byte(tt.src), fakeCatalog(nil))
	if f != nil || len(errs) == 0 {
		t.Fatalf("%s: loaded, want an error", tt.name)
	}
	for _, e := range errs {
		ok := tt.pos == "" || e.Pos.String() == tt.pos
		for _, m := range tt.msg {
			ok = ok && strings.Contains(e.Msg, m)
		}
		if ok {
			if e.Fix == "" {
				t.Errorf("%s: %v has no fix", tt.name, e)
			}
			return
		}
	}
	t.Errorf("%s: errors\n%s\nwant one at %q saying %q", tt.name, firstLines(errs, 5), tt.pos, tt.msg)
}

func firstLines(errs Errors, n int) string {
	if len(errs) > n {
		return errs[:n].Error() + fmt.Sprintf("\n... and %d more", len(errs)-n)
	}
	return errs.Error()
}

// validStep is a valid step for files that put their attack elsewhere.
const validStep = "      - id: a\n        exec: {run: \"true\"}\n"

func TestLoadMergeCycle(t *testing.T) {
	for _, tt := range []limitCase{
		{name: "self merge in flow style", src: "version: 1\njobs:\n  j: &a {<<: *a, steps: [{id: a, exec: {run: x}}]}\n",
			msg: []string{"cycle"}, pos: "3:10"},
		{name: "self merge, issue's shape", src: "version: 1\nx: &a {<<: *a, x: 1}\njobs:\n  j:\n    <<: *a\n    steps:\n" + validStep,
			msg: []string{"cycle"}, pos: "2:8"},
		{name: "self merge in block style", src: "version: 1\njobs:\n  j: &j\n    <<: *j\n    steps:\n" + validStep,
			msg: []string{"cycle"}, pos: "4:5"},
		{name: "two mappings merging each other", src: "version: 1\nx: &a {<<: *b, p: 1}\ny: &b {<<: *a, q: 1}\njobs:\n  j:\n    <<: *a\n    steps:\n" + validStep,
			msg: []string{"cycle"}},
		{name: "cycle through a merge list", src: "version: 1\nx: &o {t: 1}\ny: &a {<<: [*o, *a]}\njobs:\n  j:\n    <<: *a\n    steps:\n" + validStep,
			msg: []string{"cycle"}},
		{name: "cycle in a step", src: "version: 1\njobs:\n  j:\n    steps:\n      - &s {<<: *s, id: a, exec: {run: x}}\n",
			msg: []string{"cycle"}},
		{name: "cycle in defaults' retry", src: "version: 1\ndefaults:\n  retry: &r {<<: *r, max-attempts: 3}\njobs:\n  j:\n    steps:\n" + validStep,
			msg: []string{"cycle"}},
		{name: "cycle three long", src: "version: 1\nx: &a {<<: *b}\ny: &b {<<: *c}\nz: &c {<<: *a}\njobs:\n  j:\n    env: *a\n    steps:\n" + validStep,
			msg: []string{"cycle"}},
	} {
		wantLimitError(t, tt)
	}
}

// mergeBomb is the merge-key bomb: each level merges the one
// below it width times, levels deep.
func mergeBomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("version: 1\nx0: &a0 {k0: v}\n")
	for i := 1; i <= levels; i++ {
		refs := make([]string, width)
		for j := range refs {
			refs[j] = fmt.Sprintf("*a%d", i-1)
		}
		fmt.Fprintf(&b, "x%d: &a%d {<<: [%s], k%d: v}\n", i, i, strings.Join(refs, ", "), i)
	}
	return b.String()
}

// mergeChain is n mappings, each merging the one before and adding a key
// (900 to a group, under the key limit), merged into a job's env.
func mergeChain(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\ng0:\n  x0: &a0 {k0: v}\n")
	for i := 1; i < n; i++ {
		if i%900 == 0 {
			fmt.Fprintf(&b, "g%d:\n", i/900)
		}
		fmt.Fprintf(&b, "  x%d: &a%d {<<: *a%d, k%d: v}\n", i, i, i-1, i)
	}
	fmt.Fprintf(&b, "jobs:\n  j:\n    env: {<<: *a%d}\n    steps:\n"+validStep, n-1)
	return b.String()
}

// listBomb is a bomb of lists of aliases, levels deep.
func listBomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("version: 1\nx0: &a0 [v, v]\n")
	for i := 1; i <= levels; i++ {
		refs := make([]string, width)
		for j := range refs {
			refs[j] = fmt.Sprintf("*a%d", i-1)
		}
		fmt.Fprintf(&b, "x%d: &a%d [%s]\n", i, i, strings.Join(refs, ", "))
	}
	return b.String()
}

func TestLoadAliasBomb(t *testing.T) {
	limit := fmt.Sprint(MaxAliasNodes)
	bomb := mergeBomb(9, 9)
	for _, tt := range []limitCase{
		{name: "merge bomb under a job", src: bomb + "jobs:\n  j:\n    <<: *a9\n    steps:\n" + validStep,
			msg: []string{"alias", limit}},
		{name: "merge bomb as a step's env", src: bomb + "jobs:\n  j:\n    steps:\n      - id: a\n        exec: {run: x}\n        env: {<<: *a9}\n",
			msg: []string{"alias", limit}},
		{name: "merge bomb in a kind's keys", src: bomb + "jobs:\n  j:\n    steps:\n      - id: a\n        exec: {<<: *a9, run: x}\n",
			msg: []string{"alias", limit}},
		{name: "wide and shallow merge bomb", src: mergeBomb(3, 60) + "jobs:\n  j:\n    env:\n      <<: *a3\n    steps:\n" + validStep,
			msg: []string{"alias", limit}},
		{name: "merge bomb in defaults", src: bomb + "defaults:\n  retry: *a9\njobs:\n  j:\n    steps:\n" + validStep,
			msg: []string{"alias", limit}},
		{name: "the same big mapping used as every step", src: bigStepsByAlias(), msg: []string{"alias", limit}},
		{name: "a chain of merges, each adding a key", src: mergeChain(6000), msg: []string{"alias", limit}},
	} {
		wantLimitError(t, tt)
	}
	// a list bomb is read only one level deep: its items are not strings
	src := listBomb(9, 9) + "jobs:\n  j:\n    cron: *a9\n    steps:\n" + validStep
	if _, errs := Load("job.yml", []byte(src), fakeCatalog(nil)); len(errs) == 0 {
		t.Errorf("list bomb: loaded")
	}
}

// bigStepsByAlias is a file of one anchored step mapping with many keys,
// then many steps that each alias it.
func bigStepsByAlias() string {
	var b strings.Builder
	b.WriteString("version: 1\nx: &s {id: a, exec: {run: x}, env: {")
	for i := range 900 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "V%d: x", i)
	}
	b.WriteString("}}\njobs:\n  j:\n    steps: [")
	for i := range 400 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*s")
	}
	b.WriteString("]\n")
	return b.String()
}

func TestLoadNesting(t *testing.T) {
	limit := fmt.Sprint(MaxDepth)
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	for _, tt := range []limitCase{
		{name: "issue's flow lists, depth 40000", src: head + "      - id: a\n        exec: {run: x}\n        env: " + deep("[", "]", 40000) + "\n",
			msg: []string{"nest", limit}, pos: fmt.Sprintf("7:%d", 14+MaxDepth-5)},
		{name: "flow mappings", src: head + validStep + "        env: " + deep("{a: ", "}", 20000) + "\n",
			msg: []string{"nest", limit}},
		{name: "flow lists, unclosed", src: head + validStep + "        env: " + strings.Repeat("[", 100000) + "\n",
			msg: []string{"nest", limit}},
		{name: "block lists on one line", src: head + validStep + "        env:\n          - " + strings.Repeat("- ", 40000) + "x\n",
			msg: []string{"nest", limit}},
		{name: "block mappings by indentation", src: "version: 1\nx:\n" + indented(200),
			msg: []string{"nest", limit}},
		{name: "mixed block and flow", src: "version: 1\nx:\n" + indented(40) + strings.Repeat(" ", 41) + "y: " + deep("[", "]", 40) + "\njobs: {}\n",
			msg: []string{"nest", limit}},
		{name: "flow in a second document", src: head + validStep + "---\n" + deep("[", "]", 1000) + "\n",
			msg: []string{"nest", limit}},
	} {
		wantLimitError(t, tt)
	}
	// nesting below the limit is only as deep as it is
	ok := head + validStep + "x: " + deep("[", "]", MaxDepth-2) + "\n"
	if _, errs := Load("job.yml", []byte(ok), fakeCatalog(nil)); len(errs) != 1 || !strings.Contains(errs[0].Msg, `unknown key "x"`) {
		t.Errorf("depth %d: errors\n%v\nwant only the unknown key", MaxDepth-2, errs)
	}
}

// indented is n block mappings, each nested in the one before by one space.
func indented(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i+1))
		b.WriteString("k:\n")
	}
	return b.String()
}

func TestLoadSize(t *testing.T) {
	valid := head + validStep
	pad := func(n int) string { // a comment line making valid n bytes long
		return valid + "#" + strings.Repeat("x", n-len(valid)-2) + "\n"
	}
	if f, errs := Load("job.yml", []byte(pad(MaxFileBytes)), fakeCatalog(nil)); f == nil {
		t.Fatalf("a file of exactly %d bytes: %v", MaxFileBytes, errs)
	}
	for _, tt := range []limitCase{
		{name: "one byte over", src: pad(MaxFileBytes + 1), msg: []string{"256 KiB"}},
		{name: "10 MB of newlines", src: valid + strings.Repeat("\n", 10<<20), msg: []string{"256 KiB"}},
		{name: "one long line", src: "version: 1\nx: " + strings.Repeat("a", MaxFileBytes), msg: []string{"256 KiB"}, pos: fmt.Sprintf("2:%d", MaxFileBytes-11+1)},
	} {
		wantLimitError(t, tt)
	}
}

func TestLoadMappingKeys(t *testing.T) {
	limit := fmt.Sprint(MaxMappingKeys)
	keys := func(indent string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%sk%d: v\n", indent, i)
		}
		return b.String()
	}
	flowKeys := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "k%d: v", i)
		}
		return b.String() + "}"
	}
	for _, tt := range []limitCase{
		{name: "env with 10000 keys", src: head + validStep + "        env:\n" + keys("          ", 10000),
			msg: []string{"keys", limit}, pos: fmt.Sprintf("%d:11", 8+MaxMappingKeys)},
		{name: "top level with many keys", src: "version: 1\n" + keys("", 20000), msg: []string{"keys", limit}},
		{name: "a job's many keys", src: "version: 1\njobs:\n  j:\n" + keys("    ", 3000), msg: []string{"keys", limit}},
		{name: "flow mapping with many keys", src: head + validStep + "        env: " + flowKeys(20000) + "\n", msg: []string{"keys", limit}},
	} {
		wantLimitError(t, tt)
	}
	// the limit itself is allowed
	src := head + validStep + "        env:\n" + strings.ReplaceAll(keys("          ", MaxMappingKeys), "k", "K")
	if _, errs := Load("job.yml", []byte(src), fakeCatalog(nil)); errs != nil {
		t.Errorf("%d keys: %v", MaxMappingKeys, firstLines(errs, 3))
	}
}

func TestConditionLimits(t *testing.T) {
	ifStep := func(cond string) string {
		return head + validStep + "      - id: b\n        if: '" + cond + "'\n        exec: {run: x}\n"
	}
	long := strings.Repeat("success() || ", 100000) + "success()"
	for _, tt := range []limitCase{
		{name: "1,000,000 nested parentheses", src: ifStep(strings.Repeat("(", 1000000) + "true" + strings.Repeat(")", 1000000)),
			msg: []string{"256 KiB"}}, // over the file's limit first
		{name: "100,000 nested parentheses", src: ifStep(strings.Repeat("(", 100000) + "true" + strings.Repeat(")", 100000)),
			msg: []string{"if:", fmt.Sprint(MaxExprBytes)}},
		{name: "deep parentheses within the size", src: ifStep(strings.Repeat("(", 5000) + "true" + strings.Repeat(")", 5000)),
			msg: []string{"if:", "deeper than", fmt.Sprint(MaxExprDepth)}, pos: "8:13"},
		{name: "deep not", src: ifStep(strings.Repeat("!", 5000) + "true"),
			msg: []string{"if:", "deeper than", fmt.Sprint(MaxExprDepth)}},
		{name: "deep calls", src: ifStep(strings.Repeat("contains(", 300) + "1,1" + strings.Repeat(",1)", 300)),
			msg: []string{"if:", "deeper than", fmt.Sprint(MaxExprDepth)}},
		{name: "deep index", src: ifStep(strings.Repeat("env[", 300) + "1" + strings.Repeat("]", 300)),
			msg: []string{"if:", "deeper than", fmt.Sprint(MaxExprDepth)}},
		{name: "unclosed parentheses", src: ifStep(strings.Repeat("(", 3000)),
			msg: []string{"if:", "deeper than"}},
		{name: "long expression", src: ifStep(long[:60000]),
			msg: []string{"if:", "longer than", fmt.Sprint(MaxExprBytes)}},
	} {
		wantLimitError(t, tt)
	}
}

func TestLoadContextCancelled(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&interrupt.Signal{Sig: sig})
		for name, src := range map[string]string{
			"valid":  head + validStep,
			"bomb":   mergeBomb(9, 9) + "jobs:\n  j:\n    <<: *a9\n    steps:\n" + validStep,
			"cyclic": "version: 1\njobs:\n  j: &a {<<: *a}\n",
		} {
			f, errs, err := LoadContext(ctx, "job.yml", []byte(src), fakeCatalog(nil))
			got, ok := interrupt.FromContext(ctx)
			var s *interrupt.Signal
			if f != nil || errs != nil || !errors.As(err, &s) || !ok || got != sig {
				t.Errorf("%s, %v: %v, %v, %v; want the signal as the error", name, sig, f, errs, err)
			}
		}
	}
}

// TestLoadMemory: loading the worst shapes within the limits allocates
// less than the bound the README states.
func TestLoadMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads files at the size limit")
	}
	const bound = 256 << 20
	for name, src := range worstFiles() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		Load("job.yml", src, fakeCatalog(nil))
		runtime.ReadMemStats(&after)
		t.Logf("%s: %d MB allocated in %v", name, (after.TotalAlloc-before.TotalAlloc)>>20, time.Since(start))
		if n := after.TotalAlloc - before.TotalAlloc; n > bound {
			t.Errorf("%s: loading allocated %d MB, over %d MB", name, n>>20, bound>>20)
		}
	}
}

// worstFiles are files at the limits, of the shapes that cost the parser
// most per byte.
func worstFiles() map[string][]byte {
	fill := func(prefix, unit, suffix string) []byte {
		n := (MaxFileBytes - len(prefix) - len(suffix)) / len(unit)
		return []byte(prefix + strings.Repeat(unit, n) + suffix)
	}
	keysAtLimit := func() []byte {
		var b strings.Builder
		b.WriteString("version: 1\n")
		for m := 0; b.Len() < MaxFileBytes-20000; m++ {
			fmt.Fprintf(&b, "m%d:\n", m)
			for i := 0; i < MaxMappingKeys && b.Len() < MaxFileBytes-100; i++ {
				fmt.Fprintf(&b, " k%d: v\n", i)
			}
		}
		return []byte(b.String())
	}
	return map[string][]byte{
		"flow list of one-letter items":  fill("version: 1\nx: [", "a,", "a]\n"),
		"flow lists nested at the limit": fill("version: 1\nx: [", strings.Repeat("[", MaxDepth-3)+strings.Repeat("]", MaxDepth-3)+",", "a]\n"),
		"block list of one-letter items": fill("version: 1\nx:\n", "- a\n", ""),
		"mappings of the most keys":      keysAtLimit(),
		"flow mappings":                  fill("version: 1\nx: [", "{a: b},", "a]\n"),
		"aliases":                        fill("version: 1\nx: &a [b]\ny: [", "*a,", "*a]\n"),
		"anchors":                        fill("version: 1\nx: [", "&a b,", "b]\n"),
		"comments":                       fill("version: 1\n", "#\n", ""),
		"documents":                      fill("version: 1\n", "---\n", ""),
	}
}

// TestReadFileStops: reading a FIFO no one writes blocks in open; a
// cancelled context stops the read with its cause.
func TestReadFileStops(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "job.yml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	t.Cleanup(func() {
		// release the reader still blocked in open
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := ReadFile(ctx, fifo)
		errc <- err
	}()
	cancel(&interrupt.Signal{Sig: syscall.SIGTERM})
	var s *interrupt.Signal
	if err := <-errc; !errors.As(err, &s) || s.Sig != syscall.SIGTERM {
		t.Errorf("err %v, want the signal", err)
	}
	// a file over the limit is read one byte past it
	big := filepath.Join(t.TempDir(), "big.yml")
	os.WriteFile(big, make([]byte, 3*MaxFileBytes), 0o644)
	if b, err := ReadFile(context.Background(), big); err != nil || len(b) != MaxFileBytes+1 {
		t.Errorf("read %d bytes, %v; want %d", len(b), err, MaxFileBytes+1)
	}
}
