package cli

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// versionOptions is what `retrywise version` prints.
type versionOptions struct {
	f *factory
	// version is the version set at build time; "" means the module's, or (devel).
	version string
}

// parseVersion parses `retrywise version`, which takes no flags.
func parseVersion(f *factory, args []string) (*versionOptions, int, bool) {
	fs := newFlagSet("version", "Usage: retrywise version\n\nPrints retrywise's version.")
	if _, code, done := f.parse(fs, args); done {
		return nil, code, true
	}
	return &versionOptions{f: f, version: f.version}, 0, false
}

// runVersion prints the version on stdout.
func runVersion(ctx context.Context, opts *versionOptions) int {
	v := opts.version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	fmt.Fprintf(opts.f.stdout, "retrywise %s\n", v)
	return exitcode.OK
}
