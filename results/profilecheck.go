package results

import (
	"fmt"
	"reflect"
)

// ParseProfile reads a profile as profile --format json writes it (a
// --kernel guest's reply is one), with the checks a saved result is read
// with: bounded in memory before it is decoded, and refused, as
// ErrBadResult, where a renderer would index past what it holds. path
// names it in errors.
func ParseProfile(path string, data []byte) (*ProfileReport, error) {
	var rep ProfileReport
	if err := decodeSaved(path, data, &rep); err != nil {
		return nil, err
	}
	if err := rep.Check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	return &rep, nil
}

// Check says what a profile report holds that no profile run makes, and
// that the renderers would index past: no profile, a null one, more than
// two, a difference without its two builds (a guest's reply of one
// profile and a diff made the text read a second that was not there),
// and numbers beyond a saved result's (checkFigures).
func (r *ProfileReport) Check() error {
	switch {
	case len(r.Profiles) == 0:
		return fmt.Errorf("it holds no profile")
	case len(r.Profiles) > 2:
		return fmt.Errorf("%d profiles: want one, or two builds compared", len(r.Profiles))
	case r.Diff != nil && len(r.Profiles) != 2:
		return fmt.Errorf("a difference of %d profile(s): want the two builds it compares", len(r.Profiles))
	}
	for i, p := range r.Profiles {
		if p == nil {
			return fmt.Errorf("profile %d is null", i)
		}
	}
	return checkFigures(reflect.ValueOf(r).Elem(), "")
}
