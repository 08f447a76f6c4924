package stats

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"gonum.org/v1/gonum/stat"
)

// Estimator names the statistic that stands for a sample: the figure
// reported, compared between builds and brought to the asked precision.
type Estimator string

// The estimators.
const (
	// Low is the Harrell–Davis low quantile (Options.LowQuantile). On a
	// machine whose noise only adds time, and which switches between a
	// fast and a slow phase, it measures the fast phase: the program's
	// cost when nothing disturbs it; across invocations it is the most
	// reproducible of flat sampling's estimators
	// (docs/measurement-notes.md). Which estimator a run uses when none
	// is named is the root package's choice, not this package's.
	Low Estimator = "low"
	// Mean is Criterion's choice: the average cost, including whatever
	// the machine adds. It moves with the share of time spent in each phase.
	Mean Estimator = "mean"
	// Median is the middle sample; on two-phase samples it jumps between
	// the phases.
	Median Estimator = "median"
	// Min is the smallest sample (BenchmarkTools.jl's choice); it has no
	// useful interval and one quantum's truncation decides it.
	Min Estimator = "min"
	// Slope is linear sampling's robust fit (see fit.go): the slope of the
	// calls' wall time over their repeat, through each repeat level's low
	// quantile.
	Slope Estimator = "slope"
	// OLS is linear sampling's least-squares slope through every call, as
	// Criterion's; the machine's long calls pull it.
	OLS Estimator = "ols"
)

// Fitted says whether e is a slope of linear sampling.
func (e Estimator) Fitted() bool { return e == Slope || e == OLS }

// Estimators lists flat sampling's estimators, Low first.
func Estimators() []Estimator { return []Estimator{Low, Mean, Median, Min} }

// FitEstimators lists linear sampling's estimators, Slope first.
func FitEstimators() []Estimator { return []Estimator{Slope, OLS} }

// ErrEstimator reports an unknown estimator name.
var ErrEstimator = badinput.New("unknown estimator")

// ParseEstimator returns the estimator of that name.
func ParseEstimator(name string) (Estimator, error) {
	all := append(Estimators(), FitEstimators()...)
	for _, e := range all {
		if string(e) == name {
			return e, nil
		}
	}
	var names []string
	for _, e := range all {
		names = append(names, string(e))
	}
	return "", fmt.Errorf("%w %q (known: %s)", ErrEstimator, name, strings.Join(names, ", "))
}

// Of returns the estimate of the estimator e; the mean for an unknown one.
func (s Estimates) Of(e Estimator) Estimate {
	switch e {
	case Low:
		return s.Low
	case Median:
		return s.Median
	case Min:
		return s.Min
	}
	return s.Mean
}

// point returns the statistic e of samples, which it sorts in place.
func (e Estimator) point(samples []float64, low hdWeights) float64 {
	if e != Mean {
		slices.Sort(samples)
	}
	return e.pointSorted(samples, low)
}

// pointSorted returns the statistic e of sorted samples.
func (e Estimator) pointSorted(sorted []float64, low hdWeights) float64 {
	switch e {
	case Mean:
		return stat.Mean(sorted, nil)
	case Low:
		return low.weightedSum(sorted)
	case Median:
		return median(sorted)
	}
	return sorted[0]
}

// pointTallied returns the statistic e of the sample t stands for.
func (e Estimator) pointTallied(t tally, low hdWeights) float64 {
	switch e {
	case Mean:
		return t.mean()
	case Low:
		return t.weightedSum(low)
	case Median:
		return t.quantile(0.5)
	}
	return t.smallest()
}

// PairedDifference estimates e(after) - e(before) for samples taken in
// pairs, before[i] with after[i], with a bootstrap interval that resamples
// whole pairs, so that what each pair shared stays shared.
func PairedDifference(before, after []float64, e Estimator, opts Options) (Estimate, error) {
	for _, s := range [][]float64{before, after} {
		if _, err := prepare(s, opts); err != nil {
			return Estimate{}, err
		}
	}
	if len(before) != len(after) {
		return Estimate{}, fmt.Errorf("%w: paired samples of %d and %d", ErrCompare, len(before), len(after))
	}
	if _, err := ParseEstimator(string(e)); err != nil {
		return Estimate{}, err
	}
	c, _ := bootstrapPaired(before, after, opts, e)
	return c.Difference, nil
}

// Point is est's statistic of samples, without an interval: what a
// judgement between rounds of sampling can afford.
func Point(est Estimator, samples []float64, opts Options) (float64, error) {
	sorted, err := prepare(samples, opts)
	if err != nil {
		return 0, err
	}
	return est.pointSorted(sorted, newHDWeights(len(sorted), opts.lowQuantile())), nil
}
