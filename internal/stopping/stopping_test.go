package stopping

import (
	"testing"

	"github.com/xdpmicro/xdpmicro/stats"
)

// Precise asks every side to be within the precision: a side of whole-ns
// samples spread over ±20 % is not, one of a few distinct values is.
func TestPrecise(t *testing.T) {
	tight, loose := make([]float64, 100), make([]float64, 100)
	for i := range tight {
		tight[i] = 20 + float64(i%2)
		loose[i] = 16 + float64(i%9)
	}
	opts := stats.DefaultOptions()
	opts.Resamples = 1000
	if !Precise(stats.Low, 0.05, opts, []Sampled{{Samples: tight}}) {
		t.Error("20/21 ns samples not precise to ±5 %")
	}
	if Precise(stats.Mean, 0.001, opts, []Sampled{{Samples: tight}, {Samples: loose}}) {
		t.Error("samples spread over 16..24 ns precise to ±0.1 %")
	}
	if PreciseChange(stats.Slope, 0.01, 0.0025, 2, opts, []Sampled{{Samples: tight}}) {
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
		rule Rule
		want bool
	}{
		{Rule{Estimator: stats.Slope, Precision: 0.05}, true}, // flat sides judged by stats.Low
		{Rule{Estimator: stats.Low, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.03}, true},
		{Rule{Estimator: stats.Slope, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.0025}, false},
		{Rule{Estimator: stats.Slope, Precision: 0.05, Compare: true, Placements: 1, Threshold: 0.0025}, true},
		{Rule{Estimator: stats.Mean, Precision: 0.0001}, false},
	} {
		tc.rule.Options = stats.DefaultOptions()
		if got := tc.rule.Enough(four); got != tc.want {
			t.Errorf("%+v: Enough = %v, want %v", tc.rule, got, tc.want)
		}
	}
}
