package main

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro"
)

// checkFileTarget refuses, before anything is measured, a file the run
// could not write at its end (xdpmicro.CheckFileTarget), naming the flag.
func checkFileTarget(flag, path string) error {
	if err := xdpmicro.CheckFileTarget(path); err != nil {
		return usageError(fmt.Errorf("--%s %w", flag, err))
	}
	return nil
}

// checkDirTarget refuses a directory the run could not create or write
// into at its end (xdpmicro.CheckDirTarget), naming the flag.
func checkDirTarget(flag, dir string) error {
	if err := xdpmicro.CheckDirTarget(dir); err != nil {
		return usageError(fmt.Errorf("--%s %w", flag, err))
	}
	return nil
}
