package stats

import (
	"math"
	"sort"
)

// Quantile returns the p-quantile of sorted, which must be sorted ascending
// and non-empty, by linear interpolation between closest ranks: with
// h = (n-1)p, it is sorted[⌊h⌋] + (h-⌊h⌋)(sorted[⌊h⌋+1] - sorted[⌊h⌋]).
//
// This is R's type 7 and numpy.percentile's default, the definition
// Criterion.rs uses, so our quartiles and medians match its. gonum's
// stat.Quantile offers only Empirical (type 1) and LinInterp, which
// interpolates at rank np (type 4) and so gives 1 rather than 1.75 for the
// 0.25-quantile of [1 2 3 4].
//
// Quantile panics if sorted is empty or p is outside [0, 1], like an index
// out of range: both are the caller's mistake.
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		panic("stats: Quantile of empty slice")
	}
	if !(p >= 0 && p <= 1) {
		panic("stats: Quantile p outside [0, 1]")
	}
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	// a + f(b-a) rather than (1-f)a + fb: exact when a == b, so ties and
	// constant samples give back their value unchanged.
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// median is the type 7 median of sorted.
func median(sorted []float64) float64 {
	return Quantile(sorted, 0.5)
}

// madScale makes the median absolute deviation a consistent estimator of
// the standard deviation of normal data (1/Φ⁻¹(3/4)), as in Criterion.
const madScale = 1.4826

// mad returns the unscaled median absolute deviation of sorted around med,
// which must lie within its range (it is sorted's median).
//
// Deviations of the values below med grow leftwards and those of the rest
// grow rightwards, so merging the two runs outward from med visits the
// deviations in ascending order: O(n), no sort. That matters because the
// bootstrap computes it for every resample.
func mad(sorted []float64, med float64) float64 {
	n := len(sorted)
	// j is the first value >= med, i the last value < med.
	j := sort.SearchFloat64s(sorted, med)
	i := j - 1

	// The type 7 median of n values interpolates the (n-1)/2-th and
	// n/2-th smallest (0-based); they coincide when n is odd.
	lo, hi := (n-1)/2, n/2
	var dlo, d float64
	for k := 0; k <= hi; k++ {
		if j >= n || (i >= 0 && med-sorted[i] < sorted[j]-med) {
			d = med - sorted[i]
			i--
		} else {
			d = sorted[j] - med
			j++
		}
		if k == lo {
			dlo = d
		}
	}
	return dlo + 0.5*(d-dlo)
}
