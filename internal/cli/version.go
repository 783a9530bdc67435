package cli

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/retrywise/retrywise/internal/exitcode"
)

func (f *factory) runVersion(ctx context.Context, args []string) int {
	fs := newFlagSet("version", "Usage: retrywise version\n\nPrints retrywise's version.")
	if code, done := f.parse(fs, args); done {
		return code
	}
	v := f.version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	fmt.Fprintf(f.stdout, "retrywise %s\n", v)
	return exitcode.OK
}
