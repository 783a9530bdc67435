package failure

import (
	"fmt"
	"strings"
	"testing"
)

// pushLog is a realistic failing `git push` log of about size bytes: git and
// curl progress meters (\r-overwritten), then a GH013 rejection and the
// hang-up that follows it.
func pushLog(size int) string {
	var b strings.Builder
	b.Grow(size + 2048)
	b.WriteString("+ git push origin HEAD:main\nEnumerating objects: 1452, done.\nCounting objects: 100% (1452/1452), done.\nDelta compression using up to 12 threads\n")
	for i := 0; b.Len() < size; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "Compressing objects:  %d%% (%d/1007)\r", i%100, i%1007)
		case 1:
			fmt.Fprintf(&b, "Writing objects:  %d%% (%d/1452), %d.%02d MiB | 21.50 MiB/s\r", i%100, i%1452, i%300, i%100)
		case 2:
			fmt.Fprintf(&b, "remote: Resolving deltas:  %d%% (%d/336)        \n", i%100, i%336)
		default:
			fmt.Fprintf(&b, " %3d  294M  %3d 36.1M    0     0  21.5M      0  0:00:13  0:00:%02d  0:00:12 21.5M\r", i%100, i%100, i%60)
		}
	}
	b.WriteString("\nremote: error: GH013: Repository rule violations found for refs/heads/main.\n" +
		"remote: Review all repository rules at https://github.com/acme/web/rules?ref=refs%2Fheads%2Fmain\n" +
		"remote: \nremote: - Changes must be made through a pull request.\nremote: \n" +
		"To https://github.com/acme/web.git\n ! [remote rejected] HEAD -> main (push declined due to repository rule violations)\n" +
		"error: failed to push some refs to 'https://github.com/acme/web.git'\nfatal: the remote end hung up unexpectedly\n")
	return b.String()
}

func benchmarkClassify(b *testing.B, size int) {
	text := pushLog(size)
	in := Input{Tool: ToolAuto, Text: text, ExitCode: 1}
	if f := Classify(in); f.Class != Structural || !strings.Contains(f.Reason, "GH013") {
		b.Fatalf("classified as %v", f)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Classify(in)
	}
}

// BenchmarkClassify1MiB classifies a 1 MiB failing push log.
func BenchmarkClassify1MiB(b *testing.B) { benchmarkClassify(b, 1<<20) }

// BenchmarkClassify4MiB classifies a 4 MiB failing push log; its MB/s should
// be about BenchmarkClassify1MiB's (the scan is linear).
func BenchmarkClassify4MiB(b *testing.B) { benchmarkClassify(b, 4<<20) }

// BenchmarkClassifySize classifies push logs from 64 KiB to 16 MiB: a linear
// scan keeps MB/s about the same at every size.
func BenchmarkClassifySize(b *testing.B) {
	for _, kib := range []int{64, 256, 1024, 4096, 16384} {
		b.Run(fmt.Sprintf("KiB=%d", kib), func(b *testing.B) { benchmarkClassify(b, kib<<10) })
	}
}

// hostileShapes are 4 MiB inputs built to be slow: one huge keyword-packed
// line, many gated lines, a real push log, no newline at all.
func hostileShapes() map[string]string {
	return map[string]string{
		"one huge line":     strings.Repeat("error fatal: timed out reset HTTP 500 Forbidden curl: (7) EOF ", 4<<20/62),
		"many gated lines":  strings.Repeat("fatal: the remote end hung up unexpectedly\nerror: RPC failed; curl 56 Recv failure: Connection reset by peer\n", 4<<20/106),
		"push log":          pushLog(4 << 20),
		"no newline at all": strings.Repeat("x", 4<<20) + "Could not resolve host: h",
	}
}

// TestClassifyLargeInput checks the verdict's invariants on hostile 4 MiB
// inputs; their cost is measured by BenchmarkClassifyHostile, not timed here.
func TestClassifyLargeInput(t *testing.T) {
	for name, text := range hostileShapes() {
		f := FromText(ToolAuto, text, 1)
		if err := textInvariants(f, text, 1); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// BenchmarkClassifyHostile measures the hostile 4 MiB shapes.
func BenchmarkClassifyHostile(b *testing.B) {
	for name, text := range hostileShapes() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				FromText(ToolAuto, text, 1)
			}
		})
	}
}

// BenchmarkCorpus classifies every corpus case once per iteration: the cost
// of a verdict (class, code and trace) on real failure texts.
func BenchmarkCorpus(b *testing.B) {
	cases := loadCorpus(b)
	ins := make([]Input, len(cases))
	for i, c := range cases {
		ins[i] = c.input()
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range ins {
			if f := Classify(in); f == nil {
				b.Fatal("nil failure")
			}
		}
	}
}
