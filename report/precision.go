package report

import (
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

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
