package report

import (
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// PreciseChange returns adaptive sampling's test for two builds compared
// by a slope, each loaded placements times (two or more): every placement
// must have a slope, and each case's change, Welch's over the placements,
// must be known to ± precision and decided (see decided). A change over
// placements is bounded by how much the placements differ, which more
// samples do not shrink; judging each placement to a precision instead
// sampled on where the change was long known.
func PreciseChange(est stats.Estimator, precision, threshold float64, placements int, opts stats.Options) func(int, []testrun.CaseResult) bool {
	return func(_ int, results []testrun.CaseResult) bool {
		if len(results) != 2*placements || placements < 2 {
			return false
		}
		slopes := make([]float64, len(results))
		for i, r := range results {
			if len(r.Runs) == 0 {
				return false
			}
			var err error
			if slopes[i], err = stats.SlopeOf(timings(r.Runs, r.Wall), est == stats.OLS, stats.FitOptions{Options: opts}); err != nil {
				return false
			}
		}
		fc, err := stats.WelchChange(slopes[:placements], slopes[placements:], opts.Confidence)
		if err != nil {
			return false
		}
		c := fc.Change
		return decided(c, threshold) && (c.Upper-c.Lower)/2 <= precision
	}
}

// decided says whether a change's interval c settles its verdict: whole
// beyond +threshold or -threshold (a change), or whole between them (none
// worth the name). An interval across either threshold could still go
// both ways: a 2-instruction change of 0.8 %, stopped at ±0.5 % as
// [+0.13 % +1.12 %], read "within noise" against a 0.25 % threshold.
func decided(c stats.Estimate, threshold float64) bool {
	return c.Lower > threshold || c.Upper < -threshold || (c.Lower > -threshold && c.Upper < threshold)
}

// Precise returns adaptive sampling's test: whether every program's
// estimate of a case, est, is known within ± precision (relative half-width
// of its interval), with opts' confidence and resamples. A slope needs
// linear samples; a case sampled flat is judged by the low estimator.
func Precise(est stats.Estimator, precision float64, opts stats.Options) func(int, []testrun.CaseResult) bool {
	return func(_ int, results []testrun.CaseResult) bool {
		for _, r := range results {
			var e stats.Estimate
			if est.Fitted() && len(r.Runs) > 0 {
				fit, err := stats.FitLinear(timings(r.Runs, r.Wall), stats.FitOptions{Options: opts})
				if err != nil {
					return false
				}
				e = stats.Summary{Fit: &fit}.Of(est)
			} else {
				flat := est
				if est.Fitted() {
					flat = stats.Low
				}
				estimates, err := stats.Bootstrap(r.Samples, opts)
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
}
