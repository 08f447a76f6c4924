package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// sampling is how many samples to take, or until when.
type sampling struct {
	samples int
	enough  func(int, []testrun.CaseResult) bool
	budget  time.Duration
	minTime time.Duration
}

// sampling turns --samples, --precision and --time into a plan: a fixed
// count when --samples is given alone, else adaptive.
//
// When to stop is stats' StoppingRule.
func (f benchFlags) plan(cmd *cobra.Command, est stats.Estimator, opts stats.Options, placements int, threshold float64) (sampling, error) {
	fl := cmd.Flags()
	if !(f.precision > 0 && f.precision < 1) {
		return sampling{}, usageError{fmt.Errorf("--precision %g: want a fraction in (0, 1), e.g. 0.02 for ±2 %%", f.precision)}
	}
	if f.budget <= 0 {
		return sampling{}, usageError{fmt.Errorf("--time %s: want a positive duration, e.g. 10s", f.budget)}
	}
	if fl.Changed("samples") && !fl.Changed("precision") && !fl.Changed("time") {
		return sampling{samples: f.samples}, nil
	}
	if est == stats.Min {
		return sampling{}, usageError{errors.New("--estimator min has no interval to bring to --precision: give --samples")}
	}
	rounds := testrun.MinAdaptiveRounds
	if fl.Changed("samples") {
		rounds = f.samples // the fewest, then
	}
	rule := stats.StoppingRule{Estimator: est, Precision: f.precision, Options: opts,
		Compare: f.before != "", Placements: placements, Threshold: threshold}
	enough := func(_ int, results []testrun.CaseResult) bool { return rule.Enough(sampled(results)) }
	return sampling{samples: rounds, enough: enough, budget: f.budget, minTime: min(testrun.MinSamplingTime, f.budget/2)}, nil
}

// sampled hands testrun's results so far to the stopping rules of stats.
func sampled(results []testrun.CaseResult) []stats.Sampled {
	out := make([]stats.Sampled, len(results))
	for i, r := range results {
		out[i].Samples = r.Samples
		if len(r.Runs) > 0 {
			t := stats.Timings{Runs: make([]float64, len(r.Runs)), Total: r.Wall}
			for j, n := range r.Runs {
				t.Runs[j] = float64(n)
			}
			out[i].Timings = t
		}
	}
	return out
}
