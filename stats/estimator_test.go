package stats

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestParseEstimator(t *testing.T) {
	all := Estimators()
	if len(all) != 4 || all[0] != Low {
		t.Errorf("Estimators() = %v, want low first of four", all)
	}
	for _, e := range all {
		got, err := ParseEstimator(string(e))
		if err != nil || got != e {
			t.Errorf("ParseEstimator(%q) = %q, %v; want %q", e, got, err, e)
		}
	}
	for name, want := range map[string]Estimator{"low": Low, "mean": Mean, "median": Median, "min": Min} {
		if got, err := ParseEstimator(name); err != nil || got != want {
			t.Errorf("ParseEstimator(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "Low", "MEAN", " min", "max", "p10", "low "} {
		got, err := ParseEstimator(name)
		if !errors.Is(err, ErrEstimator) || got != "" {
			t.Errorf("ParseEstimator(%q) = %q, %v; want an ErrEstimator", name, got, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("ParseEstimator(%q): %q does not quote the name", name, msg)
		}
		if !strings.Contains(msg, "low, mean, median, min") {
			t.Errorf("ParseEstimator(%q): %q does not list the known estimators", name, msg)
		}
	}
}

func TestEstimatesOf(t *testing.T) {
	s := Estimates{
		Mean:   Estimate{Point: 1, Lower: 0.5, Upper: 1.5},
		Median: Estimate{Point: 2, Lower: 1.5, Upper: 2.5},
		StdDev: Estimate{Point: 3},
		MAD:    Estimate{Point: 4},
		Low:    Estimate{Point: 5, Lower: 4.5, Upper: 5.5},
		Min:    Estimate{Point: 6, Lower: 6, Upper: 6.5},
	}
	for _, tt := range []struct {
		e    Estimator
		want Estimate
	}{
		{Low, s.Low},
		{Mean, s.Mean},
		{Median, s.Median},
		{Min, s.Min},
		{"", s.Mean}, // documented: the mean for an unknown one
		{"bogus", s.Mean},
	} {
		if got := s.Of(tt.e); got != tt.want {
			t.Errorf("Of(%q) = %+v, want %+v", tt.e, got, tt.want)
		}
	}
}

// TestEstimatorPoint checks the statistic each estimator computes, the one
// comparisons resample, against its definition.
func TestEstimatorPoint(t *testing.T) {
	samples := []float64{31, 22, 25, 22, 23, 47, 24, 22, 29, 23, 26, 35}
	sorted := slices.Sorted(slices.Values(samples))
	w := newHDWeights(len(samples), 0.1)
	for _, tt := range []struct {
		e    Estimator
		want float64
	}{
		{Mean, stat.Mean(samples, nil)},
		{Median, 24.5}, // sorted: 22 22 22 23 23 24 | 25 26 29 31 35 47
		{Min, 22},
		{Low, HarrellDavis(sorted, 0.1)},
	} {
		x := slices.Clone(samples)
		if got := tt.e.point(x, w); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s.point = %v, want %v", tt.e, got, tt.want)
		}
	}
}

func TestSummarizeLowAndMin(t *testing.T) {
	// Whole nanoseconds, unsorted, with ties, a slow phase and a straggler.
	samples := []float64{24, 22, 23, 31, 22, 24, 23, 22, 30, 25, 23, 22, 31, 24, 23, 90, 22, 23, 30, 24}
	sorted := slices.Sorted(slices.Values(samples))
	opts := DefaultOptions()
	opts.Resamples = 2000
	for _, q := range []float64{0, 0.05, 0.1, 0.25} {
		opts.LowQuantile = q
		s, err := Summarize(samples, opts)
		if err != nil {
			t.Fatal(err)
		}
		e := s.Estimates
		want := q
		if q == 0 {
			want = DefaultLowQuantile
		}
		if e.LowQuantile != want {
			t.Errorf("LowQuantile %v: Estimates.LowQuantile = %v, want %v", q, e.LowQuantile, want)
		}
		if hd := HarrellDavis(sorted, want); e.Low.Point != hd {
			t.Errorf("LowQuantile %v: Low.Point = %v, want HarrellDavis = %v", q, e.Low.Point, hd)
		}
		if !(e.Low.Lower <= e.Low.Point && e.Low.Point <= e.Low.Upper) || e.Low.Lower == e.Low.Upper {
			t.Errorf("LowQuantile %v: Low = %+v, want a proper interval around the point", q, e.Low)
		}
		if e.Low.Lower < 22 || e.Low.Upper > e.Median.Upper {
			t.Errorf("LowQuantile %v: Low = %+v outside [min, median's upper end]", q, e.Low)
		}
		// The smallest resampled minimum is the minimum itself; 22 is a
		// quarter of the samples, so few resamples lack it (0.75^20 ≈
		// 0.3 %), and the upper end is 22 too.
		if e.Min != (Estimate{Point: 22, Lower: 22, Upper: 22}) {
			t.Errorf("LowQuantile %v: Min = %+v, want 22 [22, 22]", q, e.Min)
		}
	}
	// With a lone minimum, a third of the resamples miss it: the upper end
	// of Min's interval is the next value.
	lone := append(slices.Clone(samples[1:]), 19)
	s, err := Summarize(lone, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.Estimates.Min != (Estimate{Point: 19, Lower: 19, Upper: 22}) {
		t.Errorf("lone minimum: Min = %+v, want 19 [19, 22]", s.Estimates.Min)
	}
	// A constant sample: every estimate is exactly the constant.
	c, err := Summarize(slices.Repeat([]float64{21}, 40), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]Estimate{"low": c.Estimates.Low, "min": c.Estimates.Min} {
		if e != (Estimate{Point: 21, Lower: 21, Upper: 21}) {
			t.Errorf("constant sample: %s = %+v, want 21 [21, 21]", name, e)
		}
	}
}

// On whole nanoseconds Low's bootstrap distribution is not a handful of
// integers: every resample's estimate lies strictly between the two values,
// so the interval does too, where a type 7 quantile's would end on 22.
func TestLowIntervalBelowQuantum(t *testing.T) {
	samples := append(slices.Repeat([]float64{23}, 15), slices.Repeat([]float64{22}, 5)...)
	opts := DefaultOptions()
	opts.LowQuantile = 0.1
	s, err := Summarize(samples, opts)
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Estimates.Low; !(22 < l.Lower && l.Lower < l.Point && l.Point < l.Upper && l.Upper < 23) {
		t.Errorf("Low = %+v, want 22 < lower < point < upper < 23", l)
	}
}

func TestLowQuantileValidation(t *testing.T) {
	good := normalSample(MinSamples, 10, 1, 1)
	for _, tt := range []struct {
		q  float64
		ok bool
	}{
		{0, true}, // the default
		{1e-9, true},
		{0.02, true},
		{0.1, true},
		{0.4999, true},
		{0.5, false}, // the median is no low quantile
		{0.999, false},
		{-0.1, false},
		{-1e-12, false},
		{1, false},
		{1.5, false},
		{math.NaN(), false},
		{math.Inf(1), false},
	} {
		o := DefaultOptions()
		o.Resamples = MinResamples
		o.LowQuantile = tt.q
		err := o.Validate()
		if tt.ok != (err == nil) {
			t.Errorf("LowQuantile %v: Validate() = %v, want ok %v", tt.q, err, tt.ok)
		}
		if err != nil && (!errors.Is(err, ErrLowQuantile) || !strings.Contains(err.Error(), "low quantile")) {
			t.Errorf("LowQuantile %v: %q does not say what is wrong", tt.q, err)
		}
		_, berr := Bootstrap(good, o)
		_, serr := Summarize(good, o)
		_, cerr := Compare(good, good, CompareOptions{Options: o, Significance: 0.05, Estimator: Low})
		for name, e := range map[string]error{"Bootstrap": berr, "Summarize": serr, "Compare": cerr} {
			if tt.ok != (e == nil) {
				t.Errorf("LowQuantile %v: %s: %v, want ok %v", tt.q, name, e, tt.ok)
			}
		}
	}
}

// TestLowCoverage checks that Low's 95 % interval is about a 95 % interval
// for the true 0.1-quantile. The percentile bootstrap of a low quantile runs
// narrow at small n, so 85–99 % is accepted; a wrong resampling of the
// weights, or an interval of the wrong statistic, falls far outside.
func TestLowCoverage(t *testing.T) {
	const (
		trials = 200
		n      = 60
		mu     = 100.0
		sigma  = 5.0
		p      = 0.1
	)
	truth := mu + sigma*distuv.UnitNormal.Quantile(p) // 93.59
	opts := DefaultOptions()
	opts.Resamples = 1000
	opts.LowQuantile = p
	covered, below, above := 0, 0, 0
	for i := range trials {
		est, err := Bootstrap(normalSample(n, mu, sigma, uint64(5000+i)), opts)
		if err != nil {
			t.Fatal(err)
		}
		switch l := est.Low; {
		case truth < l.Lower:
			above++
		case truth > l.Upper:
			below++
		default:
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f (interval above the truth %d, below %d)", rate, above, below)
	if rate < 0.85 || rate > 0.99 {
		t.Errorf("95%% Low interval covered the true %v-quantile in %.1f%% of trials, want 85%%–99%%", p, 100*rate)
	}
	// Misses should not all fall on one side.
	if miss := above + below; miss >= 8 && (above == 0 || below == 0) {
		t.Errorf("all %d misses on one side: above %d, below %d", miss, above, below)
	}
}
