package gitpush

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkDir returns why git cannot run in dir, naming the path: it does not
// exist, is not a directory, or cannot be entered. Without this check the
// failed chdir surfaces as git's own start error ("fork/exec /usr/bin/git: no
// such file or directory"), which blames git for a setting.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot push from %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("cannot push from %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("cannot push from %s: not a directory", dir)
	}
	// git needs to enter the directory and read it (access(2)'s R_OK|X_OK).
	const rOK, xOK = 4, 1
	if err := syscall.Access(dir, rOK|xOK); err != nil {
		return fmt.Errorf("cannot push from %s: %v", dir, err)
	}
	return nil
}

// unwrapPath drops a *fs.PathError's operation and path, which the caller names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
