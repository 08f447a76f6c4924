package badinput

import "errors"

// Err is what every bad-input error wraps.
var Err = errors.New("bad input")

// New returns a sentinel error that reads text and wraps Err.
func New(text string) error { return &sentinel{text} }

type sentinel struct{ text string }

func (e *sentinel) Error() string { return e.text }
func (e *sentinel) Unwrap() error { return Err }

// Wrap marks err, found where only the caller's input can be wrong (a
// flag, a kernel image named), as bad input, its message unchanged: the
// one wrapper every package uses, so that errors.Is finds both Err and
// what err wraps.
func Wrap(err error) error { return wrapped{err} }

type wrapped struct{ err error }

func (w wrapped) Error() string   { return w.err.Error() }
func (w wrapped) Unwrap() []error { return []error{w.err, Err} }
