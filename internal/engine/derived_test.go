package engine

import (
	"math"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// The slope pools its levels only where every level repeats PooledRuns
// or more, and only a slope does.
func TestPooledFrom(t *testing.T) {
	for _, tt := range []struct {
		est   stats.Estimator
		mode  string
		first uint32
		want  int
	}{
		{stats.Slope, results.SamplingLinear, stats.PooledRuns, stats.PooledRuns},
		{stats.Slope, results.SamplingLinear, stats.PooledRuns - 1, 0},
		{stats.Low, results.SamplingLinear, stats.PooledRuns, 0},
		{stats.Slope, results.SamplingFlat, stats.PooledRuns, 0},
	} {
		r := &results.Run{Settings: results.Settings{Estimator: tt.est}}
		r.Environment.Sampling = results.Sampling{Mode: tt.mode, First: tt.first, Step: 1000, Levels: 10}
		if got := pooledFrom(r); got != tt.want {
			t.Errorf("%s %s from %d: %d, want %d", tt.est, tt.mode, tt.first, got, tt.want)
		}
	}
}

// The change spread is the recalled phase's, by the floor's phase first,
// and none without a recalled phase.
func TestChangeSpread(t *testing.T) {
	phased := func(ph *results.Phase) results.Program {
		return results.Program{Results: []results.Case{{Name: "c", Stats: &results.Summary{Loads: &results.Loads{Phase: ph}}}}}
	}
	r := &results.Run{Floor: &results.Program{}, Programs: []results.Program{phased(&results.Phase{Recalled: 28, RunFloor: 35})}}
	if got := changeSpread(r, phases.ChangeTransfer); got != phases.ChangeSpread(35, 28, phases.ChangeTransfer) || !(got > 1) {
		t.Errorf("spread %v", got)
	}
	floor := phased(&results.Phase{Recalled: 28, RunFloor: 28 * 1.5})
	r.Floor = &floor
	if got, want := changeSpread(r, 1), 1.5; math.Abs(got-want) > 1e-12 {
		t.Errorf("by the floor's phase: %v, want %v", got, want)
	}
	if got := changeSpread(&results.Run{Programs: []results.Program{phased(&results.Phase{Slowest: 1.2})}}, 1); got != 0 {
		t.Errorf("no recalled phase: %v", got)
	}
}
