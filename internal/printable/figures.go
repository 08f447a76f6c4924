package printable

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro/results"
)

// The figures as the table and the page print them.

// NS formats nanoseconds with a precision fitting their size.
func NS(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// PValue writes p against the significance level with the digits that
// tell them apart: never "0.050 < 0.05".
func PValue(p, significance float64) string {
	rel := ">="
	if p < significance {
		rel = "<"
	}
	digits := 3
	for digits < 8 && (strconv.FormatFloat(p, 'f', digits, 64) == strconv.FormatFloat(significance, 'f', digits, 64)) {
		digits++
	}
	text := strconv.FormatFloat(p, 'f', digits, 64)
	if p < 0.001 && p < significance {
		text = "0.000"
	}
	return fmt.Sprintf("%s %s %g", text, rel, significance)
}

// VerdictText is Criterion's sentence in a wide table, its gist otherwise.
func VerdictText(v results.Verdict, wide bool) string {
	if wide {
		return results.VerdictSentence(v)
	}
	return strings.ReplaceAll(string(v), "_", " ")
}

// RepeatsOf is the repeats of a case's samples: one run in each of several
// calls for a case sampled one run a call.
func RepeatsOf(env results.Environment, c results.Case) string {
	if c.Single {
		return fmt.Sprintf("%d calls × 1", env.Sampling.SingleCalls)
	}
	return Repeats(env)
}

// Repeats is the repeat of every sample, or linear sampling's range.
func Repeats(env results.Environment) string {
	if l := env.Sampling; l.Mode == results.SamplingLinear {
		first, last := l.Range()
		return fmt.Sprintf("%d…%d", first, last)
	}
	return fmt.Sprint(env.Repeat)
}

// CallTimes is each call's time per run from the wall clock: the call's
// wall time less the fitted cost of a call (the fit's intercept), over
// its repeat. Continuous, and centred where the slope is. Nil for a case
// without them: sampled flat, one run a call, or without a fit.
func CallTimes(c results.Case) []float64 {
	if c.Single || c.Stats == nil || c.Stats.Fit == nil || len(c.Runs) == 0 || len(c.Wall) != len(c.Runs) {
		return nil
	}
	values := make([]float64, len(c.Runs))
	for k, runs := range c.Runs {
		values[k] = (c.Wall[k] - c.Stats.Fit.Intercept.Point) / float64(runs)
	}
	return values
}
