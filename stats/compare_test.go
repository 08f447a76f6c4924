package stats

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func compareOptions(paired bool) CompareOptions {
	o := DefaultOptions()
	o.Resamples = 2000
	return CompareOptions{Options: o, Significance: 0.05, NoiseThreshold: 0.02, Quantum: 1, Paired: paired}
}

// kernelLike draws n samples as the kernel reports them: whole ns, floored,
// around mean with spread sd.
func kernelLike(r *rand.Rand, n int, mean, sd float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.Floor(mean + sd*r.NormFloat64())
	}
	return s
}

// A build compared with itself: the test must reject at about its nominal
// rate, and the verdict must almost never be a regression or improvement.
func TestCompareSameDistribution(t *testing.T) {
	for _, paired := range []bool{true, false} {
		r := rand.New(rand.NewPCG(1, 2))
		const trials = 200
		rejected, flagged := 0, 0
		for range trials {
			a, b := kernelLike(r, 40, 40, 4), kernelLike(r, 40, 40, 4)
			c, err := Compare(a, b, compareOptions(paired))
			if err != nil {
				t.Fatal(err)
			}
			if c.P < 0.05 {
				rejected++
			}
			if c.Verdict == Regressed || c.Verdict == Improved {
				flagged++
			}
		}
		if rate := float64(rejected) / trials; rate > 0.10 {
			t.Errorf("paired=%v: p < 0.05 in %.1f %% of A/A trials, want about 5 %%", paired, 100*rate)
		}
		if rate := float64(flagged) / trials; rate > 0.05 {
			t.Errorf("paired=%v: %.1f %% of A/A trials called a change, want at most 5 %%", paired, 100*rate)
		}
	}
}

func TestCompareFindsRealChanges(t *testing.T) {
	for _, paired := range []bool{true, false} {
		r := rand.New(rand.NewPCG(3, 4))
		before := kernelLike(r, 40, 40, 2)
		slower := kernelLike(r, 40, 48, 2) // +20 %
		c, err := Compare(before, slower, compareOptions(paired))
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != Regressed || !(c.Mean.Lower < 0.2 && 0.2 < c.Mean.Upper) {
			t.Errorf("paired=%v: +20 %%: verdict %s, mean change %+v", paired, c.Verdict, c.Mean)
		}
		c, err = Compare(slower, before, compareOptions(paired))
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != Improved || c.Difference.Upper >= 0 {
			t.Errorf("paired=%v: -17 %%: verdict %s, difference %+v", paired, c.Verdict, c.Difference)
		}
	}
}

// One quantum between two otherwise identical distributions is a step of
// the kernel's resolution, not a finding: even with no noise threshold, the
// verdict stays short of a regression.
func TestCompareOneQuantumIsNotAChange(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	before := kernelLike(r, 40, 20, 1)
	after := make([]float64, len(before))
	for i, x := range before {
		after[i] = x + 1
	}
	for _, paired := range []bool{true, false} {
		o := compareOptions(paired)
		o.NoiseThreshold = 0
		c, err := Compare(before, after, o)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == Regressed {
			t.Errorf("paired=%v: a one-quantum step was called a regression (p %.3g, diff %+v)", paired, c.P, c.Difference)
		}
		// Two quanta is more than the kernel's rounding can make.
		for i, x := range before {
			after[i] = x + 2
		}
		if c, _ := Compare(before, after, o); c.Verdict != Regressed {
			t.Errorf("paired=%v: two quanta on 20 ns not called a regression: %s", paired, c.Verdict)
		}
		for i, x := range before {
			after[i] = x + 1
		}
	}
}

// Regime changes of the machine move both builds when they are sampled in
// the same rounds; pairing cancels them where an unpaired test cannot.
func TestPairingCancelsSharedDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var before, after []float64
	for i := range 40 {
		regime := 0.0
		if i%10 < 5 {
			regime = 15 // a slow phase of the machine, shared by both builds
		}
		b := 40 + regime + r.NormFloat64()*0.5
		before = append(before, math.Floor(b))
		after = append(after, math.Floor(b*1.06)) // +6 %
	}
	paired, err := Compare(before, after, compareOptions(true))
	if err != nil {
		t.Fatal(err)
	}
	if paired.Verdict != Regressed {
		t.Errorf("paired: %s (p %.3g, change %+v)", paired.Verdict, paired.P, paired.Mean)
	}
	unpaired, err := Compare(before, after, compareOptions(false))
	if err != nil {
		t.Fatal(err)
	}
	if unpaired.Mean.Upper-unpaired.Mean.Lower <= 2*(paired.Mean.Upper-paired.Mean.Lower) {
		t.Errorf("pairing did not narrow the interval: paired %+v, unpaired %+v", paired.Mean, unpaired.Mean)
	}
}

func TestCompareErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	a, b := kernelLike(r, 20, 40, 2), kernelLike(r, 30, 40, 2)
	if _, err := Compare(a, b, compareOptions(true)); !errors.Is(err, ErrCompare) {
		t.Errorf("paired samples of unequal length: %v", err)
	}
	o := compareOptions(false)
	o.Significance = 1
	if _, err := Compare(a, b, o); !errors.Is(err, ErrCompare) {
		t.Errorf("significance 1: %v", err)
	}
	if _, err := Compare(a[:3], b, compareOptions(false)); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("3 samples: %v", err)
	}
	zeros := make([]float64, 20)
	if _, err := Compare(zeros, b[:20], compareOptions(false)); !errors.Is(err, ErrCompare) {
		t.Errorf("zero baseline: %v", err)
	}
}

func BenchmarkComparePaired(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := kernelLike(r, 40, 40, 4), kernelLike(r, 40, 42, 4)
	o := compareOptions(true)
	o.Resamples = 10000
	for b.Loop() {
		if _, err := Compare(x, y, o); err != nil {
			b.Fatal(err)
		}
	}
}

// twoPhase draws n kernel-like samples of a machine with a fast and a slow
// phase: whole ns, floored, about fast+0.3 (spread 0.3) in the fast phase
// and slow+0.3 (spread 0.5) in the slow one, which sample i is in when
// slowAt(i).
func twoPhase(r *rand.Rand, n int, fast, slow float64, slowAt func(i int) bool) []float64 {
	s := make([]float64, n)
	for i := range s {
		if slowAt(i) {
			s[i] = math.Floor(slow + 0.3 + 0.5*r.NormFloat64())
		} else {
			s[i] = math.Floor(fast + 0.3 + 0.3*r.NormFloat64())
		}
	}
	return s
}

// lowQuantiles are the low quantiles the Low comparisons run with: the
// default and 0.1.
var lowQuantiles = []float64{0, 0.1}

// The fast phase slows by 10 % (20 to 22 ns) and the slow phase stays at
// 35 ns: the low estimator sees the whole 10 %.
func TestCompareLowFindsFastPhaseChange(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	slowAt := func(i int) bool { return i%10 < 3 }
	before := twoPhase(r, 60, 20, 35, slowAt)
	after := twoPhase(r, 60, 22, 35, slowAt)
	for _, paired := range []bool{true, false} {
		for _, q := range lowQuantiles {
			o := compareOptions(paired)
			o.Estimator = Low
			o.LowQuantile = q
			c, err := Compare(before, after, o)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != Regressed || c.Estimator != Low || c.Test != BootstrapTest {
				t.Errorf("paired=%v q=%v: %s by %q with %q, want regressed by low with the bootstrap test", paired, q, c.Verdict, c.Estimator, c.Test)
			}
			if math.Abs(c.Change.Point-0.10) > 0.02 || !(c.Change.Lower < c.Change.Point && c.Change.Point < c.Change.Upper) {
				t.Errorf("paired=%v q=%v: change %+v, want about +0.10 inside its interval", paired, q, c.Change)
			}
			if math.Abs(c.Difference.Point-2) > 0.4 || c.Difference.Lower <= o.Quantum {
				t.Errorf("paired=%v q=%v: difference %+v, want about 2 ns, clear of one quantum", paired, q, c.Difference)
			}
			if c.P >= 0.01 {
				t.Errorf("paired=%v q=%v: p = %v, want < 0.01", paired, q, c.P)
			}
			// The faster way round is an improvement of about 9 %.
			c, err = Compare(after, before, o)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != Improved || math.Abs(c.Change.Point+0.09) > 0.02 {
				t.Errorf("paired=%v q=%v: reversed: %s, change %+v; want improved by about 9 %%", paired, q, c.Verdict, c.Change)
			}
		}
	}
}

// The same program on a machine that spends more time in its slow phase:
// the mean rises by a fifth, the fast phase, and so the low estimate, does
// not move. This is what the low estimator is for.
func TestCompareLowIgnoresPhaseShare(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	before := twoPhase(r, 60, 20, 35, func(i int) bool { return i%5 == 0 }) // 20 % slow
	after := twoPhase(r, 60, 20, 35, func(i int) bool { return i%2 == 0 })  // 50 % slow
	for _, paired := range []bool{true, false} {
		o := compareOptions(paired)
		o.Estimator = Mean
		mean, err := Compare(before, after, o)
		if err != nil {
			t.Fatal(err)
		}
		if mean.Verdict != Regressed || mean.Change.Point < 0.15 {
			t.Errorf("paired=%v: by the mean: %s, change %+v; want regressed by about +20 %%", paired, mean.Verdict, mean.Change)
		}
		for _, q := range lowQuantiles {
			o.Estimator = Low
			o.LowQuantile = q
			low, err := Compare(before, after, o)
			if err != nil {
				t.Fatal(err)
			}
			if low.Verdict == Regressed || low.Verdict == Improved {
				t.Errorf("paired=%v q=%v: by the low quantile: %s (p %.3g, change %+v), want no regression", paired, q, low.Verdict, low.P, low.Change)
			}
			if math.Abs(low.Change.Point) > 0.02 || low.Change.Lower > 0 || low.Change.Upper < 0 {
				t.Errorf("paired=%v q=%v: low change %+v, want about 0 inside its interval", paired, q, low.Change)
			}
			// The mean's figures are there all the same.
			if low.Mean != mean.Mean {
				t.Errorf("paired=%v q=%v: Mean %+v under low, %+v under mean", paired, q, low.Mean, mean.Mean)
			}
		}
	}
}

func TestCompareIdenticalSamples(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	x := twoPhase(r, 60, 20, 35, func(i int) bool { return i%4 == 0 })
	for _, e := range Estimators() {
		for _, paired := range []bool{true, false} {
			o := compareOptions(paired)
			o.Estimator = e
			c, err := Compare(x, slices.Clone(x), o)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != NoChange || c.Change.Point != 0 || c.Difference.Point != 0 {
				t.Errorf("%s paired=%v: %s, change %+v, difference %+v; want no change, 0", e, paired, c.Verdict, c.Change, c.Difference)
			}
			switch {
			case paired && e != Mean:
				// Every resampled pair is the same: every change is 0.
				if c.P != 1 || c.Change != (Estimate{}) {
					t.Errorf("%s paired: p = %v, change %+v; want 1 and exactly 0", e, c.P, c.Change)
				}
			case c.P < 0.5:
				t.Errorf("%s paired=%v: p = %v, want near 1", e, paired, c.P)
			}
		}
	}
}

// The estimator decides which figure is the Change and which test gives p.
func TestCompareEstimatorChoice(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	before, after := kernelLike(r, 40, 40, 3), kernelLike(r, 40, 44, 3)
	for _, paired := range []bool{true, false} {
		meanTest := UnpairedTest
		if paired {
			meanTest = PairedTest
		}
		for _, e := range []Estimator{"", Mean, Median, Min, Low} {
			o := compareOptions(paired)
			o.Estimator = e
			c, err := Compare(before, after, o)
			if err != nil {
				t.Fatal(err)
			}
			want, test := e, BootstrapTest
			if e == "" || e == Mean {
				want, test = Mean, meanTest
			}
			if c.Estimator != want || c.Test != test {
				t.Errorf("paired=%v %q: estimator %q, test %q; want %q, %q", paired, e, c.Estimator, c.Test, want, test)
			}
			// The mean and median changes are the same computation.
			switch want {
			case Mean:
				if c.Change != c.Mean {
					t.Errorf("paired=%v %q: change %+v, mean change %+v", paired, e, c.Change, c.Mean)
				}
			case Median:
				if c.Change != c.Median {
					t.Errorf("paired=%v %q: change %+v, median change %+v", paired, e, c.Change, c.Median)
				}
			}
			// The point figures are those of the samples themselves.
			sb, sa := slices.Sorted(slices.Values(before)), slices.Sorted(slices.Values(after))
			eb, ea := statistic(want, sb, o.lowQuantile()), statistic(want, sa, o.lowQuantile())
			if math.Abs(c.Difference.Point-(ea-eb)) > 1e-9 || math.Abs(c.Change.Point-(ea/eb-1)) > 1e-12 {
				t.Errorf("paired=%v %q: change %v, difference %v; want %v, %v", paired, e, c.Change.Point, c.Difference.Point, ea/eb-1, ea-eb)
			}
			if !(c.Difference.Lower <= c.Difference.Upper && c.Change.Lower <= c.Change.Upper) {
				t.Errorf("paired=%v %q: reversed interval: change %+v, difference %+v", paired, e, c.Change, c.Difference)
			}
			if _, err := json.Marshal(c); err != nil {
				t.Errorf("paired=%v %q: %v", paired, e, err)
			}
		}
	}
}

// statistic is e of sorted, computed from its definition.
func statistic(e Estimator, sorted []float64, q float64) float64 {
	switch e {
	case Low:
		return HarrellDavis(sorted, q)
	case Median:
		return Quantile(sorted, 0.5)
	case Min:
		return sorted[0]
	}
	sum := 0.0
	for _, x := range sorted {
		sum += x
	}
	return sum / float64(len(sorted))
}

// One quantum is not a change whatever the estimator; two are, for the low
// estimator, paired or not.
func TestCompareEstimatorsOneQuantum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	before := kernelLike(r, 40, 20, 1)
	shift := func(d float64) []float64 {
		s := make([]float64, len(before))
		for i, x := range before {
			s[i] = x + d
		}
		return s
	}
	for _, e := range Estimators() {
		for _, paired := range []bool{true, false} {
			o := compareOptions(paired)
			o.NoiseThreshold = 0
			o.Estimator = e
			for _, d := range []float64{1, -1} {
				c, err := Compare(before, shift(d), o)
				if err != nil {
					t.Fatal(err)
				}
				if c.Verdict == Regressed || c.Verdict == Improved {
					t.Errorf("%s paired=%v: a step of %+v quantum called %s (difference %+v)", e, paired, d, c.Verdict, c.Difference)
				}
			}
		}
	}
	for _, paired := range []bool{true, false} {
		o := compareOptions(paired)
		o.NoiseThreshold = 0
		o.Estimator = Low
		if c, _ := Compare(before, shift(2), o); c.Verdict != Regressed {
			t.Errorf("low paired=%v: two quanta on 20 ns: %s (difference %+v)", paired, c.Verdict, c.Difference)
		}
	}
}

func TestCompareEstimatorErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	a, b := kernelLike(r, 20, 40, 2), kernelLike(r, 20, 40, 2)
	o := compareOptions(false)
	o.Estimator = "p10"
	if _, err := Compare(a, b, o); !errors.Is(err, ErrCompare) || !errors.Is(err, ErrEstimator) {
		t.Errorf("unknown estimator: %v, want ErrCompare and ErrEstimator", err)
	}
	if _, err := PairedDifference(a, b, "p10", DefaultOptions()); !errors.Is(err, ErrEstimator) {
		t.Errorf("PairedDifference, unknown estimator: %v", err)
	}
	// The baseline must be positive by the chosen estimator too: a
	// minimum of 0 would make the relative change infinite.
	zeroMin := slices.Clone(a)
	zeroMin[3] = 0
	for _, e := range Estimators() {
		o.Estimator = e
		c, err := Compare(zeroMin, b, o)
		switch {
		case e == Min && !errors.Is(err, ErrCompare):
			t.Errorf("min of 0: %v (change %+v), want ErrCompare", err, c.Change)
		case e != Min && err != nil:
			t.Errorf("%s with one 0 among 40 ns: %v", e, err)
		case err == nil:
			if _, jerr := json.Marshal(c); jerr != nil {
				t.Errorf("%s with one 0 among 40 ns: %v", e, jerr)
			}
		}
	}
}

func TestBootstrapP(t *testing.T) {
	thousand := slices.Repeat([]float64{0.1}, 999)
	tests := []struct {
		name string
		dist []float64
		want float64
	}{
		// 2 (min(below, above) + 1) / (len + 1), at most 1.
		{"all above", []float64{1, 2, 3}, 2 * 1.0 / 4},
		{"all below", []float64{-1, -2, -3, -4}, 2 * 1.0 / 5},
		{"999 above", thousand, 2 * 1.0 / 1000},
		{"one below", []float64{-1, 1, 2, 3}, 2 * 2.0 / 5},
		{"one of ten below", []float64{-0.5, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 2 * 2.0 / 11},
		{"zeros count on both sides", []float64{0, 0, 0}, 1},
		{"one zero among positives", []float64{0, 1, 2, 3}, 2 * 2.0 / 5},
		{"balanced", []float64{-2, -1, 1, 2}, 1},
		{"nearly balanced", []float64{-2, -1, 1, 2, 3}, 1}, // 2·3/6
		{"empty", nil, 1},
	}
	for _, tt := range tests {
		if got := bootstrapP(tt.dist); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("%s: bootstrapP = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Symmetric in the sign of the changes.
	d := []float64{-3, 0.5, 1, 2, 4, 5}
	neg := make([]float64, len(d))
	for i, x := range d {
		neg[i] = -x
	}
	if a, b := bootstrapP(d), bootstrapP(neg); a != b {
		t.Errorf("bootstrapP not symmetric: %v, %v", a, b)
	}
}

// Compare, like every function here, leaves its samples as they were: in
// the order taken, which plots and regime switches rely on.
func TestCompareLeavesInput(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	before, after := kernelLike(r, 30, 40, 3), kernelLike(r, 30, 42, 3)
	b0, a0 := slices.Clone(before), slices.Clone(after)
	for _, e := range Estimators() {
		for _, paired := range []bool{true, false} {
			o := compareOptions(paired)
			o.Resamples = MinResamples
			o.Estimator = e
			if _, err := Compare(before, after, o); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(before, b0) || !slices.Equal(after, a0) {
				t.Fatalf("%s paired=%v: Compare modified its samples", e, paired)
			}
		}
	}
}
