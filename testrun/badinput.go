package testrun

import (
	"errors"

	"github.com/xdpmicro/xdpmicro/host"
)

// BadInput says whether err is the user's input being wrong (an object, a
// program name, a configuration, a map-init file), as opposed to the
// kernel or the machine refusing: callers exit 2 for the one, 1 for the
// other.
func BadInput(err error) bool {
	for _, kind := range []error{ErrBadObject, ErrNoProgram, ErrUnsupportedType, ErrNotTestRunnable, ErrConfig, ErrMapInit} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return host.BadInput(err)
}
