package results

import (
	"math"

	"github.com/xdpmicro/xdpmicro/stats"
)

// The statistics a report saves, as the schema holds them: package stats
// computes them (its types carry no JSON keys), package analysis copies
// them here. Their keys are those saved files and baselines have always
// had, so that old files still load.

// Estimator and Verdict are stats' names of an estimator and of a
// comparison's outcome; the schema saves those names.
type (
	Estimator = stats.Estimator
	Verdict   = stats.Verdict
)

// Estimate is a point estimate with its confidence interval.
type Estimate struct {
	Point float64 `json:"point"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// RelativeHalfWidth is the interval's half-width as a fraction of |Point|,
// or 0 if Point is 0: how precisely the value is known.
func (e Estimate) RelativeHalfWidth() float64 {
	if e.Point == 0 {
		return 0
	}
	return (e.Upper - e.Lower) / 2 / math.Abs(e.Point)
}

// Estimates are a sample's statistics, each with its bootstrap interval.
type Estimates struct {
	Mean   Estimate `json:"mean"`
	Median Estimate `json:"median"`
	StdDev Estimate `json:"std_dev"`
	// MAD is scaled by 1.4826 to estimate the standard deviation.
	MAD Estimate `json:"mad"`
	// Low is the Harrell–Davis estimate of the LowQuantile-quantile.
	Low         Estimate `json:"low"`
	Min         Estimate `json:"min"`
	LowQuantile float64  `json:"low_quantile"`
}

// Of is the estimate of e; the mean for an estimator it does not hold.
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

// Outliers counts the samples beyond Tukey's fences.
type Outliers struct {
	LowSevere  int `json:"low_severe"`
	LowMild    int `json:"low_mild"`
	HighMild   int `json:"high_mild"`
	HighSevere int `json:"high_severe"`
	// Fences are the low severe, low mild, high mild and high severe
	// fences, ascending.
	Fences [4]float64 `json:"fences"`
}

// Total is the number of outliers of any kind.
func (o Outliers) Total() int { return o.LowSevere + o.LowMild + o.HighMild + o.HighSevere }

// Regimes says whether the samples fell into a fast and a slow group.
type Regimes struct {
	Bimodal    bool    `json:"bimodal"`
	Fast       float64 `json:"fast"`
	Slow       float64 `json:"slow"`
	FastShare  float64 `json:"fast_share"`
	Separation float64 `json:"separation"`
	Switches   int     `json:"switches"`
}

// Fit is linear sampling's estimate of the time per run.
type Fit struct {
	Slope        Estimate `json:"slope"`
	Intercept    Estimate `json:"intercept"`
	OLS          Estimate `json:"ols_slope"`
	OLSIntercept Estimate `json:"ols_intercept"`
	R2           float64  `json:"r2"`
	// Levels are the points the robust fit goes through.
	Levels        []Level `json:"levels"`
	LevelQuantile float64 `json:"level_quantile"`

	// Computed is the fit as stats made it, with the resamples that
	// pair it with another fit of the same rounds (stats.Fit.Minus);
	// nil when read back from a file.
	Computed *stats.Fit `json:"-"`
}

// Level is one repeat level of a fit.
type Level struct {
	Runs  float64 `json:"runs"`
	N     int     `json:"n"`
	Total float64 `json:"low_total_ns"`
}

// Loads is a case's estimate over several loads of its program.
type Loads struct {
	Estimator Estimator `json:"estimator"`
	Estimate  Estimate  `json:"estimate"`
	Points    []float64 `json:"points"`
	StdDev    float64   `json:"std_dev"`
	Spread    float64   `json:"spread"`
	PerGroup  int       `json:"per_group,omitempty"`
	Within    float64   `json:"within,omitempty"`
	Phase     *Phase    `json:"phase,omitempty"`
}

// Phase records how a run's loads were scaled to the machine's fastest
// phase.
type Phase struct {
	Slowest      float64 `json:"slowest"`
	Fast         int     `json:"fast_groups"`
	Groups       int     `json:"groups"`
	RefHalf      float64 `json:"ref_half,omitempty"`
	Recalled     float64 `json:"recalled_floor,omitempty"`
	RecalledRuns int     `json:"recalled_runs,omitempty"`
	RunFloor     float64 `json:"run_floor,omitempty"`
	Share        float64 `json:"recall_share,omitempty"`
	DriftAssumed bool    `json:"drift_assumed,omitempty"`
	LeftOut      int     `json:"left_out_loads,omitempty"`
	AtSlow       bool    `json:"at_slow_phase,omitempty"`
}

// Summary is a case's statistics: of its first load, and over its loads
// where it had several.
type Summary struct {
	N         int       `json:"n"`
	Estimates Estimates `json:"estimates"`
	Outliers  Outliers  `json:"outliers"`
	Min       float64   `json:"min"`
	Max       float64   `json:"max"`
	Regimes   Regimes   `json:"regimes"`
	Fit       *Fit      `json:"fit,omitempty"`
	Loads     *Loads    `json:"loads,omitempty"`
	// OverFloor is the estimate over the loads of each load's time over
	// the floor's measured with it.
	OverFloor *Loads `json:"over_floor,omitempty"`
}

// Of is the estimate of e: over the loads when the program was loaded
// several times, else Own.
func (s Summary) Of(e Estimator) Estimate {
	if s.Loads != nil && s.Loads.Estimator == e {
		return s.Loads.Estimate
	}
	return s.Own(e)
}

// Own is the estimate of e of the first load alone: a slope from the fit,
// else the samples' estimate; samples without a fit stand for a slope by
// their low estimate.
func (s Summary) Own(e Estimator) Estimate {
	switch {
	case !e.Fitted():
		return s.Estimates.Of(e)
	case s.Fit == nil:
		return s.Estimates.Low
	case e == OLS:
		return s.Fit.OLS
	}
	return s.Fit.Slope
}

// CaseComparison is how a case's after differs from its before, as
// stats compared them.
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
