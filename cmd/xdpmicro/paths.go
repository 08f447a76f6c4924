package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// checkFileTarget refuses, before anything is measured, a file the run
// could not write at its end: its directory is missing or not writable,
// or the path is a directory.
func checkFileTarget(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageError{fmt.Errorf("--%s %s is a directory; want a file", flag, path)}
	}
	if err := checkWritableDir(flag, filepath.Dir(path), path); err != nil {
		return err
	}
	// The file itself: a new one is renamed over it, so it must be a
	// file (not /dev/stdout), and a symlink there is followed only if
	// yours or root's.
	err := safefs.CheckWrite(path)
	switch {
	case errors.Is(err, safefs.ErrNotRegular):
		return usageError{fmt.Errorf("--%s %s: not a regular file: xdpmicro writes a new file and renames it over the name, which would replace it", flag, path)}
	case err != nil:
		return usageError{fmt.Errorf("--%s %s: %w", flag, path, errors.Unwrap(err))}
	}
	return nil
}

// checkDirTarget refuses a directory the run could not create or write
// into at its end.
func checkDirTarget(flag, dir string) error {
	if dir == "" {
		return nil
	}
	// The nearest existing ancestor is where MkdirAll will start.
	existing := dir
	for {
		fi, err := os.Stat(existing)
		if err == nil {
			if !fi.IsDir() {
				return usageError{fmt.Errorf("--%s %s: %s is not a directory", flag, dir, existing)}
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return usageError{fmt.Errorf("--%s %s: %w", flag, dir, err)}
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	return checkWritableDir(flag, existing, dir)
}

// checkWritableDir creates and removes a file in dir: the only test of
// writing that permissions, read-only mounts and ACLs all answer. It
// walks dir as the write will (safefs), so a path through a symlink
// another user planted is refused now, in one line, not after measuring.
func checkWritableDir(flag, dir, asked string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usageError{fmt.Errorf("--%s %s: directory %s does not exist", flag, asked, dir)}
	case err != nil:
		return usageError{fmt.Errorf("--%s %s: %w", flag, asked, err)}
	case !fi.IsDir():
		return usageError{fmt.Errorf("--%s %s: %s is not a directory", flag, asked, dir)}
	}
	d, err := safefs.OpenDir(dir, false)
	if err == nil {
		err = d.CheckWritable()
		d.Close()
	}
	if errors.Is(err, safefs.ErrUnsafe) {
		return usageError{fmt.Errorf("--%s %s: %w", flag, asked, errors.Unwrap(err))}
	}
	if err != nil {
		return usageError{fmt.Errorf("--%s %s: cannot write in %s: %w", flag, asked, dir, errors.Unwrap(err))}
	}
	return nil
}
