package report

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/results"
)

func TestBadInput(t *testing.T) {
	for _, err := range []error{ErrFormat, results.ErrBadResult, results.ErrNoBaseline, results.ErrBaselineName, engine.ErrNotComparable} {
		if !errors.Is(fmt.Errorf("x: %w", err), badinput.Err) {
			t.Errorf("%v is not bad input", err)
		}
	}
	if errors.Is(errors.New("write x: disk full"), badinput.Err) {
		t.Error("an I/O error is bad input")
	}
}
