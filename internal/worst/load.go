package worst

import (
	"errors"
	"fmt"

	"github.com/xdpmicro/xdpmicro/testrun"
)

// load checks the options against the object, and loads the instrumented
// copy of the program as testrun loads the program it counts: bad input
// is refused before anything is loaded.
func load(o Options) (*testrun.Counter, error) {
	c, err := testrun.NewCounter(testrun.Program{Object: o.Object, Program: o.Program}, o.Seeds, o.MapInit, o.Load)
	var uncounted *testrun.UncountedError
	if errors.As(err, &uncounted) {
		return nil, fmt.Errorf("%s cannot be searched: its instructions cannot be counted: %w", uncounted.Program, uncounted.Err)
	}
	return c, err
}
