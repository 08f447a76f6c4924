package stats

import (
	"gonum.org/v1/gonum/stat/distuv"
)

// HarrellDavis returns the Harrell–Davis estimate of the p-quantile of
// sorted, which must be sorted ascending and non-empty, with p in (0, 1).
//
// It is a weighted mean of every order statistic, the weights being the
// mass that Beta(p(n+1), (1-p)(n+1)) puts on each ((i-1)/n, i/n]. A type 7
// quantile jumps from one whole nanosecond to the next as samples come and
// go; this one moves smoothly, so on samples that jitter across the
// kernel's 1 ns quantum it resolves below it, and its bootstrap
// distribution is not a handful of integers.
func HarrellDavis(sorted []float64, p float64) float64 {
	return weightedSum(sorted, harrellDavisWeights(len(sorted), p))
}

// harrellDavisWeights returns the n weights of the p-quantile. They depend
// only on n and p, so a bootstrap computes them once for all resamples.
func harrellDavisWeights(n int, p float64) []float64 {
	if n == 0 || !(p > 0 && p < 1) {
		panic("stats: Harrell-Davis weights need n > 0 and p in (0, 1)")
	}
	fn := float64(n)
	b := distuv.Beta{Alpha: p * (fn + 1), Beta: (1 - p) * (fn + 1)}
	w := make([]float64, n)
	prev := 0.0
	for i := range n {
		next := b.CDF(float64(i+1) / fn)
		w[i] = next - prev
		prev = next
	}
	return w
}

// weightedSum returns the weighted mean of sorted, whose weights sum to 1.
// It sums the distances from the smallest value, so that equal samples,
// common at a whole-nanosecond resolution, give back exactly their value
// although the weights sum to 1 only up to rounding.
func weightedSum(sorted, weights []float64) float64 {
	base, sum := sorted[0], 0.0
	for i, w := range weights {
		sum += w * (sorted[i] - base)
	}
	return base + sum
}
