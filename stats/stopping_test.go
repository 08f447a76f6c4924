package stats

import "testing"

func TestDecided(t *testing.T) {
	for _, tc := range []struct {
		lower, upper float64
		want         bool
	}{
		{0.003, 0.01, true},     // whole beyond +0.25 %
		{-0.01, -0.003, true},   // whole beyond -0.25 %
		{-0.002, 0.002, true},   // whole inside the band
		{0.0013, 0.0112, false}, // across +0.25 %: could be either
		{-0.004, 0.001, false},  // across -0.25 %
		{-0.01, 0.01, false},    // across both
	} {
		if got := Decided(Estimate{Lower: tc.lower, Upper: tc.upper}, 0.0025); got != tc.want {
			t.Errorf("Decided([%g %g]) = %v, want %v", tc.lower, tc.upper, got, tc.want)
		}
	}
}

func TestDefaultNoiseThreshold(t *testing.T) {
	if DefaultNoiseThreshold(Slope, true) != InterleavedSlopeNoiseThreshold || DefaultNoiseThreshold(Low, true) != InterleavedNoiseThreshold ||
		DefaultNoiseThreshold(Slope, false) != AcrossRunsNoiseThreshold {
		t.Error("the defaults do not follow the sampling and the estimator")
	}
}

// Precise asks every side to be within the precision: a side of whole-ns
// samples spread over ±20 % is not, one of a few distinct values is.
func TestPrecise(t *testing.T) {
	tight, loose := make([]float64, 100), make([]float64, 100)
	for i := range tight {
		tight[i] = 20 + float64(i%2)
		loose[i] = 16 + float64(i%9)
	}
	opts := DefaultOptions()
	opts.Resamples = 1000
	if !Precise(Low, 0.05, opts, []Sampled{{Samples: tight}}) {
		t.Error("20/21 ns samples not precise to ±5 %")
	}
	if Precise(Mean, 0.001, opts, []Sampled{{Samples: tight}, {Samples: loose}}) {
		t.Error("samples spread over 16..24 ns precise to ±0.1 %")
	}
	if PreciseChange(Slope, 0.01, 0.0025, 2, opts, []Sampled{{Samples: tight}}) {
		t.Error("one side of a two-placement comparison judged precise")
	}
}

// The rule judges each side for one build, or for builds compared by an
// estimator that is not fitted, and the change for builds compared by a
// slope over placements: sides without timings have no change to judge.
func TestStoppingRule(t *testing.T) {
	tight := make([]float64, 100)
	for i := range tight {
		tight[i] = 20 + float64(i%2)
	}
	four := []Sampled{{Samples: tight}, {Samples: tight}, {Samples: tight}, {Samples: tight}}
	for _, tc := range []struct {
		rule StoppingRule
		want bool
	}{
		{StoppingRule{Estimator: Slope, Precision: 0.05}, true}, // flat sides judged by Low
		{StoppingRule{Estimator: Low, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.03}, true},
		{StoppingRule{Estimator: Slope, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.0025}, false},
		{StoppingRule{Estimator: Slope, Precision: 0.05, Compare: true, Placements: 1, Threshold: 0.0025}, true},
		{StoppingRule{Estimator: Mean, Precision: 0.0001}, false},
	} {
		tc.rule.Options = DefaultOptions()
		if got := tc.rule.Enough(four); got != tc.want {
			t.Errorf("%+v: Enough = %v, want %v", tc.rule, got, tc.want)
		}
	}
}
