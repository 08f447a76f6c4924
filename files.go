package xdpmicro

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xdpmicro/xdpmicro/internal/analysis"
	"github.com/xdpmicro/xdpmicro/internal/htmlpage"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// WriteFile writes data to path atomically, as every file xdpmicro writes:
// a new file renamed over the name, the path walked without following
// other users' symlinks (internal/safefs).
func WriteFile(path string, data []byte) error { return report.WriteFile(path, data) }

// WriteHTML writes rep as an HTML page with its plots into the directory
// dir, as --report does.
func WriteHTML(dir string, rep *results.Report) error { return htmlpage.WriteHTML(dir, rep) }

// DefaultHistory is where the floor this machine reads in its fast phase
// is remembered by default (Options.History): in the user's cache
// directory.
func DefaultHistory() string { return phases.DefaultPath() }

// CompareSaved judges the change from one saved result to another, case
// by case, the last program of each (results.Report.Measured), as the
// compare command does; opts' zero Estimator lets the files decide.
func CompareSaved(before, after *results.Report, opts stats.CompareOptions) (*results.Report, error) {
	opts, err := completeSaved(opts)
	if err != nil {
		return nil, err
	}
	return analysis.Against(before, after, results.Files, opts)
}

// CheckFileTarget refuses, before anything is measured, a file path a run
// could not write at its end: its directory is missing or not writable,
// or the path is a directory or not a regular file. Its errors begin with
// the path and wrap ErrBadInput.
func CheckFileTarget(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return badInput(fmt.Errorf("%s is a directory; want a file", path))
	}
	if err := checkWritableDir(filepath.Dir(path), path); err != nil {
		return err
	}
	// The file itself: a new one is renamed over it, so it must be a
	// file (not /dev/stdout), and a symlink there is followed only if
	// yours or root's.
	err := safefs.CheckWrite(path)
	switch {
	case errors.Is(err, safefs.ErrNotRegular):
		return badInput(fmt.Errorf("%s: not a regular file: xdpmicro writes a new file and renames it over the name, which would replace it", path))
	case err != nil:
		return badInput(fmt.Errorf("%s: %w", path, errors.Unwrap(err)))
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
				return badInput(fmt.Errorf("%s: %s is not a directory", dir, existing))
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return badInput(fmt.Errorf("%s: %w", dir, err))
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
		return badInput(fmt.Errorf("%s: directory %s does not exist", asked, dir))
	case err != nil:
		return badInput(fmt.Errorf("%s: %w", asked, err))
	case !fi.IsDir():
		return badInput(fmt.Errorf("%s: %s is not a directory", asked, dir))
	}
	d, err := safefs.OpenDir(dir, false)
	if err == nil {
		err = d.CheckWritable()
		d.Close()
	}
	if errors.Is(err, safefs.ErrUnsafe) {
		return badInput(fmt.Errorf("%s: %w", asked, errors.Unwrap(err)))
	}
	if err != nil {
		return badInput(fmt.Errorf("%s: cannot write in %s: %w", asked, dir, errors.Unwrap(err)))
	}
	return nil
}
