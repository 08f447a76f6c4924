package engine

import (
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// What the renderers say of a report beyond its saved figures, worked out
// here so that package report computes nothing.

// pooledFrom is the repeat from which r's slope pooled its repeat levels
// (stats.PooledRuns), when its estimator is the slope and every level of
// its linear sampling repeats at least that; 0 otherwise.
func pooledFrom(r *results.Run) int {
	env := r.Environment
	if first, _ := env.Sampling.Range(); r.Settings.ChosenEstimator() == stats.Slope && env.Sampling.Mode == results.SamplingLinear && first >= stats.PooledRuns {
		return stats.PooledRuns
	}
	return 0
}

// changeSpread is the factor within which an interleaved run's changes
// hold their size at the recalled fast phase its figures were scaled to
// (phases.ChangeSpread), transfer its exponent, by the phase report shows
// (results.Run.Phase); 0 where the run was not scaled to a recalled phase.
func changeSpread(r *results.Run, transfer float64) float64 {
	ph := r.Phase()
	if ph == nil || ph.Recalled == 0 {
		return 0
	}
	return phases.ChangeSpread(ph.RunFloor, ph.Recalled, transfer)
}
