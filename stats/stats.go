package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"gonum.org/v1/gonum/stat"
)

// MinSamples is the fewest samples Bootstrap and Summarize accept. Fewer
// give a bootstrap distribution with too few distinct resamples, and
// quartiles too coarse for outlier fences, for the intervals to mean much.
const MinSamples = 10

// MinResamples is the fewest bootstrap resamples Options may ask for.
const MinResamples = 100

// MaxResamples is the most: Criterion's default, ten times this one's.
// Each resample of each case costs a pass over its samples, and the
// bootstrap keeps a statistic of every resample: a million took 28 s to
// compare five saved cases here, and a larger count would only ask for
// memory that makeslice refuses.
const MaxResamples = 100_000

// MaxSample is the largest sample, in ns per run, that any statistic
// takes: 1000 s a run, far beyond any program, and far enough below
// float64's range that sums and squares of a million such samples stay
// finite (1.7e308 summed to +Inf, and every figure of its case to NaN).
const MaxSample = 1e12

var (
	// ErrTooFewSamples means fewer than MinSamples samples were given.
	ErrTooFewSamples = errors.New("too few samples")
	// ErrConfidence means a confidence level outside (0, 1).
	ErrConfidence = badinput.New("confidence level not in (0, 1)")
	// ErrLowQuantile means a low quantile outside (0, 0.5): above the
	// median it would not be low.
	ErrLowQuantile = badinput.New("low quantile not in (0, 0.5)")
	// ErrResamples means fewer than MinResamples bootstrap resamples, or
	// more than MaxResamples.
	ErrResamples = badinput.New("resamples out of range")
	// ErrNonFinite means a sample was NaN or infinite, or beyond
	// ±MaxSample, where its sums would not be.
	ErrNonFinite = errors.New("non-finite sample")
)

// Estimate is a point estimate with a confidence interval.
type Estimate struct {
	Point float64 `json:"point"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// RelativeHalfWidth returns the interval's half-width as a fraction of
// |Point|, or 0 if Point is 0: how precisely the value is known.
func (e Estimate) RelativeHalfWidth() float64 {
	if e.Point == 0 {
		return 0
	}
	return (e.Upper - e.Lower) / 2 / math.Abs(e.Point)
}

// Options configures Bootstrap.
type Options struct {
	Confidence float64 // confidence level of the intervals, in (0, 1)
	Resamples  int     // bootstrap resamples, at least MinResamples
	Seed       uint64  // seeds resampling: same samples and Seed, same result
	// LowQuantile is the quantile the low estimate stands for; 0 means
	// DefaultLowQuantile.
	LowQuantile float64
}

// DefaultLowQuantile is the quantile of the low estimate. Noise on these
// machines only adds time, so the lowest samples are the truest; a low
// quantile rather than the minimum keeps an interval and moves smoothly
// across the 1 ns quantum. Over repeated invocations here 0.02 varied
// least of 0.01 to 0.2 (docs/measurement-notes.md).
const DefaultLowQuantile = 0.02

func (o Options) lowQuantile() float64 {
	if o.LowQuantile == 0 {
		return DefaultLowQuantile
	}
	return o.LowQuantile
}

// defaultSeed is arbitrary; fixing it makes reports reproducible.
const defaultSeed = 0x7864706d6963726f // "xdpmicro"

// DefaultOptions returns Criterion's defaults, 95% confidence and 10000
// resamples, with a fixed seed.
func DefaultOptions() Options {
	return Options{Confidence: 0.95, Resamples: 10000, Seed: defaultSeed}
}

// Validate checks the options, so that a caller can refuse them before
// spending time on measurement.
func (o Options) Validate() error {
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return fmt.Errorf("confidence %v: %w", o.Confidence, ErrConfidence)
	}
	if !(o.LowQuantile == 0 || o.LowQuantile > 0 && o.LowQuantile < 0.5) {
		return fmt.Errorf("%v: %w", o.LowQuantile, ErrLowQuantile)
	}
	if o.Resamples < MinResamples || o.Resamples > MaxResamples {
		return fmt.Errorf("%d resamples, want %d to %d: %w", o.Resamples, MinResamples, MaxResamples, ErrResamples)
	}
	return nil
}

// Estimates holds bootstrap estimates of a sample's statistics. Each Point
// is the statistic of the sample itself; Lower and Upper are percentiles
// of its bootstrap distribution, as in Criterion.rs.
type Estimates struct {
	Mean   Estimate `json:"mean"`
	Median Estimate `json:"median"`
	// StdDev is the sample standard deviation (n-1 denominator).
	StdDev Estimate `json:"std_dev"`
	// MAD is the median absolute deviation from the median, scaled by
	// 1.4826 so that it estimates the standard deviation of normal data.
	MAD Estimate `json:"mad"`
	// Low is the Harrell–Davis estimate of the LowQuantile-quantile.
	Low Estimate `json:"low"`
	// Min is the smallest sample. Its interval is that of the bootstrap's
	// minima, whose lower end is the minimum itself: it says how often the
	// smallest values recur, not where a true minimum lies.
	Min Estimate `json:"min"`
	// LowQuantile is the quantile Low stands for.
	LowQuantile float64 `json:"low_quantile"`
}

// Bootstrap estimates the mean, median, standard deviation and MAD of
// samples with percentile bootstrap confidence intervals.
//
// It needs at least MinSamples finite samples and valid opts; its errors
// wrap ErrTooFewSamples, ErrNonFinite, ErrConfidence, ErrLowQuantile or
// ErrResamples.
func Bootstrap(samples []float64, opts Options) (Estimates, error) {
	sorted, err := prepare(samples, opts)
	if err != nil {
		return Estimates{}, err
	}
	return bootstrapSorted(sorted, opts), nil
}

// prepare validates its arguments and returns a sorted copy of samples.
func prepare(samples []float64, opts Options) ([]float64, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(samples) < MinSamples {
		return nil, fmt.Errorf("%d samples, need at least %d: %w", len(samples), MinSamples, ErrTooFewSamples)
	}
	for i, x := range samples {
		if !(math.Abs(x) <= MaxSample) {
			return nil, fmt.Errorf("sample %d is %v: %w", i, x, ErrNonFinite)
		}
	}
	return slices.Sorted(slices.Values(samples)), nil
}

// pcgStream is the second PCG seed word; any constant will do.
const pcgStream = 0x9e3779b97f4a7c15

// sampleStats are the statistics Bootstrap estimates, of a sample or of
// one resample.
type sampleStats struct {
	mean, median, stdDev, mad, low, min float64
}

// sortedStats are the statistics of sorted.
func sortedStats(sorted []float64, low hdWeights) sampleStats {
	var s sampleStats
	s.mean, s.stdDev = stat.MeanStdDev(sorted, nil)
	s.median = median(sorted)
	s.mad = madScale * mad(sorted, s.median)
	s.low = low.weightedSum(sorted)
	s.min = sorted[0]
	return s
}

// bootstrapSorted is Bootstrap of sorted samples, resampled the cheapest
// way for their ties.
func bootstrapSorted(sorted []float64, opts Options) Estimates {
	t := tallySorted(sorted)
	return bootstrapBy(sorted, t, opts, chooseResampling(t.n, t.counts, len(t.counts)))
}

// bootstrapBy is bootstrapSorted resampling as how says; t is the tally
// of sorted.
func bootstrapBy(sorted []float64, t tally, opts Options, how resampling) Estimates {
	low := newHDWeights(len(sorted), opts.lowQuantile())
	point := sortedStats(sorted, low)
	var resampled []sampleStats
	switch {
	case len(t.values) == 1:
		// Every resample of a constant sample is the sample itself.
		resampled = []sampleStats{point}
	case how.expand:
		resampled = resampleExpanded(sorted, low, opts)
	default:
		resampled = resampleTallied(t, low, opts, how)
	}
	interval := func(point float64, of func(sampleStats) float64) Estimate {
		dist := make([]float64, len(resampled))
		for k, s := range resampled {
			dist[k] = of(s)
		}
		return percentileInterval(point, dist, opts.Confidence)
	}
	return Estimates{
		Mean:        interval(point.mean, func(s sampleStats) float64 { return s.mean }),
		Median:      interval(point.median, func(s sampleStats) float64 { return s.median }),
		StdDev:      interval(point.stdDev, func(s sampleStats) float64 { return s.stdDev }),
		MAD:         interval(point.mad, func(s sampleStats) float64 { return s.mad }),
		Low:         interval(point.low, func(s sampleStats) float64 { return s.low }),
		Min:         interval(point.min, func(s sampleStats) float64 { return s.min }),
		LowQuantile: opts.lowQuantile(),
	}
}

// resampleExpanded returns the statistics of opts.Resamples resamples of
// sorted, each written out in full.
func resampleExpanded(sorted []float64, low hdWeights, opts Options) []sampleStats {
	n := len(sorted)
	draws := newResampler(identity(n), nil, 0, opts.Seed)
	counts := make([]int, n)
	// unrolled slots of slack let expand write past the end of the resample.
	resample := make([]float64, n+unrolled)
	out := make([]sampleStats, opts.Resamples)
	for k := range out {
		// Draw n indices with replacement, counting hits per index. As
		// sorted is sorted, writing each value out as often as it was hit
		// yields the resample already sorted: a counting sort, so the
		// median and MAD need no per-resample sort.
		draws.draw(counts)
		expand(resample, sorted, counts)
		out[k] = sortedStats(resample[:n], low)
	}
	return out
}

// resampleTallied returns the statistics of opts.Resamples resamples of
// the tally t, drawn as counts per group.
func resampleTallied(t tally, low hdWeights, opts Options, how resampling) []sampleStats {
	draws := t.resampler(opts.Seed, how.binomials)
	counts := make([]int, len(t.counts))
	out := make([]sampleStats, opts.Resamples)
	for k := range out {
		draws.draw(counts)
		out[k] = t.withCounts(counts).stats(low)
	}
	return out
}

// unrolled is how many copies of a value expand writes unconditionally,
// matching its four assignments. A count is Poisson(1)-distributed, so it
// exceeds 4 for under 0.4% of values.
const unrolled = 4

// expand writes sorted[i] counts[i] times for each i into dst, which needs
// room for sum(counts)+unrolled values.
//
// A loop of counts[i] iterations would mispredict its exit branch at
// almost every value, because counts are random; that was half the time of
// the bootstrap. Instead each value is written to unrolled slots regardless
// and the next value starts counts[i] slots on, overwriting the excess.
func expand(dst, sorted []float64, counts []int) {
	pos := 0
	for i, c := range counts {
		v := sorted[i]
		if c > unrolled {
			for j := range c {
				dst[pos+j] = v
			}
		} else {
			d := dst[pos : pos+unrolled : pos+unrolled]
			d[0], d[1], d[2], d[3] = v, v, v, v
		}
		pos += c
	}
}

// percentileInterval returns point with the central confidence interval of
// the bootstrap distribution dist, which it sorts in place.
func percentileInterval(point float64, dist []float64, confidence float64) Estimate {
	slices.Sort(dist)
	return Estimate{
		Point: point,
		Lower: Quantile(dist, (1-confidence)/2),
		Upper: Quantile(dist, (1+confidence)/2),
	}
}

// Summary bundles a sample's size, range, bootstrap estimates and outliers.
type Summary struct {
	N         int       `json:"n"`
	Estimates Estimates `json:"estimates"`
	Outliers  Outliers  `json:"outliers"`
	Min       float64   `json:"min"`
	Max       float64   `json:"max"`
	Regimes   Regimes   `json:"regimes"`
	// Fit is linear sampling's slope, when the samples were taken so.
	Fit *Fit `json:"fit,omitempty"`
	// Loads, when the program was loaded several times, is the case's
	// estimate over every load: what Of gives for its estimator. The
	// rest of the Summary is the first load's.
	Loads *Loads `json:"loads,omitempty"`
	// OverFloor is the estimate over the loads of each load's time over
	// the floor's measured with it: the machine's speed divided out. Runs
	// at different times are compared by it.
	OverFloor *Loads `json:"over_floor,omitempty"`
}

// Summarize returns the Summary of samples. It fails as Bootstrap does.
func Summarize(samples []float64, opts Options) (Summary, error) {
	sorted, err := prepare(samples, opts)
	if err != nil {
		return Summary{}, err
	}
	return Summary{
		N:         len(sorted),
		Estimates: bootstrapSorted(sorted, opts),
		Outliers:  tukeySorted(sorted),
		Min:       sorted[0],
		Max:       sorted[len(sorted)-1],
		Regimes:   DetectRegimes(samples),
	}, nil
}
