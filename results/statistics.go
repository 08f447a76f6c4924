package results

import "github.com/xdpmicro/xdpmicro/stats"

// The statistics a report saves are stats' own types: package stats
// computes them and defines their JSON keys, the keys saved files and
// baselines have always had, so that old files still load; package
// analysis puts them into a Run as they are. A fit read back from a
// file lacks the resamples that pair it with another fit of the same
// rounds (stats.Fit.Minus says so).

// Estimator and Verdict are stats' names of an estimator and of a
// comparison's outcome; the schema saves those names.
type (
	Estimator = stats.Estimator
	Verdict   = stats.Verdict
)

// The saved statistics of a case.
type (
	// Estimate is a point estimate with its confidence interval.
	Estimate = stats.Estimate
	// Estimates are a sample's statistics, each with its bootstrap
	// interval.
	Estimates = stats.Estimates
	// Outliers counts the samples beyond Tukey's fences.
	Outliers = stats.Outliers
	// Regimes says whether the samples fell into a fast and a slow group.
	Regimes = stats.Regimes
	// Fit is linear sampling's estimate of the time per run.
	Fit = stats.Fit
	// Level is one repeat level of a fit.
	Level = stats.Level
	// Loads is a case's estimate over several loads of its program.
	Loads = stats.Loads
	// Phase records how a run's loads were scaled to the machine's
	// fastest phase.
	Phase = stats.Phase
	// Summary is a case's statistics: of its first load, and over its
	// loads where it had several.
	Summary = stats.Summary
)

// CaseComparison is how a case's after differs from its before, as
// stats compared them: stats.Comparison with its test said in words, as
// saved files hold it, where stats names it by a code. It stays a type
// of its own for that; internal/engine converts to it once.
type CaseComparison struct {
	// Mean and Median are relative changes with their intervals.
	Mean   Estimate `json:"mean_change"`
	Median Estimate `json:"median_change"`
	// Change is the Estimator's relative change, which decides the
	// verdict; Difference its absolute change.
	Estimator  Estimator `json:"estimator"`
	Change     Estimate  `json:"change"`
	Difference Estimate  `json:"difference"`
	P          float64   `json:"p"`
	// Test names the test behind P, in a sentence.
	Test    string  `json:"test"`
	Verdict Verdict `json:"verdict"`
}
