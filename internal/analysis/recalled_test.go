package analysis

import (
	"math"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// reportAt is a report whose floor's loads read floor and program's
// loads read program, each ±1 %.
func reportAt(floor, program float64) *results.Report {
	loads := func(x float64) *stats.Summary {
		return &stats.Summary{Loads: &stats.Loads{Estimator: stats.Slope, Points: []float64{x, x},
			Estimate: stats.Estimate{Point: x, Lower: 0.99 * x, Upper: 1.01 * x}}}
	}
	net := stats.Estimate{Point: program - floor, Lower: program - floor - 1, Upper: program - floor + 1}
	return &results.Report{
		Settings: results.Settings{Estimator: stats.Slope},
		Floor:    &results.Program{Results: []results.Case{{Name: "fizz", Stats: loads(floor)}}},
		Programs: []results.Program{{Results: []results.Case{{Name: "fizz", Stats: loads(program), Net: &net}}}},
	}
}

// A run whose floor reads 40 % above the recalled fast phase is scaled to
// it, its intervals widened by the reference's own.
func TestAtRecalled(t *testing.T) {
	r := reportAt(35, 70)
	if !AtRecalled(r, Recalled{Floor: 25, RelHalf: 0.02, Runs: 5}, 0.95) {
		t.Fatal("a run 40 % slower than the recalled phase was not scaled")
	}
	got := r.Programs[0].Results[0]
	factor := 25.0 / 35
	if e := got.Stats.Loads.Estimate; math.Abs(e.Point-70*factor) > 1e-9 || e.Upper-e.Point <= 0.01*70*factor {
		t.Errorf("program %+v, want %.3f widened beyond ±1 %%", e, 70*factor)
	}
	if math.Abs(got.Net.Point-35*factor) > 1e-9 {
		t.Errorf("net %.3f, want %.3f", got.Net.Point, 35*factor)
	}
	if ph := got.Stats.Loads.Phase; ph == nil || ph.Recalled != 25 || ph.RunFloor != 35 || ph.RecalledRuns != 5 {
		t.Errorf("phase %+v", ph)
	}
	if f := r.Floor.Results[0].Stats.Loads.Estimate.Point; math.Abs(f-25) > 1e-9 {
		t.Errorf("floor %.3f, want the recalled 25", f)
	}
	if AtRecalled(reportAt(35, 70), Recalled{}, 0.95) {
		t.Error("scaled to no reference")
	}
}
