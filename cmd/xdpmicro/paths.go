package main

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// checkFileTarget refuses, before anything is measured, a file the run
// could not write at its end (safefs.CheckFileTarget), naming the flag.
func checkFileTarget(flag, path string) error {
	if err := safefs.CheckFileTarget(path); err != nil {
		return usageError(fmt.Errorf("--%s %w", flag, err))
	}
	return nil
}

// checkDirTarget refuses a directory the run could not create or write
// into at its end (safefs.CheckDirTarget), naming the flag.
func checkDirTarget(flag, dir string) error {
	if err := safefs.CheckDirTarget(dir); err != nil {
		return usageError(fmt.Errorf("--%s %w", flag, err))
	}
	return nil
}
