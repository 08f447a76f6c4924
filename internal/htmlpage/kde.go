package htmlpage

import (
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/stats"
	"gonum.org/v1/gonum/stat"
)

// Kernel density for the report's curves. A run's samples are a narrow spike where
// nothing disturbed the machine and a long tail where something did: the
// spike is what the estimate stands for, and it is often less than a
// nanosecond wide. Silverman's rule of thumb, fed a spread that the tail
// inflates, smooths such a spike flat; Sheather and Jones's plug-in
// bandwidth estimates the curvature of the density itself and keeps it.

// kdeBandwidth returns the Gaussian kernel bandwidth for samples: Sheather
// and Jones's solve-the-equation plug-in (1991), as R's bw.SJ computes it
// over binned pair distances, or Silverman's rule where the samples are
// too sparse for it. It is at least resolution, the samples' own quantum:
// a curve finer than the data is not in the data.
func kdeBandwidth(samples []float64, resolution float64) float64 {
	if len(samples) < 2 {
		return resolution // nothing to spread
	}
	sorted := slices.Sorted(slices.Values(samples))
	h, ok := sheatherJones(thin(sorted, maxBandwidthSamples))
	if !ok {
		return max(silverman(sorted), resolution)
	}
	// The optimal bandwidth shrinks as n^(-1/5): from the thinned
	// samples to all of them.
	if m := maxBandwidthSamples; len(sorted) > m {
		h *= math.Pow(float64(m)/float64(len(sorted)), 0.2)
	}
	return max(h, resolution)
}

// maxBandwidthSamples bounds the pairs the plug-in counts (n²/2).
const maxBandwidthSamples = 4000

// thin returns at most m of sorted samples, evenly spaced in rank: the
// same distribution, fewer pairs.
func thin(sorted []float64, m int) []float64 {
	if len(sorted) <= m {
		return sorted
	}
	out := make([]float64, m)
	for i := range out {
		out[i] = sorted[i*(len(sorted)-1)/(m-1)]
	}
	return out
}

// robustSpread is min(standard deviation, IQR/1.349): a scale that a long
// tail does not inflate; zero when most samples are equal.
func robustSpread(sorted []float64) float64 {
	sd := stat.StdDev(sorted, nil)
	if iqr := (stats.Quantile(sorted, 0.75) - stats.Quantile(sorted, 0.25)) / 1.349; iqr > 0 && iqr < sd {
		return iqr
	}
	return sd
}

// silverman is Silverman's rule of thumb, 0.9 · spread · n^(-1/5).
func silverman(sorted []float64) float64 {
	return 0.9 * robustSpread(sorted) * math.Pow(float64(len(sorted)), -0.2)
}

// pairBins are the distances between every two samples, binned: count[k]
// pairs lie k bins apart, each bin width wide. Binning makes each of the
// plug-in estimates the root search evaluates cost a pass over count
// rather than over n² pairs. The bins are fine (R's bw.SJ uses 1000,
// which puts a sub-nanosecond spike in a tail tens of ns long into one
// or two bins, and then finds it infinitely sharp); counting the pairs of
// occupied bins costs at most n² once.
type pairBins struct {
	n     int
	width float64
	count []float64
}

const sjBins = 1 << 16

func binPairs(sorted []float64) pairBins {
	lo, hi := sorted[0], sorted[len(sorted)-1]
	width := (hi - lo) * 1.01 / sjBins
	type bin struct {
		index int
		n     float64
	}
	var occupied []bin
	for _, x := range sorted {
		i := min(int((x-lo)/width), sjBins-1)
		if len(occupied) > 0 && occupied[len(occupied)-1].index == i {
			occupied[len(occupied)-1].n++
		} else {
			occupied = append(occupied, bin{i, 1})
		}
	}
	count := make([]float64, sjBins)
	for j, b := range occupied {
		count[0] += b.n * (b.n - 1) / 2
		for _, a := range occupied[:j] {
			count[b.index-a.index] += a.n * b.n
		}
	}
	return pairBins{n: len(sorted), width: width, count: count}
}

// phi4 and phi6 estimate the integrals of the density's squared second
// and third derivatives with a Gaussian kernel of bandwidth h (Sheather
// and Jones's S_D and -T_D).
func (p pairBins) phi4(h float64) float64 {
	return p.functional(h, 5, 3, func(d float64) float64 { return d*d - 6*d + 3 })
}

func (p pairBins) phi6(h float64) float64 {
	return p.functional(h, 7, -15, func(d float64) float64 { return d*d*d - 15*d*d + 45*d - 15 })
}

// functional sums the kernel derivative poly over every pair of samples
// and the diagonal, whose term is diagonal, normalised by h^power.
func (p pairBins) functional(h float64, power, diagonal float64, poly func(float64) float64) float64 {
	sum := 0.0
	for k, c := range p.count {
		d := float64(k) * p.width / h
		d *= d
		if d >= 1000 { // exp(-500): nothing further adds
			break
		}
		sum += c * math.Exp(-d/2) * poly(d)
	}
	n := float64(p.n)
	sum = 2*sum + diagonal*n
	return sum / (n * (n - 1) * math.Pow(h, power) * math.Sqrt(2*math.Pi))
}

// sheatherJones solves Sheather and Jones's equation for the bandwidth;
// ok is false when the samples do not support it (too few, or most of
// them equal).
func sheatherJones(sorted []float64) (float64, bool) {
	n := float64(len(sorted))
	scale := robustSpread(sorted)
	if len(sorted) < 10 || !(scale > 0) {
		return 0, false
	}
	p := binPairs(sorted)
	a := 1.24 * scale * math.Pow(n, -1.0/7)
	b := 1.23 * scale * math.Pow(n, -1.0/9)
	c1 := 1 / (2 * math.Sqrt(math.Pi) * n)
	td := -p.phi6(b)
	if !(td > 0) || math.IsInf(td, 0) {
		return 0, false
	}
	alpha2 := 1.357 * math.Pow(p.phi4(a)/td, 1.0/7)
	if !(alpha2 > 0) || math.IsInf(alpha2, 0) {
		return 0, false
	}
	equation := func(h float64) float64 {
		return math.Pow(c1/p.phi4(alpha2*math.Pow(h, 5.0/7)), 0.2) - h
	}
	hmax := 1.144 * scale * math.Pow(n, -0.2)
	lo, hi := 0.1*hmax, hmax
	for try := 0; equation(lo)*equation(hi) > 0; try++ {
		if try == 100 {
			return 0, false
		}
		if try%2 == 0 {
			hi *= 1.2
		} else {
			lo /= 1.2
		}
	}
	// Bisection: the equation is smooth and the bracket already tight.
	flo := equation(lo)
	for range 60 {
		mid := (lo + hi) / 2
		fmid := equation(mid)
		if math.IsNaN(fmid) {
			return 0, false
		}
		if (fmid > 0) == (flo > 0) {
			lo, flo = mid, fmid
		} else {
			hi = mid
		}
		if hi-lo < 1e-4*hi {
			break
		}
	}
	return (lo + hi) / 2, true
}

// kdeDensity is the Gaussian kernel density estimate of sorted samples at
// each of points, as the share of all the samples: where some lie off the
// axis, the curve's area is their share on it. Its bandwidth widens
// where the samples are sparse: a bandwidth fine enough for the spike
// would draw every few samples of the tail as a peak of their own. h is
// the bandwidth of the dense parts; see adaptiveWidths.
func kdeDensity(sorted, points []float64, h float64) []float64 {
	out := make([]float64, len(points))
	if len(sorted) == 0 || !(h > 0) {
		return out
	}
	widths := adaptiveWidths(sorted, h)
	widest := slices.Max(widths)
	n := float64(len(sorted))
	const reach = 8 // kernels beyond 8 h add less than exp(-32)
	for i, x := range points {
		from, _ := slices.BinarySearch(sorted, x-reach*widest)
		sum := 0.0
		for k, s := range sorted[from:] {
			if s > x+reach*widest {
				break
			}
			w := widths[from+k]
			z := (x - s) / w
			sum += math.Exp(-z*z/2) / w
		}
		out[i] = sum / (n * math.Sqrt(2*math.Pi))
	}
	return out
}

// adaptiveWidths are each sample's bandwidth: the distance to its k-th
// nearest neighbour, k = √n, so that every kernel spans about as many
// samples (a sample-point estimator, Breiman, Meisel and Purcell 1977),
// and never less than h, the bandwidth Sheather and Jones judged right
// where the samples are dense.
func adaptiveWidths(sorted []float64, h float64) []float64 {
	n := len(sorted)
	k := min(max(int(math.Round(math.Sqrt(float64(n)))), 1), n-1)
	widths := make([]float64, n)
	for i, x := range sorted {
		// The k nearest of sorted neighbours lie in a window around i:
		// grow it k times toward the nearer side.
		lo, hi := i, i
		d := 0.0
		for range k {
			switch {
			case lo == 0:
				hi++
				d = sorted[hi] - x
			case hi == n-1 || x-sorted[lo-1] <= sorted[hi+1]-x:
				lo--
				d = x - sorted[lo]
			default:
				hi++
				d = sorted[hi] - x
			}
		}
		widths[i] = max(h, d)
	}
	return widths
}
