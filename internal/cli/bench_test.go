package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// baselineBinary builds the smallest Go program that prints a line: the
// floor of any Go binary's start here, for the ratio of BenchmarkColdStart.
func baselineBinary(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module baseline\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "baseline")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build baseline: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkColdStart measures a process's wall time, start to exit, of
// static -trimpath builds (as released): the baseline Go binary,
// `retrywise --help`, and `retrywise validate` of a 100-step job file, also
// with GOGC=100 in the environment (validate100-gogc100), which leaves the
// runtime's first GC cycle at its 4 MB heap (see startHeap in
// cmd/retrywise). x-baseline is each one's time over the baseline's from the
// same run (the baseline sub-benchmark runs first).
func BenchmarkColdStart(b *testing.B) {
	base := baselineBinary(b)
	// Built as released (docs/container-image.md, .github/workflows/release.yml): static, so no dynamic loader runs
	// at start, and -trimpath; buildBinary's test build links the C library.
	bin := filepath.Join(b.TempDir(), "retrywise")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/retrywise/retrywise/cmd/retrywise")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	job := filepath.Join(b.TempDir(), "100-step.yml")
	if err := os.WriteFile(job, []byte(hundredStepJob()), 0o644); err != nil {
		b.Fatal(err)
	}
	var baseNs float64
	for _, c := range []struct {
		name string
		argv []string
		env  []string
	}{
		{"baseline", []string{base}, nil},
		{"help", []string{bin, "--help"}, nil},
		{"validate100", []string{bin, "validate", "--config", job}, nil},
		{"validate100-gogc100", []string{bin, "validate", "--config", job}, []string{"GOGC=100"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := append(os.Environ(), c.env...)
			for b.Loop() {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", c.argv, err, out)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if c.name == "baseline" {
				baseNs = ns
			}
			if baseNs > 0 {
				b.ReportMetric(ns/baseNs, "x-baseline")
			}
		})
	}
}
