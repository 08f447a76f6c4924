package engine

import (
	"testing"

	"github.com/xdpmicro/xdpmicro/stats"
)

// allPrecise asks every side to be within the precision: a side of whole-ns
// samples spread over ±20 % is not, one of a few distinct values is.
func TestPrecise(t *testing.T) {
	tight, loose := make([]float64, 100), make([]float64, 100)
	for i := range tight {
		tight[i] = 20 + float64(i%2)
		loose[i] = 16 + float64(i%9)
	}
	opts := stats.DefaultOptions()
	opts.Resamples = 1000
	if !allPrecise(stats.Low, 0.05, opts, []sampledSide{{Samples: tight}}) {
		t.Error("20/21 ns samples not precise to ±5 %")
	}
	if allPrecise(stats.Mean, 0.001, opts, []sampledSide{{Samples: tight}, {Samples: loose}}) {
		t.Error("samples spread over 16..24 ns precise to ±0.1 %")
	}
	if (stopRule{Estimator: stats.Slope, Precision: 0.01, Threshold: 0.0025, Placements: 2}).preciseChange(opts, []sampledSide{{Samples: tight}}) {
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
	four := []sampledSide{{Samples: tight}, {Samples: tight}, {Samples: tight}, {Samples: tight}}
	for _, tc := range []struct {
		rule stopRule
		want bool
	}{
		{stopRule{Estimator: stats.Slope, Precision: 0.05}, true}, // flat sides judged by stats.Low
		{stopRule{Estimator: stats.Low, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.03}, true},
		{stopRule{Estimator: stats.Slope, Precision: 0.05, Compare: true, Placements: 2, Threshold: 0.0025}, false},
		{stopRule{Estimator: stats.Slope, Precision: 0.05, Compare: true, Placements: 1, Threshold: 0.0025}, true},
		{stopRule{Estimator: stats.Mean, Precision: 0.0001}, false},
	} {
		tc.rule.Options = stats.DefaultOptions()
		if got := tc.rule.enough(four); got != tc.want {
			t.Errorf("%+v: Enough = %v, want %v", tc.rule, got, tc.want)
		}
	}
}

// linear is a load whose calls cost exactly slope ns a run over 1000.
func linear(slope float64) sampledSide {
	var t stats.Timings
	for level := 1; level <= 10; level++ {
		for range 5 {
			t.Runs = append(t.Runs, float64(100*level))
			t.Total = append(t.Total, 1000+slope*float64(100*level))
		}
	}
	return sampledSide{Timings: t}
}

// A comparison over groups stops on the change the report prints, the
// groups' (stats.BlockedChange), widened by the phase's spread: three groups of four loads a build whose
// changes read +0.2, +1.5 and +0.9 % are a clear change by Welch's t over
// the 12 loads (about [+0.5 +1.2] %), but not by the groups' t with two
// degrees of freedom ([-0.8 +2.5] %), which crosses the threshold.
func TestPreciseChangeByGroups(t *testing.T) {
	changes := []float64{0.002, 0.015, 0.009}
	var before, after []sampledSide
	for _, c := range changes {
		for i := range 4 {
			before = append(before, linear(50+0.01*float64(i)))
		}
		for i := range 4 {
			after = append(after, linear((50+0.01*float64(i))*(1+c)))
		}
	}
	sides := append(before, after...)
	opts := stats.DefaultOptions()
	r := stopRule{Estimator: stats.Slope, Precision: 0.01, Threshold: 0.0025, Placements: 12}
	if !r.preciseChange(opts, sides) {
		t.Error("all 12 loads as one group: not judged a clear change")
	}
	if r.ChangeSpread = 3; r.preciseChange(opts, sides) {
		t.Error("the same change, its size known within ×3: its lower bound under the threshold, judged settled")
	}
	r.ChangeSpread, r.PerGroup = 1, 4
	if r.preciseChange(opts, sides) {
		t.Error("three groups whose changes spread 0.2 to 1.5 %: judged settled")
	}
}

// Loads are judged at the fast phase where the groups' floors tell one:
// two slow groups among twelve, a move off a slow CPU's, do not keep the
// rest from the precision asked (fewer than stats.SplitShare of them).
func TestPreciseLoadsAtPhase(t *testing.T) {
	var sides []sampledSide
	floors := []float64{}
	for g := range 12 {
		speed := 1.0
		if g < 2 {
			speed = 1.9
		}
		floors = append(floors, 5*speed*(1+0.001*float64(g%3)))
		for i := range 2 {
			sides = append(sides, linear(20*speed*(1+0.002*float64((g+i)%4))))
		}
	}
	r := stopRule{Estimator: stats.Slope, Precision: 0.01, Placements: 24, PerGroup: 2}
	opts := stats.DefaultOptions()
	if r.preciseLoads(opts, sides) {
		t.Fatal("two groups at ×1.9 among twelve judged within ±1 % over all loads")
	}
	factors, phase, ok := stats.PhaseFactors([][]float64{floors}, opts.Confidence)
	if !ok {
		t.Fatal("the floors told no phase")
	}
	r.Factors, r.Phase = factors, phase
	if !r.preciseLoads(opts, sides) {
		t.Error("ten fast groups within 0.6 % of each other, the slow two left out: not judged within ±1 %")
	}
}

// A comparison is judged over the groups the report keeps: over all four,
// a slow one among them, a change of about +1.1 % is settled beyond the
// threshold; the report leaves the slow group out, and over the other
// three the same change is not.
func TestPreciseChangeAtPhase(t *testing.T) {
	const per = 4
	changes := []float64{0.005, 0.017, 0.011, 0.011}
	var before, after []sampledSide
	var floors []float64
	for g, change := range changes {
		speed := 1.0
		if g == 3 {
			speed = 1.9
		}
		floors = append(floors, 5*speed*(1+0.001*float64(g)))
		for range per {
			before = append(before, linear(20*speed))
			after = append(after, linear(20*speed*(1+change)))
		}
	}
	r := stopRule{Estimator: stats.Slope, Precision: 0.01, Compare: true, Placements: len(before), PerGroup: per, Threshold: 0.0025}
	opts := stats.DefaultOptions()
	sides := append(before, after...)
	if !r.preciseChange(opts, sides) {
		t.Fatal("a change of +1.1 % over four groups, ±0.8 %: not settled beyond ±0.25 %")
	}
	factors, phase, ok := stats.PhaseFactors([][]float64{floors}, opts.Confidence)
	if !ok {
		t.Fatal("the floors told no phase")
	}
	r.Factors, r.Phase = factors, phase
	if r.preciseChange(opts, sides) {
		t.Error("the slow group left out, three groups' changes of +0.5, +1.7 and +1.1 %: judged settled")
	}
}
