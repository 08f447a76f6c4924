package stats

import (
	"math"
	"sort"
)

// Quantile returns the p-quantile of sorted (ascending, non-empty) by
// linear interpolation between closest ranks at h = (n-1)p: R's type 7,
// numpy's default and Criterion.rs's, so quartiles and medians match its.
// gonum's stat.Quantile has type 1 and type 4 (1, not 1.75, for the
// 0.25-quantile of [1 2 3 4]). It panics, as an index out of range does,
// if sorted is empty or p is outside [0, 1].
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
// The deviations of the values below med grow leftwards, those of the
// rest rightwards: two ascending runs. The median's ranks among all
// deviations are found by bisecting how many of them come from the left
// run, as for the k-th smallest of two sorted arrays: O(log n), no sort,
// no merge. That matters because the bootstrap computes it for every
// resample.
func mad(sorted []float64, med float64) float64 {
	n := len(sorted)
	// Values from j on are >= med; those before it are < med.
	j := sort.SearchFloat64s(sorted, med)
	// below(i) and above(i) are the i-th smallest deviation (0-based) of
	// the left and the right run, with infinities past either end.
	below := func(i int) float64 {
		switch {
		case i < 0:
			return math.Inf(-1)
		case i >= j:
			return math.Inf(1)
		}
		return med - sorted[j-1-i]
	}
	above := func(i int) float64 {
		switch {
		case i < 0:
			return math.Inf(-1)
		case i >= n-j:
			return math.Inf(1)
		}
		return sorted[j+i] - med
	}

	// The type 7 median of n values interpolates the (n-1)/2-th and
	// n/2-th smallest (0-based); they coincide when n is odd. The
	// smallest take of the first (n-1)/2+1 deviations has some from the
	// left run and the rest from the right; with the fewest from the left
	// for which no deviation left out on the right is smaller than the
	// next on the left, it is a take of the smallest.
	take := (n-1)/2 + 1
	left := sort.Search(min(take, j)+1, func(a int) bool {
		return a >= take-(n-j) && above(take-a-1) <= below(a)
	})
	dlo := max(below(left-1), above(take-left-1))
	d := dlo
	if n%2 == 0 {
		d = min(below(left), above(take-left))
	}
	return dlo + 0.5*(d-dlo)
}
