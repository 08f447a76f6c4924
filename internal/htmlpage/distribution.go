package htmlpage

import (
	"slices"

	"github.com/xdpmicro/xdpmicro/stats"
)

// Bulk is the range that holds the bulk of values: Tukey's far fences (3
// IQR, the IQR at least quantum, so that values mostly on one whole
// nanosecond keep their neighbours) widened to the 5 and 95 % quantiles,
// within the values' extremes. A clean sample's tails are never cut, and
// a tail the machine made heavy keeps at least 95 % of the values in it.
func Bulk(values []float64, quantum float64) (lo, hi float64) {
	sorted := slices.Sorted(slices.Values(values))
	q1, q3 := stats.Quantile(sorted, 0.25), stats.Quantile(sorted, 0.75)
	iqr := max(q3-q1, quantum)
	lo = max(sorted[0], min(q1-3*iqr, stats.Quantile(sorted, 0.05)))
	hi = min(sorted[len(sorted)-1], max(q3+3*iqr, stats.Quantile(sorted, 0.95)))
	return lo, hi
}

// Density is the kernel density of values at each of xs, its bandwidth
// chosen from the values in [lo, hi] (kdeBandwidth, no finer than
// resolution), and that bandwidth.
func Density(values, xs []float64, lo, hi, resolution float64) ([]float64, float64) {
	sorted := slices.Sorted(slices.Values(values))
	var inside []float64
	for _, v := range sorted {
		if v >= lo && v <= hi {
			inside = append(inside, v)
		}
	}
	h := kdeBandwidth(inside, resolution)
	return kdeDensity(sorted, xs, h), h
}
