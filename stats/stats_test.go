package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// normalSample draws n values from normal(mean, sd), seeded.
func normalSample(n int, mean, sd float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	x := make([]float64, n)
	for i := range x {
		x[i] = mean + sd*r.NormFloat64()
	}
	return x
}

func TestBootstrapConstant(t *testing.T) {
	samples := slices.Repeat([]float64{21}, 50)
	est, err := Bootstrap(samples, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		got  Estimate
		want float64
	}{
		{"mean", est.Mean, 21},
		{"median", est.Median, 21},
		{"std dev", est.StdDev, 0},
		{"mad", est.MAD, 0},
	} {
		if want := (Estimate{tt.want, tt.want, tt.want}); tt.got != want {
			t.Errorf("%s = %+v, want %+v", tt.name, tt.got, want)
		}
	}
	if w := est.Mean.RelativeHalfWidth(); w != 0 {
		t.Errorf("mean RelativeHalfWidth = %v, want 0", w)
	}
}

func TestBootstrapNormal(t *testing.T) {
	const (
		n     = 200
		mu    = 100.0
		sigma = 5.0
	)
	est, err := Bootstrap(normalSample(n, mu, sigma, 42), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", est)

	for name, e := range map[string]Estimate{
		"mean": est.Mean, "median": est.Median, "std dev": est.StdDev, "mad": est.MAD,
	} {
		if !(e.Lower <= e.Point && e.Point <= e.Upper) {
			t.Errorf("%s point outside its interval: %+v", name, e)
		}
	}
	if !(est.Mean.Lower <= mu && mu <= est.Mean.Upper) {
		t.Errorf("mean CI %+v does not contain %v", est.Mean, mu)
	}
	// The normal-theory half-width is 1.96σ/√n ≈ 0.693.
	want := 1.96 * sigma / math.Sqrt(n)
	if hw := (est.Mean.Upper - est.Mean.Lower) / 2; hw < 0.7*want || hw > 1.3*want {
		t.Errorf("mean CI half-width %v, want within 30%% of %v", hw, want)
	}
	// Standard errors at n = 200: about σ/√(2n) = 0.25 for the standard
	// deviation and 0.42 for the MAD; allow 4 of them.
	if d := math.Abs(est.StdDev.Point - sigma); d > 1 {
		t.Errorf("std dev %v, want %v ± 1", est.StdDev.Point, sigma)
	}
	if d := math.Abs(est.MAD.Point - sigma); d > 1.7 {
		t.Errorf("MAD %v, want %v ± 1.7", est.MAD.Point, sigma)
	}
	if d := math.Abs(est.Median.Point - mu); d > 2 {
		t.Errorf("median %v, want %v ± 2", est.Median.Point, mu)
	}
}

// TestBootstrapCoverage checks that the 95% mean interval is a 95%
// interval: the percentile bootstrap runs slightly narrow at small n, so
// allow 88%–99%.
func TestBootstrapCoverage(t *testing.T) {
	const (
		trials = 200
		n      = 30
		mu     = 100.0
	)
	opts := DefaultOptions()
	opts.Resamples = 2000
	covered := 0
	for i := range trials {
		est, err := Bootstrap(normalSample(n, mu, 5, uint64(1000+i)), opts)
		if err != nil {
			t.Fatal(err)
		}
		if est.Mean.Lower <= mu && mu <= est.Mean.Upper {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f", rate)
	if rate < 0.88 || rate > 0.99 {
		t.Errorf("95%% mean CI covered the true mean in %.1f%% of trials, want 88%%–99%%", 100*rate)
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	samples := normalSample(100, 50, 3, 7)
	opts := DefaultOptions()
	a, err := Bootstrap(samples, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bootstrap(samples, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("same seed, different results:\n%+v\n%+v", a, b)
	}

	opts.Seed++
	c, err := Bootstrap(samples, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mean.Point != a.Mean.Point {
		t.Errorf("point estimate depends on the seed: %v, %v", a.Mean.Point, c.Mean.Point)
	}
	if c.Mean == a.Mean {
		t.Errorf("different seeds, identical mean CI %+v", a.Mean)
	}
}

func TestBootstrapLeavesInput(t *testing.T) {
	samples := normalSample(20, 10, 1, 9)
	before := slices.Clone(samples)
	if _, err := Summarize(samples, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(samples, before) {
		t.Error("Summarize modified its input")
	}
}

func TestBootstrapErrors(t *testing.T) {
	good := normalSample(MinSamples, 10, 1, 1)
	withOpts := func(f func(*Options)) Options {
		o := DefaultOptions()
		f(&o)
		return o
	}
	tests := []struct {
		name    string
		samples []float64
		opts    Options
		want    error
	}{
		{"no samples", nil, DefaultOptions(), ErrTooFewSamples},
		{"too few samples", good[:MinSamples-1], DefaultOptions(), ErrTooFewSamples},
		{"confidence 0", good, withOpts(func(o *Options) { o.Confidence = 0 }), ErrConfidence},
		{"confidence 1", good, withOpts(func(o *Options) { o.Confidence = 1 }), ErrConfidence},
		{"confidence 1.5", good, withOpts(func(o *Options) { o.Confidence = 1.5 }), ErrConfidence},
		{"confidence NaN", good, withOpts(func(o *Options) { o.Confidence = math.NaN() }), ErrConfidence},
		{"zero options", good, Options{}, ErrConfidence},
		{"too few resamples", good, withOpts(func(o *Options) { o.Resamples = MinResamples - 1 }), ErrResamples},
		{"NaN sample", append(slices.Clone(good), math.NaN()), DefaultOptions(), ErrNonFinite},
		{"Inf sample", append(slices.Clone(good), math.Inf(-1)), DefaultOptions(), ErrNonFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Bootstrap(tt.samples, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("Bootstrap: err = %v, want %v", err, tt.want)
			}
			if _, err := Summarize(tt.samples, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("Summarize: err = %v, want %v", err, tt.want)
			}
		})
	}
	// The smallest valid call succeeds.
	if _, err := Bootstrap(good, withOpts(func(o *Options) { o.Resamples = MinResamples })); err != nil {
		t.Errorf("Bootstrap(%d samples, %d resamples): %v", MinSamples, MinResamples, err)
	}
}

func TestSummarize(t *testing.T) {
	// Whole-nanosecond samples with ties and one slow run.
	samples := []float64{22, 21, 22, 23, 22, 21, 22, 22, 23, 22, 21, 22, 90}
	s, err := Summarize(samples, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	est, err := Bootstrap(samples, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.N != len(samples) || s.Min != 21 || s.Max != 90 {
		t.Errorf("N, Min, Max = %d, %v, %v; want %d, 21, 90", s.N, s.Min, s.Max, len(samples))
	}
	if s.Estimates != est {
		t.Errorf("Estimates = %+v, want Bootstrap's %+v", s.Estimates, est)
	}
	if s.Outliers != Tukey(samples) {
		t.Errorf("Outliers = %+v, want Tukey's %+v", s.Outliers, Tukey(samples))
	}
	// Sorted: 21 21 21 22 22 22 22 22 22 22 23 23 90. Q1 (h = 3) and Q3
	// (h = 9) are both 22, so IQR = 0, all fences are 22, and every other
	// value is a severe outlier.
	if s.Outliers.LowSevere != 3 || s.Outliers.HighSevere != 3 || s.Outliers.Total() != 6 {
		t.Errorf("Outliers = %+v, want 3 low severe and 3 high severe", s.Outliers)
	}
	if s.Estimates.Median.Point != 22 {
		t.Errorf("median = %v, want 22", s.Estimates.Median.Point)
	}
}

func TestRelativeHalfWidth(t *testing.T) {
	tests := []struct {
		e    Estimate
		want float64
	}{
		{Estimate{Point: 100, Lower: 98, Upper: 102}, 0.02},
		{Estimate{Point: -100, Lower: -102, Upper: -98}, 0.02},
		{Estimate{Point: 0, Lower: -1, Upper: 1}, 0},
		{Estimate{Point: 5, Lower: 5, Upper: 5}, 0},
	}
	for _, tt := range tests {
		if got := tt.e.RelativeHalfWidth(); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v.RelativeHalfWidth() = %v, want %v", tt.e, got, tt.want)
		}
	}
}

// TestExpand checks expand's unconditional writes against the plain loop,
// with counts above unrolled included.
func TestExpand(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 30; n++ {
		for range 50 {
			sorted := make([]float64, n)
			for i := range sorted {
				sorted[i] = float64(i)
			}
			counts := make([]int, n)
			total := 0
			for i := range counts {
				counts[i] = r.IntN(2 * unrolled)
				total += counts[i]
			}
			var want []float64
			for i, c := range counts {
				for range c {
					want = append(want, sorted[i])
				}
			}
			dst := make([]float64, total+unrolled)
			expand(dst, sorted, counts)
			if got := dst[:total]; !slices.Equal(got, want) {
				t.Fatalf("expand(%v) = %v, want %v", counts, got, want)
			}
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	samples := normalSample(1400, 22, 1, 5)
	for i := range samples {
		samples[i] = math.Round(samples[i]) // whole nanoseconds, as the kernel reports
	}
	opts := DefaultOptions()
	for b.Loop() {
		if _, err := Summarize(samples, opts); err != nil {
			b.Fatal(err)
		}
	}
}
