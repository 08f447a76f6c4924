// Package badinput marks the errors that are the user's input being wrong
// (an object, a case, a file, a flag's value), as opposed to the kernel or
// the machine refusing: every such error wraps Err, so that a caller tells
// them apart with one errors.Is, and the command exits 2 for the one and 1
// for the other.
package badinput

import "errors"

// Err is what every bad-input error wraps.
var Err = errors.New("bad input")

// New returns a sentinel error that reads text and wraps Err.
func New(text string) error { return &sentinel{text} }

type sentinel struct{ text string }

func (e *sentinel) Error() string { return e.text }
func (e *sentinel) Unwrap() error { return Err }
