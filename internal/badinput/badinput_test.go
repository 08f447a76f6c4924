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
