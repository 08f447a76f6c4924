package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// CompareSaved judges the change from one saved run to another, case by
// case, the last program of each, with completed options. Each run is
// first analysed again from its raw samples (Reanalyze), so that runs
// saved by older builds are judged by today's analysis, each on its own
// (no phase history) at opts' confidence and resamples, by opts'
// estimator or else its own, at the low quantile it was found at; a run
// without raw samples (an older format) is judged by the findings it
// saved, and a warning says so.
func CompareSaved(before, after *results.Run, opts stats.CompareOptions) (*results.Run, error) {
	var warnings []string
	var again [2]*results.Run
	for i, side := range []struct {
		name string
		run  *results.Run
	}{{"before", before}, {"after", after}} {
		rep, err := reanalyse(context.Background(), side.run, savedAnalysis(side.run, opts))
		switch {
		case errors.Is(err, ErrNoRaw):
			rep = side.run
			warnings = append(warnings, fmt.Sprintf("the %s run holds no raw samples (an older format): judged by the figures it saved, "+
				"not analysed again", side.name))
		case err != nil:
			return nil, fmt.Errorf("the %s run: %w", side.name, err)
		}
		again[i] = rep
	}
	rep, err := Against(again[0], again[1], results.Files, opts)
	if err != nil {
		return nil, err
	}
	rep.Comparison.Warnings = append(rep.Comparison.Warnings, warnings...)
	return rep, nil
}

// savedAnalysis is how CompareSaved analyses a saved run again: at opts'
// statistics, by opts' estimator or else the run's own, at the low
// quantile its summaries were found at where they record one.
func savedAnalysis(saved *results.Run, opts stats.CompareOptions) Reanalysis {
	how := Reanalysis{Stats: opts.Options, Estimator: opts.Estimator}
	if q, ok := RecordedLowQuantile(saved); ok {
		how.Stats.LowQuantile = q
	}
	return how
}
