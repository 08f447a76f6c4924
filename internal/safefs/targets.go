package safefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// CheckFileTarget refuses, before anything is measured, a file path a run
// could not write at its end: its directory is missing or not writable,
// or the path is a directory or not a regular file. Its errors begin with
// the path and wrap ErrBadInput.
func CheckFileTarget(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return badinput.Wrap(fmt.Errorf("%s is a directory; want a file", path))
	}
	if err := checkWritableDir(filepath.Dir(path), path); err != nil {
		return err
	}
	// The file itself: a new one is renamed over it, so it must be a
	// file (not /dev/stdout), and a symlink there is followed only if
	// yours or root's.
	err := CheckWrite(path)
	switch {
	case errors.Is(err, ErrNotRegular):
		return badinput.Wrap(fmt.Errorf("%s: not a regular file: xdpmicro writes a new file and renames it over the name, which would replace it", path))
	case err != nil:
		return badinput.Wrap(fmt.Errorf("%s: %w", path, errors.Unwrap(err)))
	}
	return nil
}

// CheckDirTarget refuses a directory a run could not create or write
// into at its end. Its errors begin with the path and wrap ErrBadInput.
func CheckDirTarget(dir string) error {
	if dir == "" {
		return nil
	}
	// The nearest existing ancestor is where MkdirAll will start.
	existing := dir
	for {
		fi, err := os.Stat(existing)
		if err == nil {
			if !fi.IsDir() {
				return badinput.Wrap(fmt.Errorf("%s: %s is not a directory", dir, existing))
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return badinput.Wrap(fmt.Errorf("%s: %w", dir, err))
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	return checkWritableDir(existing, dir)
}

// checkWritableDir creates and removes a file in dir: the only test of
// writing that permissions, read-only mounts and ACLs all answer. It
// walks dir as the write will (safefs), so a path through a symlink
// another user planted is refused now, in one line, not after measuring.
func checkWritableDir(dir, asked string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return badinput.Wrap(fmt.Errorf("%s: directory %s does not exist", asked, dir))
	case err != nil:
		return badinput.Wrap(fmt.Errorf("%s: %w", asked, err))
	case !fi.IsDir():
		return badinput.Wrap(fmt.Errorf("%s: %s is not a directory", asked, dir))
	}
	d, err := OpenDir(dir, false)
	if err == nil {
		err = d.CheckWritable()
		d.Close()
	}
	if errors.Is(err, ErrUnsafe) {
		return badinput.Wrap(fmt.Errorf("%s: %w", asked, errors.Unwrap(err)))
	}
	if err != nil {
		return badinput.Wrap(fmt.Errorf("%s: cannot write in %s: %w", asked, dir, errors.Unwrap(err)))
	}
	return nil
}
