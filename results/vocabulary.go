package results

import "github.com/xdpmicro/xdpmicro/stats"

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
func (c *Comparison) Settled(cc ComparedCase) bool {
	return stats.Decided(cc.Change, c.NoiseThreshold)
}

// VerdictSentence says the verdict as Criterion.rs does.
func VerdictSentence(v Verdict) string {
	switch v {
	case Improved:
		return "Performance has improved."
	case Regressed:
		return "Performance has regressed."
	case WithinNoise:
		return "Change within noise threshold."
	}
	return "No change in performance detected."
}

// The tests behind a comparison's p-value, in the words saved results
// hold (stats names them by code: TestSentence).
const (
	PairedTest     = "paired sign-flip permutation test on per-round differences of the samples"
	UnpairedTest   = "Mann-Whitney U test"
	BootstrapTest  = "bootstrap test on the change of the estimate"
	LinearTest     = "bootstrap test on the change of the slope, resampling calls within each repeat level"
	PlacedTest     = "Welch t-test over the slopes of each build's placements (loads at different addresses)"
	LoadsTest      = "Welch t-test over each run's loads (loads at different addresses, runs at different times)"
	FloorLoadsTest = "Welch t-test over each run's loads, each over the floor measured with it (the machine's speed divided out)"
	BlockedTest    = "t-test over each build's loads, blocked by the group they were measured in (log scale)"
)

// TestSentence is the saved words for stats' code of a test; the code
// itself for one it does not know.
func TestSentence(t stats.Test) string {
	switch t {
	case stats.PairedTest:
		return PairedTest
	case stats.UnpairedTest:
		return UnpairedTest
	case stats.BootstrapTest:
		return BootstrapTest
	case stats.LinearTest:
		return LinearTest
	case stats.PlacedTest:
		return PlacedTest
	case stats.LoadsTest:
		return LoadsTest
	case stats.FloorLoadsTest:
		return FloorLoadsTest
	case stats.BlockedTest:
		return BlockedTest
	}
	return string(t)
}
