// Command retrywise runs automation steps and classifies every failure before
// it decides to retry. See README.md.
package main

import (
	"context"
	"os"
	// Job files name IANA zones (timezone:); slim container images ship no
	// zoneinfo, so the binary carries its own (about 450 KB).
	_ "time/tzdata"

	"github.com/retrywise/retrywise/internal/cli"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version string

func main() {
	ctx, stop := interrupt.NotifyContext(context.Background())
	c := &cli.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ(), Version: version}
	code := c.Main(ctx, os.Args)
	stop()
	os.Exit(code)
}
