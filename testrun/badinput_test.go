package testrun

import (
	"fmt"
	"testing"

	"github.com/xdpmicro/xdpmicro/host"
)

// Input errors are told from the kernel's and the machine's, wrapped or not.
func TestBadInput(t *testing.T) {
	for _, err := range []error{ErrBadObject, ErrNoProgram, ErrUnsupportedType, ErrConfig, ErrMapInit} {
		if !BadInput(fmt.Errorf("case x: %w", err)) {
			t.Errorf("%v is not bad input", err)
		}
	}
	for _, err := range []error{host.ErrPermission, ErrVerifier, ErrUnexpectedReturn, host.ErrNoCPU, ErrAnchor, fmt.Errorf("test run: EINVAL")} {
		if BadInput(fmt.Errorf("case x: %w", err)) {
			t.Errorf("%v is bad input", err)
		}
	}
}
