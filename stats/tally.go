package stats

import (
	"math"
	"sort"
)

// The kernel reports whole nanoseconds, so thousands of samples of one case
// take a few dozen distinct values at most. Such a sample is held here as a
// tally: its distinct values and how often each occurs. A bootstrap
// resample draws n of the n samples with replacement, so it is the same
// values with other counts, multinomially distributed; every statistic the
// bootstrap needs follows from values and counts in time proportional to
// the number of distinct values, not to n.

// tally is a sample of n values as its distinct values, ascending, and how
// often each occurs. A resample is a tally over the same values whose
// counts may be zero.
type tally struct {
	values []float64
	counts []int
	n      int
}

// tallySorted tallies sorted, which must be sorted ascending.
func tallySorted(sorted []float64) tally {
	t := tally{n: len(sorted)}
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			t.values = append(t.values, v)
			t.counts = append(t.counts, 0)
		}
		t.counts[len(t.counts)-1]++
	}
	return t
}

// groupOf returns the group of v, which must be one of the tally's values.
func (t tally) groupOf(v float64) int32 {
	return int32(sort.SearchFloat64s(t.values, v))
}

// withCounts is the tally of the same values with other counts summing to n.
func (t tally) withCounts(counts []int) tally {
	return tally{values: t.values, counts: counts, n: t.n}
}

// resampler draws resamples of the tally, the largest binomials groups as
// binomials.
func (t tally) resampler(seed uint64, binomials int) resampler {
	groupOf := make([]int32, 0, t.n)
	for j, c := range t.counts {
		for range c {
			groupOf = append(groupOf, int32(j))
		}
	}
	return newResampler(groupOf, t.counts, binomials, seed)
}

// smallest returns the smallest value whose count is not zero.
func (t tally) smallest() float64 {
	for j, c := range t.counts {
		if c > 0 {
			return t.values[j]
		}
	}
	panic("stats: empty tally")
}

// mean is the mean of the sample the tally stands for. Summing distances
// from the smallest value present makes a resample of one repeated value
// give back exactly that value.
func (t tally) mean() float64 {
	base, sum := t.smallest(), 0.0
	for j, c := range t.counts {
		sum += float64(c) * (t.values[j] - base)
	}
	return base + sum/float64(t.n)
}

// meanStdDev is the mean and sample standard deviation (n-1) by the
// corrected two-pass algorithm, as stat.MeanStdDev computes them, with each
// value weighted by its count.
func (t tally) meanStdDev() (mean, stdDev float64) {
	mean = t.mean()
	var ss, compensation float64
	for j, c := range t.counts {
		d := t.values[j] - mean
		cd := float64(c) * d
		ss += cd * d
		compensation += cd
	}
	n := float64(t.n)
	return mean, math.Sqrt((ss - compensation*compensation/n) / (n - 1))
}

// quantile is Quantile of the sample the tally stands for: the same ranks
// and the same a + f(b-a), so that it gives the same value to the bit.
func (t tally) quantile(p float64) float64 {
	h := float64(t.n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	a, b := t.ranked(i)
	if i >= t.n-1 {
		return a
	}
	return a + (h-lo)*(b-a)
}

// ranked returns the values of 0-based sorted ranks i and i+1, or i's
// twice when i is the last.
func (t tally) ranked(i int) (float64, float64) {
	below := 0 // values in the groups passed
	for j, c := range t.counts {
		if below+c <= i {
			below += c
			continue
		}
		a := t.values[j]
		if i+1 < below+c {
			return a, a
		}
		for next := j + 1; next < len(t.counts); next++ {
			if t.counts[next] > 0 {
				return a, t.values[next]
			}
		}
		return a, a
	}
	panic("stats: rank beyond the tally")
}

// mad is the unscaled median absolute deviation around med, the tally's
// median, computed as mad does: the deviations are visited in ascending
// order by merging outward from med, one group of equal values at a time.
func (t tally) mad(med float64) float64 {
	k := len(t.values)
	// j is the first group >= med, i the last < med.
	j := 0
	for j < k && t.values[j] < med {
		j++
	}
	i := j - 1
	lo, hi := (t.n-1)/2, t.n/2
	visited := 0 // deviations visited so far
	var dlo float64
	for {
		var d float64
		var c int
		// A group of count 0 takes no rank, so it needs no skipping.
		if j >= k || (i >= 0 && med-t.values[i] < t.values[j]-med) {
			d, c = med-t.values[i], t.counts[i]
			i--
		} else {
			d, c = t.values[j]-med, t.counts[j]
			j++
		}
		if visited <= lo && lo < visited+c {
			dlo = d
		}
		if hi < visited+c {
			return dlo + 0.5*(d-dlo)
		}
		visited += c
	}
}

// weightedSum is w.weightedSum of the sample the tally stands for: a
// group filling sorted positions [a, b) takes the weights of all of them
// at once, w.cdf[b] - w.cdf[a].
func (t tally) weightedSum(w hdWeights) float64 {
	pos, base, sum := 0, 0.0, 0.0
	for j, c := range t.counts {
		if c == 0 {
			continue
		}
		v := t.values[j]
		if pos == 0 {
			base = v // distances from the smallest, as weightedSum
		}
		sum += (w.cdf[pos+c] - w.cdf[pos]) * (v - base)
		if pos += c; pos >= len(w.head) && pos < t.n {
			// Every group before the last weighs exactly nothing.
			last := len(t.counts) - 1
			for t.counts[last] == 0 {
				last--
			}
			lastCount := t.counts[last]
			return base + (sum + (w.cdf[t.n]-w.cdf[t.n-lastCount])*(t.values[last]-base))
		}
	}
	return base + sum
}

// stats are the statistics Bootstrap estimates, of the sample the tally
// stands for.
func (t tally) stats(low hdWeights) sampleStats {
	var s sampleStats
	s.mean, s.stdDev = t.meanStdDev()
	s.median = t.quantile(0.5)
	s.mad = madScale * t.mad(s.median)
	s.low = t.weightedSum(low)
	s.min = t.smallest()
	return s
}
