package xdpmicro

import (
	"cmp"
	"context"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// AnalyzeOptions are the choices of analysing a saved run again
// (Analyze). Each zero field is what the saved run records: its
// confidence, resamples and estimator, the low quantile its summaries
// were found at, its comparison's significance and noise threshold.
type AnalyzeOptions struct {
	// Stats are the bootstrap's options; a zero Seed is the default seed,
	// as a run's.
	Stats stats.Options
	// Estimator stands for each case.
	Estimator stats.Estimator
	// Significance and NoiseThreshold judge an interleaved run's change
	// (NoNoiseThreshold for none). With another Estimator than the run's,
	// a zero NoiseThreshold is that estimator's default, as a run's is.
	Significance   float64
	NoiseThreshold float64
	// History, where set, is a phase history (Options.History) whose fast
	// phase the run is scaled to, as a run on this boot would be when it
	// began; it is only read. Empty: the run stands on its own.
	History string
}

// Analyze analyses a saved run again from its raw samples, by today's
// analysis, as if it had just been measured: each case's summary over its
// loads, net of the floor, and for a before/after run the comparison of
// its builds. A run saved as the comparison of two runs measured apart is
// analysed as its later run. obs, which may be nil, hears notices. A run
// without raw samples, and samples the analysis cannot take, are bad
// input (ErrBadInput).
func Analyze(ctx context.Context, saved *results.Run, o AnalyzeOptions, obs Observer) (*results.Run, error) {
	how, err := completeAnalysis(saved, o)
	if err != nil {
		return nil, err
	}
	return engine.Reanalyze(ctx, saved, how, obs)
}

// completeAnalysis fills each zero field of o with what saved records,
// else the default, and checks them.
func completeAnalysis(saved *results.Run, o AnalyzeOptions) (engine.Reanalysis, error) {
	if saved == nil || len(saved.Programs) == 0 {
		return engine.Reanalysis{}, fmt.Errorf("%w: no saved run to analyse", ErrOptions)
	}
	own := saved.Settings.ChosenEstimator()
	est := cmp.Or(o.Estimator, own)
	if _, err := stats.ParseEstimator(string(est)); err != nil {
		return engine.Reanalysis{}, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if o.Estimator.Fitted() && saved.Environment.Sampling.Mode != results.SamplingLinear {
		return engine.Reanalysis{}, fmt.Errorf("%w: the %s estimator needs linear sampling, and the run was sampled %s", ErrOptions, o.Estimator,
			cmp.Or(saved.Environment.Sampling.Mode, results.SamplingFlat))
	}
	def := stats.DefaultOptions()
	recorded := stats.Options{Confidence: saved.Settings.Confidence, Resamples: saved.Settings.Resamples}
	recorded.LowQuantile, _ = engine.RecordedLowQuantile(saved)
	s := withStatsDefaults(withStatsDefaults(o.Stats, recorded), def)
	how := engine.Reanalysis{Stats: s, Estimator: est, History: o.History}
	if err := s.Validate(); err != nil {
		return how, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if o.NoiseThreshold < 0 && o.NoiseThreshold != NoNoiseThreshold {
		return how, fmt.Errorf("%w: a noise threshold of %g: want a fraction in (0, 1), 0 for the run's, or NoNoiseThreshold", ErrOptions, o.NoiseThreshold)
	}
	how.Compare = stats.CompareOptions{Options: s, Estimator: est, Significance: o.Significance, NoiseThreshold: o.NoiseThreshold,
		Quantum: cmp.Or(saved.Environment.Resolution, testrun.Resolution)}
	if c := saved.Comparison; c != nil && c.Mode == results.Interleaved {
		how.Compare.Significance = cmp.Or(how.Compare.Significance, c.Significance)
		if how.Compare.NoiseThreshold == 0 && est == own {
			how.Compare.NoiseThreshold = cmp.Or(c.NoiseThreshold, NoNoiseThreshold)
		}
	}
	how.Compare = withCompareDefaults(how.Compare, s, est, true)
	how.Compare.NoiseThreshold = noiseThreshold(how.Compare)
	if err := how.Compare.Validate(); err != nil {
		return how, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return how, nil
}
