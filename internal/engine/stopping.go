package engine

// The stopping rules decide when adaptive sampling has enough: each side's
// estimate known to a precision, or two builds' change settled. They are
// the orchestrator's policy, built on package stats' estimates; stats
// itself only computes them.

import (
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/stats"
)

// judgeResamples keeps the stopping rules cheap between rounds; a report
// recomputes every interval with its own resamples. A fit's bootstrap
// costs about 15 ms per 1000 resamples at 2500 calls: at 1000, six cases
// of xdp-filter were judged so rarely that every run spent its 5 s budget;
// at 200 they stop after the 1 s minimum.
const judgeResamples = 200

// sampledSide is what one program has of a case so far, as adaptive sampling
// judges it: its samples, and with linear sampling their timings.
type sampledSide struct {
	Samples []float64
	Timings stats.Timings // empty unless sampled linearly
}

// allPrecise says whether every side's estimate, est, is known within
// ± precision (relative half-width of its interval), with opts' confidence
// and resamples: adaptive sampling's test for a case. A fitted estimator
// needs timings; a side sampled flat is judged by the low estimator.
func allPrecise(est stats.Estimator, precision float64, opts stats.Options, sides []sampledSide) bool {
	for _, s := range sides {
		var e stats.Estimate
		if est.Fitted() && len(s.Timings.Runs) > 0 {
			fit, err := stats.FitLinear(s.Timings, stats.FitOptions{Options: opts})
			if err != nil {
				return false
			}
			e = stats.Summary{Fit: &fit}.Of(est)
		} else {
			flat := est
			if est.Fitted() {
				flat = stats.Low
			}
			estimates, err := stats.Bootstrap(s.Samples, opts)
			if err != nil {
				return false
			}
			e = estimates.Of(flat)
		}
		if e.RelativeHalfWidth() > precision {
			return false
		}
	}
	return true
}

// preciseChange is adaptive sampling's test for two builds compared by a
// slope, each loaded r.Placements times (two or more), r.PerGroup of each
// measured together (0: all), sides holding the before placements then
// the after ones: every placement must have a slope, and the change, as
// the report takes it (stats.BlockedChange, widened by r.ChangeSpread),
// must lie whole beyond the threshold, or whole inside the band and
// within ± precision (see stats.Decided). A change over placements is
// bounded by how much the placements differ, which more samples do not
// shrink; judging each placement to a precision instead sampled on where
// the change was long known. Judged by Welch's t over every load, which
// holds neither the groups nor their few degrees of freedom, runs stopped
// on a change the report then said crossed the threshold.
func (r stopRule) preciseChange(opts stats.Options, sides []sampledSide) bool {
	if len(sides) != 2*r.Placements || r.Placements < 2 {
		return false
	}
	slopes := make([]float64, len(sides))
	for i, s := range sides {
		if len(s.Timings.Runs) == 0 {
			return false
		}
		var err error
		if slopes[i], err = stats.SlopePoint(s.Timings, r.Estimator == stats.OLS, stats.FitOptions{Options: opts}); err != nil {
			return false
		}
	}
	before, after := slopes[:r.Placements], slopes[r.Placements:]
	if len(r.Factors) > 0 {
		// The groups the report keeps (stats.AtPhase): judged over every
		// group, a --time 10s comparison stopped at 3.4 s on changes the
		// report, its slow group left out, printed unsettled.
		if kept, _, ok := stats.KeptLoads(before, r.PerGroup, r.Factors, r.Phase); ok {
			before = kept
		}
		if kept, _, ok := stats.KeptLoads(after, r.PerGroup, r.Factors, r.Phase); ok {
			after = kept
		}
	}
	c, _, err := stats.BlockedChange(before, after, r.PerGroup, opts.Confidence)
	if err != nil {
		return false
	}
	c = phases.Widen(c, r.ChangeSpread)
	if c.Lower > r.Threshold || c.Upper < -r.Threshold {
		return true // a clear change: its size is known as far as it matters
	}
	return stats.Decided(c, r.Threshold) && (c.Upper-c.Lower)/2 <= r.Precision
}

// stopRule is how adaptive sampling decides that a case has enough
// samples: each side's estimate known to ± Precision (allPrecise), or, for
// two builds compared by a fitted estimator over two or more placements
// each, their change settled (preciseChange).
type stopRule struct {
	Estimator stats.Estimator
	Precision float64
	// Compare says the sides are two builds' placements, Placements each,
	// to be compared against the noise Threshold.
	Compare    bool
	Placements int
	// PerGroup is how many loads of each program were measured together
	// (stats.OverGroupedLoads); 0 for all.
	PerGroup  int
	Threshold float64
	// ChangeSpread is the factor within which a change's size holds at
	// the phase the report scales it to (phases.ChangeSpread); 0 or 1:
	// as measured.
	ChangeSpread float64
	// Factors, where set, are each group's speed against the fast phase
	// (stats.PhaseFactors), and Phase what they tell: loads are judged
	// as the report will take them (stats.AtPhase), the slow groups' left
	// out. Judged over every group, the two slow groups a move off a
	// slow CPU leaves kept ten-second runs of 110 fast groups from ±1 %.
	Factors []float64
	Phase   stats.Phase
	// Options are the intervals' confidence; the rule resamples
	// judgeResamples times whatever Options says, to stay cheap.
	Options stats.Options
}

// enough applies the rule to a case's sides so far.
func (r stopRule) enough(sides []sampledSide) bool {
	opts := r.Options
	opts.Resamples = judgeResamples
	switch {
	case r.Compare && r.Estimator.Fitted() && r.Placements >= 2:
		return r.preciseChange(opts, sides)
	case r.Placements >= stats.MinLoads:
		return r.preciseLoads(opts, sides)
	}
	return allPrecise(r.Estimator, r.Precision, opts, sides)
}

// preciseLoads is adaptive sampling's test for programs loaded
// Placements times each, sides holding each program's loads in turn:
// every program's estimate over its loads (stats.OverGroupedLoads, at
// the fast phase where Factors are set) must be known within ±
// Precision. Each load counts by its point alone: the loads' spread
// holds its own noise.
func (r stopRule) preciseLoads(opts stats.Options, sides []sampledSide) bool {
	if len(sides) == 0 || len(sides)%r.Placements != 0 {
		return false
	}
	for start := 0; start < len(sides); start += r.Placements {
		points := make([]float64, r.Placements)
		for i, s := range sides[start : start+r.Placements] {
			var err error
			if points[i], err = sidePoint(r.Estimator, s, opts); err != nil {
				return false
			}
		}
		l, err := stats.OverGroupedLoads(points, r.PerGroup, r.Estimator, opts.Confidence)
		if len(r.Factors) > 0 {
			l, err = stats.AtPhase(points, r.Factors, r.Phase, r.PerGroup, r.Estimator, opts.Confidence)
		}
		if err != nil || l.Estimate.RelativeHalfWidth() > r.Precision {
			return false
		}
	}
	return true
}

// sidePoint is one side's estimate by est, without an interval: the slope
// of its timings, else of its samples est's (the low one for a slope
// sampled flat).
func sidePoint(est stats.Estimator, s sampledSide, opts stats.Options) (float64, error) {
	if est.Fitted() && len(s.Timings.Runs) > 0 {
		return stats.SlopePoint(s.Timings, est == stats.OLS, stats.FitOptions{Options: opts})
	}
	if est.Fitted() {
		est = stats.Low
	}
	return stats.Point(est, s.Samples, opts)
}
