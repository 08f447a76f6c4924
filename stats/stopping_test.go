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
