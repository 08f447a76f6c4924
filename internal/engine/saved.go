package engine

import (
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// CompareSaved judges the change from one saved run to another, case by
// case, the last program of each, with completed options.
func CompareSaved(before, after *results.Run, opts stats.CompareOptions) (*results.Run, error) {
	return Against(before, after, results.Files, opts)
}
