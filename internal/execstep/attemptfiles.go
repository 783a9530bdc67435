package execstep

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// AttemptFiles gives every attempt file commands of its own (the action's
// $GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_PATH and $GITHUB_STEP_SUMMARY):
// before attempt n it makes a new folder under Dir (0700) holding one new,
// empty file (0600) for each of Vars, and sets each variable to its file in
// the attempt's environment. A process an attempt leaves in the background
// keeps its attempt's paths, so whatever it writes later, by path or
// through a descriptor it holds, lands in that attempt's files, never in a
// later attempt's. Final names the files of the attempt that ran last;
// Dir's owner removes Dir after the run.
type AttemptFiles struct {
	// Dir holds the attempts' folders: a private folder (0700) of the step's own.
	Dir string
	// Vars are the environment variables the attempts' files are given by.
	Vars []string

	mu   sync.Mutex
	last map[string]string
}

// Final returns the files of the last attempt that was started, by
// variable; nil before the first, or when that attempt's files could not
// be made.
func (f *AttemptFiles) Final() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.last)
}

// fresh makes attempt n's folder and its empty files and returns them by
// variable; Final names them from now on.
func (f *AttemptFiles) fresh(n int) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = nil
	dir, err := os.MkdirTemp(f.Dir, fmt.Sprintf("attempt-%d-", n))
	if err != nil {
		return nil, fmt.Errorf("file commands of attempt %d: %w", n, err)
	}
	files := make(map[string]string, len(f.Vars))
	for _, name := range f.Vars {
		path := filepath.Join(dir, strings.ToLower(name))
		if err := freshFile(path); err != nil {
			return nil, fmt.Errorf("$%s file: %w", name, err)
		}
		files[name] = path
	}
	f.last = files
	return maps.Clone(files), nil
}
