package packets

import "errors"

// BadInput says whether err is the user's input being wrong: a case name,
// a packet file, a capture, a size or a context. Every error of this
// package is.
func BadInput(err error) bool {
	for _, kind := range []error{ErrUnknownCase, ErrDuplicateCase, ErrPacketFile, ErrPcap, ErrSize, ErrContext} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}
