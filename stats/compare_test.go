package stats

import (
	"errors"
	"math"
	"math/rand/v2"
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

func TestVerdictSentence(t *testing.T) {
	for v, want := range map[Verdict]string{
		Regressed:   "Performance has regressed.",
		Improved:    "Performance has improved.",
		WithinNoise: "Change within noise threshold.",
		NoChange:    "No change in performance detected.",
	} {
		if got := v.Sentence(); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
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
