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
