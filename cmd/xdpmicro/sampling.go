package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Adaptive sampling's defaults. With anchored calls the bundled program's
// five classes and the floor reach ±1 % on this project's machines within
// the minimum sampling time (docs/measurement-notes.md); the budget bounds
// a machine that never settles.
const (
	defaultPrecision = 0.01
	defaultBudget    = 5 * time.Second
	defaultWarmup    = 100 * time.Millisecond
	// minSamplingTime is sampled before precision is judged: the machine's
	// phases last up to about a second, and a low quantile judged on a
	// shorter stretch could be one phase's alone.
	minSamplingTime = time.Second
	// minAdaptiveRounds are taken before precision is judged, however
	// long the rounds.
	minAdaptiveRounds = 30
	// defaultPlacements is how many times each build of a comparison is
	// loaded (docs/measurement-notes.md).
	defaultPlacements = 8
	// checkResamples keeps the judgement between rounds cheap; the report
	// recomputes every interval with --resamples. A fit's bootstrap costs
	// about 15 ms per 1000 resamples at 2500 calls: at 1000, six cases of
	// xdp-filter were judged so rarely that every run spent its 5 s
	// budget; at 200 they stop after the 1 s minimum.
	checkResamples = 200
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
// A comparison of builds by a slope is sampled until each case's change is
// known, or clear (stats.PreciseChange).
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
	rounds := minAdaptiveRounds
	if fl.Changed("samples") {
		rounds = f.samples // the fewest, then
	}
	check := opts
	check.Resamples = checkResamples
	enough := func(_ int, results []testrun.CaseResult) bool {
		return stats.Precise(est, f.precision, check, sampled(results))
	}
	if f.before != "" && est.Fitted() && placements >= 2 {
		enough = func(_ int, results []testrun.CaseResult) bool {
			return stats.PreciseChange(est, f.precision, threshold, placements, check, sampled(results))
		}
	}
	return sampling{samples: rounds, enough: enough, budget: f.budget, minTime: min(minSamplingTime, f.budget/2)}, nil
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
