package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Density estimates the probability density of samples at each of points
// with a Gaussian kernel, its bandwidth from Silverman's rule of thumb.
// The bandwidth is at least minBandwidth, so that samples which are all
// equal, or all whole nanoseconds, still give a smooth curve.
func Density(samples, points []float64, minBandwidth float64) []float64 {
	out := make([]float64, len(points))
	n := float64(len(samples))
	if n == 0 {
		return out
	}
	sorted := slices.Sorted(slices.Values(samples))
	spread := stat.StdDev(sorted, nil)
	if iqr := (Quantile(sorted, 0.75) - Quantile(sorted, 0.25)) / 1.34; iqr > 0 && iqr < spread {
		spread = iqr
	}
	h := max(0.9*spread*math.Pow(n, -0.2), minBandwidth)
	norm := 1 / (n * h * math.Sqrt(2*math.Pi))
	for i, x := range points {
		sum := 0.0
		for _, s := range sorted {
			z := (x - s) / h
			sum += math.Exp(-z * z / 2)
		}
		out[i] = sum * norm
	}
	return out
}
