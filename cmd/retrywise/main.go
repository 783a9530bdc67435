// Command retrywise runs automation steps and classifies every failure before
// it decides to retry. See README.md.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	// Job files name IANA zones (timezone:); slim container images ship no
	// zoneinfo, so the binary carries its own (about 450 KB).
	_ "time/tzdata"

	"github.com/retrywise/retrywise/internal/cli"
	// The tool families' recognisers (npm, docker, gh, ...): their init
	// registers them with package failure, which refuses to classify
	// without them.
	_ "github.com/retrywise/retrywise/internal/failure/tools"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version string

func main() {
	startHeap(os.LookupEnv)
	ctx, stop := interrupt.NotifyContext(context.Background())
	c := &cli.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ(), Version: version}
	code := c.Main(ctx, os.Args)
	stop()
	os.Exit(code)
}

// startGOGC is the GOGC of the runtime's first GC cycle; it starts at a heap
// of 4 MB × startGOGC/100 (16 MB) instead of the runtime's 4 MB.
const startGOGC = 400

// startHeap defers the first GC cycle to a 16 MB heap, and restores the
// runtime's GOGC of 100 once that cycle has run. Most commands exit within
// milliseconds after allocating a few MB (validating a 100-step job file
// allocates about 3 MB): at 4 MB they would start a cycle whose work is
// thrown away at exit. A long run or a schedule pays one cycle 12 MB later
// and is collected as usual from then on. A GOGC set in the environment
// (lookup) is left alone. The returned channel is closed once GOGC is back
// to 100 (never, when it was left alone).
func startHeap(lookup func(string) (string, bool)) <-chan struct{} {
	restored := make(chan struct{})
	if _, set := lookup("GOGC"); set {
		return restored
	}
	debug.SetGCPercent(startGOGC)
	// The first cycle finds the sentinel unreachable and runs its cleanup.
	// It is larger than 16 bytes, so the runtime does not batch it with
	// other small objects that might keep it alive.
	sentinel := new([32]byte)
	runtime.AddCleanup(sentinel, func(done chan struct{}) {
		debug.SetGCPercent(100)
		close(done)
	}, restored)
	return restored
}
