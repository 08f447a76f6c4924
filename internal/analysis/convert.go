package analysis

import (
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// The copies between stats' values and the saved schema's: stats computes,
// results saves (its types carry the JSON keys), and analysis, which does
// the one with the other, is where they meet.

// Estimate is stats' estimate as results saves it.
func Estimate(e stats.Estimate) results.Estimate { return results.Estimate(e) }

// EstimatePtr is Estimate of a value that may be absent.
func EstimatePtr(e *stats.Estimate) *results.Estimate {
	if e == nil {
		return nil
	}
	r := Estimate(*e)
	return &r
}

// Estimates are stats' estimates of a sample as results saves them.
func Estimates(e stats.Estimates) results.Estimates {
	return results.Estimates{Mean: Estimate(e.Mean), Median: Estimate(e.Median), StdDev: Estimate(e.StdDev), MAD: Estimate(e.MAD),
		Low: Estimate(e.Low), Min: Estimate(e.Min), LowQuantile: e.LowQuantile}
}

// Fit is stats' fit as results saves it, holding the fit itself for paired
// differences within the run.
func Fit(f *stats.Fit) *results.Fit {
	if f == nil {
		return nil
	}
	levels := make([]results.Level, len(f.Levels))
	for i, l := range f.Levels {
		levels[i] = results.Level(l)
	}
	if f.Levels == nil {
		levels = nil
	}
	return &results.Fit{Slope: Estimate(f.Slope), Intercept: Estimate(f.Intercept), OLS: Estimate(f.OLS), OLSIntercept: Estimate(f.OLSIntercept),
		R2: f.R2, Levels: levels, LevelQuantile: f.LevelQuantile, Computed: f}
}

// Loads is stats' estimate over loads as results saves it.
func Loads(l *stats.Loads) *results.Loads {
	if l == nil {
		return nil
	}
	var phase *results.Phase
	if l.Phase != nil {
		p := results.Phase(*l.Phase)
		phase = &p
	}
	return &results.Loads{Estimator: l.Estimator, Estimate: Estimate(l.Estimate), Points: l.Points, StdDev: l.StdDev, Spread: l.Spread,
		PerGroup: l.PerGroup, Within: l.Within, Phase: phase}
}

// Summary is stats' summary of a sample as results saves it.
func Summary(s stats.Summary) *results.Summary {
	return &results.Summary{N: s.N, Estimates: Estimates(s.Estimates), Outliers: results.Outliers(s.Outliers), Min: s.Min, Max: s.Max,
		Regimes: results.Regimes(s.Regimes), Fit: Fit(s.Fit), Loads: Loads(s.Loads), OverFloor: Loads(s.OverFloor)}
}

// CaseComparison is stats' comparison of a case as results saves it, its
// test said in words.
func CaseComparison(c stats.Comparison) results.CaseComparison {
	return results.CaseComparison{Mean: Estimate(c.Mean), Median: Estimate(c.Median), Estimator: c.Estimator, Change: Estimate(c.Change),
		Difference: Estimate(c.Difference), P: c.P, Test: results.TestSentence(c.Test), Verdict: c.Verdict}
}

// The other way, for statistics over saved figures.

// StatsEstimate is a saved estimate as stats takes it.
func StatsEstimate(e results.Estimate) stats.Estimate { return stats.Estimate(e) }

// StatsFit is a saved fit as stats takes it: the fit itself where this run
// made it, else its saved figures, without the resamples that pair it.
func StatsFit(f *results.Fit) *stats.Fit {
	if f == nil {
		return nil
	}
	if f.Computed != nil {
		return f.Computed
	}
	levels := make([]stats.Level, len(f.Levels))
	for i, l := range f.Levels {
		levels[i] = stats.Level(l)
	}
	if f.Levels == nil {
		levels = nil
	}
	return &stats.Fit{Slope: StatsEstimate(f.Slope), Intercept: StatsEstimate(f.Intercept), OLS: StatsEstimate(f.OLS),
		OLSIntercept: StatsEstimate(f.OLSIntercept), R2: f.R2, Levels: levels, LevelQuantile: f.LevelQuantile}
}

// StatsLoads is a saved estimate over loads as stats takes it.
func StatsLoads(l results.Loads) stats.Loads {
	var phase *stats.Phase
	if l.Phase != nil {
		p := stats.Phase(*l.Phase)
		phase = &p
	}
	return stats.Loads{Estimator: l.Estimator, Estimate: StatsEstimate(l.Estimate), Points: l.Points, StdDev: l.StdDev, Spread: l.Spread,
		PerGroup: l.PerGroup, Within: l.Within, Phase: phase}
}

// StatsComparison is a saved comparison's figures as stats judges them
// (stats.Judge); its test, saved in words, is left out.
func StatsComparison(c results.CaseComparison) stats.Comparison {
	return stats.Comparison{Mean: StatsEstimate(c.Mean), Median: StatsEstimate(c.Median), Estimator: c.Estimator, Change: StatsEstimate(c.Change),
		Difference: StatsEstimate(c.Difference), P: c.P, Verdict: c.Verdict}
}
