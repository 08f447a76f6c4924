package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Regimes says whether samples fall into two separate groups, as they do
// on a machine that switches between a fast and a slow phase, and how
// often consecutive samples switched between them.
type Regimes struct {
	// Bimodal is set when the two groups are well separated (Ashman's D
	// above MinSeparation, and a valley between them: see MaxValley),
	// each holds at least MinRegimeShare of the samples, and the slow one
	// is at least MinRegimeRatio slower.
	Bimodal bool `json:"bimodal"`
	// Fast and Slow are the medians of the lower and upper group.
	Fast float64 `json:"fast"`
	Slow float64 `json:"slow"`
	// FastShare is the share of samples in the lower group.
	FastShare float64 `json:"fast_share"`
	// Separation is Ashman's D of the two groups: the distance of their
	// means in units of their pooled standard deviation, times √2; capped
	// at MaxSeparation, which two groups of constant samples reach.
	Separation float64 `json:"separation"`
	// Switches counts consecutive samples, in the order taken, that fall
	// in different groups: how fast the phases alternate.
	Switches int `json:"switches"`
}

// Thresholds of Bimodal.
const (
	// MinSeparation: Ashman's D above 2 means the two groups barely overlap.
	MinSeparation = 2.0
	// MinRegimeShare: a handful of stray samples is outliers, not a phase.
	MinRegimeShare = 0.1
	// MinRegimeRatio: two neighbouring whole nanoseconds are the kernel's
	// quantum, not two phases.
	MinRegimeRatio = 1.1
	// MaxSeparation keeps Separation finite, so that a report can save it.
	MaxSeparation = 1000.0
	// MaxValley: of three bins of width (Slow-Fast)/2 centred on Fast,
	// midway and Slow, the middle one holds under MaxValley times the
	// emptier outer one's samples. Ashman's D alone passes any wide
	// unimodal sample cut in two (2.7 for normal data); one regime, however
	// skewed, fills the middle bin about as well as its far side.
	MaxValley = 0.5
)

// DetectRegimes splits samples, given in the order taken, into a lower
// and an upper group where the within-group sum of squares is least
// (Otsu's threshold, exact in one dimension) and says whether they are two
// regimes. It needs at least MinSamples samples; with fewer, or none to
// split, it returns the zero Regimes.
func DetectRegimes(samples []float64) Regimes {
	n := len(samples)
	if n < MinSamples {
		return Regimes{}
	}
	sorted := slices.Sorted(slices.Values(samples))
	if sorted[0] == sorted[n-1] {
		return Regimes{Fast: sorted[0], Slow: sorted[0], FastShare: 1}
	}
	// Prefix sums give each split's sums of squares in O(1).
	sum, sumSq := make([]float64, n+1), make([]float64, n+1)
	for i, x := range sorted {
		sum[i+1], sumSq[i+1] = sum[i]+x, sumSq[i]+x*x
	}
	within := func(lo, hi int) float64 {
		k := float64(hi - lo)
		s := sum[hi] - sum[lo]
		return sumSq[hi] - sumSq[lo] - s*s/k
	}
	best, split := math.Inf(1), 0
	for k := 1; k < n; k++ {
		if sorted[k] == sorted[k-1] {
			continue // split between distinct values only
		}
		// split == 0: squares that overflow give NaN; split anyway.
		if w := within(0, k) + within(k, n); w < best || split == 0 {
			best, split = w, k
		}
	}
	lower, upper := sorted[:split], sorted[split:]
	meanLo, sdLo := stat.MeanStdDev(lower, nil)
	meanHi, sdHi := stat.MeanStdDev(upper, nil)
	// One-sample groups have no spread (NaN); they count as tight.
	sdLo, sdHi = zeroIfNaN(sdLo), zeroIfNaN(sdHi)
	r := Regimes{
		Fast:       median(lower),
		Slow:       median(upper),
		FastShare:  float64(split) / float64(n),
		Separation: MaxSeparation,
	}
	if pooled := math.Sqrt(sdLo*sdLo + sdHi*sdHi); pooled > 0 {
		r.Separation = min(math.Sqrt2*(meanHi-meanLo)/pooled, MaxSeparation)
	}
	threshold := sorted[split-1]
	for i := 1; i < n; i++ {
		if (samples[i] <= threshold) != (samples[i-1] <= threshold) {
			r.Switches++
		}
	}
	// From counts: 1-0.9 is below 0.1 in floating point.
	share := float64(min(split, n-split)) / float64(n)
	r.Bimodal = r.Separation > MinSeparation && share >= MinRegimeShare && r.Slow >= MinRegimeRatio*r.Fast &&
		hasValley(sorted, r.Fast, r.Slow)
	return r
}

// hasValley says whether sorted thins out between fast and slow (see
// MaxValley).
func hasValley(sorted []float64, fast, slow float64) bool {
	q := (slow - fast) / 4
	count := func(lo, hi float64) int { // samples in [lo, hi)
		i, _ := slices.BinarySearch(sorted, lo)
		j, _ := slices.BinarySearch(sorted, hi)
		return j - i
	}
	nFast, nMid, nSlow := count(fast-q, fast+q), count(fast+q, slow-q), count(slow-q, slow+q)
	return float64(nMid) < MaxValley*float64(min(nFast, nSlow))
}

func zeroIfNaN(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}
