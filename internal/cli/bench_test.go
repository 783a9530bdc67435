package cli

import (
	"os/exec"
	"testing"
)

// BenchmarkBinaryHelp measures `retrywise --help` as a process start to exit;
// compare it with BenchmarkBinaryBaselineTrue from the same run.
func BenchmarkBinaryHelp(b *testing.B) {
	bin := buildBinary(b)
	for b.Loop() {
		if err := exec.Command(bin, "--help").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBinaryBaselineTrue is the cost of starting any process here.
func BenchmarkBinaryBaselineTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
