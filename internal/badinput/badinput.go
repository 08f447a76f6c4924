package badinput

import "errors"

// Err is what every bad-input error wraps.
var Err = errors.New("bad input")

// New returns a sentinel error that reads text and wraps Err.
func New(text string) error { return &sentinel{text} }

type sentinel struct{ text string }

func (e *sentinel) Error() string { return e.text }
func (e *sentinel) Unwrap() error { return Err }
