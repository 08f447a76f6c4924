package report

import "errors"

// BadInput says whether err is the user's input being wrong: a format, a
// saved result or baseline, a baseline name, results with nothing in
// common.
func BadInput(err error) bool {
	for _, kind := range []error{ErrFormat, ErrBadResult, ErrNoBaseline, ErrBaselineName, ErrNotComparable} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}
