package report

import (
	"errors"
	"fmt"
	"testing"
)

func TestBadInput(t *testing.T) {
	for _, err := range []error{ErrFormat, ErrBadResult, ErrNoBaseline, ErrBaselineName, ErrNotComparable} {
		if !BadInput(fmt.Errorf("x: %w", err)) {
			t.Errorf("%v is not bad input", err)
		}
	}
	if BadInput(errors.New("write x: disk full")) {
		t.Error("an I/O error is bad input")
	}
}
