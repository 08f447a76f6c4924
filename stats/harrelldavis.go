package stats

import (
	"gonum.org/v1/gonum/stat/distuv"
)

// HarrellDavis returns the Harrell–Davis estimate of the p-quantile of
// sorted, which must be sorted ascending and non-empty, with p in (0, 1).
//
// It is a weighted mean of every order statistic, weighted by the mass
// Beta(p(n+1), (1-p)(n+1)) puts on each ((i-1)/n, i/n]. It moves
// smoothly where a type 7 quantile jumps a whole nanosecond, so it
// resolves below the kernel's quantum, and its bootstrap too.
func HarrellDavis(sorted []float64, p float64) float64 {
	return weightedSum(sorted, harrellDavisWeights(len(sorted), p))
}

// harrellDavisWeights returns the n weights of the p-quantile. They depend
// only on n and p, so a bootstrap computes them once for all resamples.
func harrellDavisWeights(n int, p float64) []float64 {
	return weightsOf(harrellDavisCDF(n, p))
}

// weightsOf returns the weight of each position of a cumulative cdf.
func weightsOf(cdf []float64) []float64 {
	w := make([]float64, len(cdf)-1)
	for i := range w {
		w[i] = cdf[i+1] - cdf[i]
	}
	return w
}

// harrellDavisCDF returns the Beta CDF of the p-quantile's weights at i/n,
// i = 0…n: cdf[b]-cdf[a] is the weight of sorted positions a to b-1
// together, and the weight of position i is cdf[i+1]-cdf[i].
func harrellDavisCDF(n int, p float64) []float64 {
	if n == 0 || !(p > 0 && p < 1) {
		panic("stats: Harrell-Davis weights need n > 0 and p in (0, 1)")
	}
	fn := float64(n)
	b := distuv.Beta{Alpha: p * (fn + 1), Beta: (1 - p) * (fn + 1)}
	cdf := make([]float64, n+1)
	for i := 1; i <= n; i++ {
		cdf[i] = b.CDF(float64(i) / fn)
	}
	return cdf
}

// hdWeights are the Harrell–Davis weights of a quantile for n samples,
// arranged for a bootstrap that takes them for every resample.
//
// A low quantile's CDF reaches 1-2⁻⁵³ a few dozen positions in and 1 only
// at the last, so every weight between is exactly zero: adding those terms
// leaves a sum as it is, and skipping them gives the same sum to the bit.
type hdWeights struct {
	head []float64 // the weights before the run of zeros
	last float64   // the weight of the last position, after the run
	// cdf is harrellDavisCDF's, for ties to take their share at once;
	// past position reach the weights sum under weightTail (ignored).
	cdf   []float64
	reach int
}

func newHDWeights(n int, p float64) hdWeights {
	cdf := harrellDavisCDF(n, p)
	w := weightsOf(cdf)
	head := n - 1
	for head > 0 && w[head-1] == 0 {
		head--
	}
	reach := n
	for reach > 0 && cdf[n]-cdf[reach-1] < weightTail {
		reach--
	}
	return hdWeights{head: w[:head], last: w[n-1], cdf: cdf, reach: reach}
}

// weightedSum is weightedSum(sorted, harrellDavisWeights(n, p)), the same
// terms added in the same order but for the zeros.
func (w hdWeights) weightedSum(sorted []float64) float64 {
	base, sum := sorted[0], 0.0
	for i, x := range w.head {
		sum += x * (sorted[i] - base)
	}
	if n := len(sorted); len(w.head) < n {
		sum += w.last * (sorted[n-1] - base)
	}
	return base + sum
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
