package badinput

import (
	"errors"
	"fmt"
	"testing"
)

func TestNew(t *testing.T) {
	a, b := New("unknown case"), New("unknown case")
	wrapped := fmt.Errorf("case x: %w", a)
	switch {
	case a.Error() != "unknown case":
		t.Errorf("reads %q", a)
	case !errors.Is(wrapped, Err) || !errors.Is(wrapped, a):
		t.Error("a wrapped sentinel is neither bad input nor itself")
	case errors.Is(wrapped, b):
		t.Error("two sentinels of one text are one error")
	case errors.Is(errors.New("disk full"), Err):
		t.Error("any error is bad input")
	}
}

// Wrap's error is bad input and still what it wraps, its message unchanged.
func TestWrap(t *testing.T) {
	cause := errors.New("--kernel x: no such file")
	err := fmt.Errorf("run: %w", Wrap(cause))
	switch {
	case err.Error() != "run: --kernel x: no such file":
		t.Errorf("reads %q", err)
	case !errors.Is(err, Err):
		t.Error("not bad input")
	case !errors.Is(err, cause):
		t.Error("no longer what it wraps")
	}
}
