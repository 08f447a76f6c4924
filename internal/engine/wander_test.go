package engine

import (
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A run whose CPU was stolen, or that stood at the slower of two speeds,
// holds the host's wander in every figure over loads and its net; one
// that stood at the faster holds less, and one on a steady host least.
func TestHostWander(t *testing.T) {
	run := func(steal float64, phase *stats.Phase) *results.Run {
		l, err := stats.OverLoads([]float64{50, 50.2, 49.9, 50.1, 50, 50.1}, stats.Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		l.Phase = phase
		net := stats.Estimate{Point: 35, Lower: 34.8, Upper: 35.2}
		c := results.Case{Name: "fizz", Stats: &results.Summary{Loads: &l}, Net: &net}
		r := &results.Run{Programs: []results.Program{{Results: []results.Case{c}}}}
		r.Environment.MachineLoad.StealShare = steal
		return r
	}
	steady := run(0, nil)
	withHostWander(steady, 0.95)
	if c := steady.Programs[0].Results[0]; c.Stats.Loads.Wander != stats.SteadyWander || c.Stats.Loads.Estimate.RelativeHalfWidth() > 0.02 {
		t.Errorf("a steady host's run: %+v, want the steady host's wander alone", c.Stats.Loads)
	}
	for name, r := range map[string]*results.Run{
		"stolen":             run(0.05, nil),
		"at the slow speed":  run(0, &stats.Phase{Fast: 3, Groups: 20, Slowest: 1.45, AtSlow: true}),
		"split speeds":       run(0, &stats.Phase{Fast: 12, Groups: 20, Slowest: 1.45, Split: true}),
		"fast speed, stolen": run(0.05, &stats.Phase{Fast: 17, Groups: 20, Slowest: 1.3, LeftOut: 6}),
		"scaled between":     run(0, &stats.Phase{Fast: 2, Groups: 4, Slowest: 1.3}),
	} {
		withHostWander(r, 0.95)
		c := r.Programs[0].Results[0]
		if c.Stats.Loads.Wander != stats.HostWander || c.Stats.Loads.Estimate.RelativeHalfWidth() < 1.9*stats.HostWander {
			t.Errorf("%s: %+v, want the wander held", name, c.Stats.Loads.Estimate)
		}
		if half := (c.Net.Upper - c.Net.Lower) / 2 / c.Net.Point; half < 1.9*stats.HostWander {
			t.Errorf("%s: net ±%.2f %%, want the wander held relative to the net", name, 100*half)
		}
	}
	fast := run(0, &stats.Phase{Fast: 17, Groups: 20, Slowest: 1.3, LeftOut: 6})
	withHostWander(fast, 0.95)
	if l := fast.Programs[0].Results[0].Stats.Loads; l.Wander != stats.FastWander || !(stats.SteadyWander < l.Wander && l.Wander < stats.HostWander) {
		t.Errorf("a run at the faster of two speeds holds wander %v, want between the steady host's and the moving host's", l.Wander)
	}
}

// A floor whose maps were put back after every run (the first state), or
// run through a restorer or one run a call, is no plain floor: its cost
// is the put-back's, and neither the phase history nor the phases read it.
func TestPlainFloorCases(t *testing.T) {
	s := &results.Summary{}
	r := &results.Run{Floor: &results.Program{Results: []results.Case{
		{Name: "a", Stats: s},
		{Name: "a@steady", State: "steady", Stats: s},
		{Name: "a@first", State: "first", Stats: s},
		{Name: "b@flows=64", State: "flows=64", Stats: s},
		{Name: "c", Restored: true, Stats: s},
		{Name: "d", Single: true, Stats: s},
	}}}
	var names []string
	for _, c := range plainFloorCases(r) {
		names = append(names, c.Name)
	}
	if len(names) != 2 || names[0] != "a" || names[1] != "a@steady" {
		t.Errorf("plain floors %v, want a and a@steady", names)
	}
}
