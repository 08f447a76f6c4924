package results

import "github.com/xdpmicro/xdpmicro/stats"

// The words of statistics the schema holds, as package stats defines
// them, so that a reader of results (package report) needs no statistics
// of its own.
type (
	Estimate  = stats.Estimate
	Estimator = stats.Estimator
	Verdict   = stats.Verdict
	Summary   = stats.Summary
	Fit       = stats.Fit
)

// The estimators and verdicts a report names.
const (
	Low    = stats.Low
	Mean   = stats.Mean
	Median = stats.Median
	Min    = stats.Min
	Slope  = stats.Slope
	OLS    = stats.OLS

	Improved    = stats.Improved
	Regressed   = stats.Regressed
	NoChange    = stats.NoChange
	WithinNoise = stats.WithinNoise

	// DefaultLowQuantile is the low estimator's quantile where a report
	// recorded none.
	DefaultLowQuantile = stats.DefaultLowQuantile
)

// Settled says whether the case's change settles its verdict at the
// comparison's noise threshold (stats.Decided).
func (c *Comparison) Settled(cc ComparedCase) bool { return stats.Decided(cc.Change, c.NoiseThreshold) }
