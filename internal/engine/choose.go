package engine

import (
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Choose lists the programs of obj that program chooses: the one it
// names, or, for a pattern (as go test -bench takes one) or no name,
// every measurable one it matches, and those passed over.
func Choose(obj testrun.Object, program string, load testrun.LoadOptions, mapInit *testrun.MapInit) (names []string, skipped []testrun.ProgramInfo, err error) {
	if program != "" && !object.IsPattern(program) {
		return []string{program}, nil, nil
	}
	return testrun.Select(obj, program, load, mapInit)
}
