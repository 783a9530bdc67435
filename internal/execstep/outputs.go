package execstep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/outputfile"
)

// OutputVar is the environment variable naming an attempt's outputs file.
const OutputVar = "RETRYWISE_OUTPUT"

// OutputFile returns the path of attempt n's outputs file in dir.
func OutputFile(dir string, n int) string {
	return filepath.Join(dir, "output-"+strconv.Itoa(n))
}

// freshOutputFile creates attempt n's outputs file in dir, empty, replacing
// whatever was there.
func freshOutputFile(dir string, n int) (string, error) {
	path := OutputFile(dir, n)
	if err := freshFile(path); err != nil {
		return "", fmt.Errorf("outputs file: %w", err)
	}
	return path, nil
}

// freshFile replaces whatever is at path with a new empty file: a new
// file, not a truncated one, so that a process of an earlier attempt still
// holding the old one open cannot write into it.
func freshFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// readOutputs parses a succeeded attempt's outputs file. A file the command
// removed holds no outputs, as the runner treats a missing $GITHUB_OUTPUT; a
// file that cannot be parsed fails the attempt as structural. The command
// may have put a FIFO or a device in its place: it is opened without
// blocking and refused (outputfile.OpenRegular), never waited on; ctx, ended,
// stops the reading before the open and after the parse.
func (s *Step) readOutputs(ctx context.Context, path string) (map[string]string, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	f, err := outputfile.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, failure.OutputFileInvalid(s.opts.Args[0], OutputVar, err)
	}
	defer f.Close()
	entries, err := outputfile.Parse(f)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, failure.OutputFileInvalid(s.opts.Args[0], OutputVar, err)
	}
	return outputfile.Map(entries), nil
}

// setEnv returns a copy of env with name set to value, every inherited
// entry for name dropped.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
