package testrun

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// Input errors are told from the kernel's and the machine's, wrapped or not.
func TestBadInput(t *testing.T) {
	for _, err := range []error{object.ErrBadObject, object.ErrNoProgram, object.ErrUnsupportedType, object.ErrNotTestRunnable, ErrConfig, object.ErrMapInit, host.ErrCPU} {
		if !errors.Is(fmt.Errorf("case x: %w", err), badinput.Err) {
			t.Errorf("%v is not bad input", err)
		}
	}
	for _, err := range []error{host.ErrPermission, object.ErrVerifier, object.ErrUnexpectedReturn, host.ErrNoCPU, ErrAnchor, fmt.Errorf("test run: EINVAL")} {
		if errors.Is(fmt.Errorf("case x: %w", err), badinput.Err) {
			t.Errorf("%v is bad input", err)
		}
	}
}
