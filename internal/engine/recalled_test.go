package engine

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// reportAt is a report whose floor's loads read floor and program's
// loads read program, each ±1 %.
func reportAt(floor, program float64) *results.Run {
	loads := func(x float64) *results.Summary {
		return &results.Summary{Loads: &results.Loads{Estimator: stats.Slope, Points: []float64{x, x},
			Estimate: results.Estimate{Point: x, Lower: 0.99 * x, Upper: 1.01 * x}}}
	}
	net := results.Estimate{Point: program - floor, Lower: program - floor - 1, Upper: program - floor + 1}
	return &results.Run{
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
	// The scaling's size widens the interval, beyond the reference's own
	// ±2 %: a phase need not slow the program as much as the floor.
	if rel, want := got.Stats.Loads.Estimate.RelativeHalfWidth(), RecallTransfer*math.Log(35.0/25); rel < want {
		t.Errorf("scaled by %.2f: ±%.1f %%, want at least ±%.1f %%", factor, 100*rel, 100*want)
	}
	// A run within the tolerance of the recalled phase is scaled too, all
	// the way where the history saw the phase move far beyond its floors'
	// noise, its interval widened by the run's own floor's uncertainty
	// and a quarter of the scaling; beyond the tolerance all the way
	// whatever the history, by half of it. A history that long knows its
	// reference: the level the figures are given at, not theirs to carry.
	for _, c := range []struct{ floor, transfer float64 }{{25.2, FineTransfer}, {26.5, FineTransfer}, {23.5, FineTransfer}, {20, RecallTransfer}} {
		at := reportAt(c.floor, 70)
		if !AtRecalled(at, Recalled{Floor: 25, RelHalf: 0.02, Runs: 5, Drift: 1e9, DriftKnown: true}, 0.95) {
			t.Errorf("a run whose floor read %v ns was not scaled to the recalled 25", c.floor)
			continue
		}
		f := 25 / c.floor
		added := math.Sqrt(0.01*0.01 + math.Pow(c.transfer*math.Log(f), 2))
		e := at.Programs[0].Results[0].Stats.Loads.Estimate
		if want := math.Hypot(0.01, added); math.Abs(e.Point-70*f) > 1e-9 || math.Abs(e.RelativeHalfWidth()-want) > 1e-4 {
			t.Errorf("floor %v: program %+v (±%.2f %%), want %.3f ±%.2f %%", c.floor, e, 100*e.RelativeHalfWidth(), 70*f, 100*want)
		}
	}
	// Within one phase, a history whose floors moved no more than their
	// own noise says leaves the run as measured; one that moved as much as
	// this run's floor is noisy is followed half-way.
	quiet := reportAt(26, 70)
	AtRecalled(quiet, Recalled{Floor: 25, RelHalf: 0.02, Runs: 9, DriftKnown: true}, 0.95)
	if l := quiet.Programs[0].Results[0].Stats.Loads; l.Estimate.Point != 70 || math.Abs(l.Estimate.RelativeHalfWidth()-0.01) > 1e-9 || l.Phase.Share != 0 {
		t.Errorf("a quiet history: %+v, share %v; want 70 ±1 %% as measured", l.Estimate, l.Phase.Share)
	}
	half := reportAt(26, 70)
	noise := math.Pow(0.01/1.96, 2)
	AtRecalled(half, Recalled{Floor: 25, RelHalf: 0.02, Runs: 9, Drift: noise, DriftKnown: true}, 0.95)
	if l := half.Programs[0].Results[0].Stats.Loads; math.Abs(l.Estimate.Point-70*math.Sqrt(25.0/26)) > 1e-9 || math.Abs(l.Phase.Share-0.5) > 1e-9 {
		t.Errorf("drift as large as the floor's noise: %+v, share %v; want 70 scaled half-way to ×25/26", l.Estimate, l.Phase.Share)
	}
	// A floor known to worse than its distance from the reference cannot
	// tell another phase from its own noise: the run is taken as within
	// the phase (here, a short history: PriorDrift against that noise,
	// hardly followed), not followed all the way with its floor's noise.
	vague := reportAt(28, 70)
	vague.Floor.Results[0].Stats.Loads.Estimate.Lower, vague.Floor.Results[0].Stats.Loads.Estimate.Upper = 28*0.72, 28*1.28
	AtRecalled(vague, Recalled{Floor: 25, RelHalf: 0.02, Runs: 3}, 0.95)
	if l := vague.Programs[0].Results[0].Stats.Loads; math.Abs(l.Estimate.Point/70-1) > 0.005 || l.Estimate.RelativeHalfWidth() > 0.012 || l.Phase.Share > 0.05 {
		t.Errorf("a floor of 28 ±28 %% against 25 recalled: %+v (±%.1f %%), share %v; want about 70 ±1 %%, as measured", l.Estimate, 100*l.Estimate.RelativeHalfWidth(), l.Phase.Share)
	}
	// A history too short to say how far the phase moves: a run within
	// it follows its floor as far as PriorDrift says against its own
	// floor's noise and the reference's, which its interval then holds.
	// One reference run known to ±30 % is hardly followed.
	early := reportAt(26, 70)
	AtRecalled(early, Recalled{Floor: 25, RelHalf: 0.3, Runs: 1}, 0.95)
	if l := early.Programs[0].Results[0].Stats.Loads; math.Abs(l.Estimate.Point/70-1) > 0.005 || l.Estimate.RelativeHalfWidth() > 0.012 || l.Phase.Share > 0.05 {
		t.Errorf("one run of history known to ±30 %%, drift unknown: %+v, share %v; want about 70 ±1 %%, as measured", l.Estimate, l.Phase.Share)
	}
	// Three runs known to ±1 %, the run's floor to ±1 %: followed most
	// of the way, the reference's ±1 % in the interval.
	short := reportAt(26, 70)
	AtRecalled(short, Recalled{Floor: 25, RelHalf: 0.01, Runs: 3}, 0.95)
	doubt := 2 * math.Pow(0.01/1.96, 2)
	share := stats.PriorDrift / (stats.PriorDrift + doubt)
	if l := short.Programs[0].Results[0].Stats.Loads; math.Abs(l.Phase.Share-share) > 1e-9 || math.Abs(l.Estimate.Point-70*math.Pow(25.0/26, share)) > 1e-9 ||
		l.Estimate.RelativeHalfWidth() < math.Hypot(0.01, share*0.01) {
		t.Errorf("three runs of history, drift unknown: %+v (±%.2f %%), share %v; want 70 scaled ×(25/26)^%.3f, the reference's ±1 %% held", l.Estimate, 100*l.Estimate.RelativeHalfWidth(), l.Phase.Share, share)
	}
	if AtRecalled(reportAt(35, 70), Recalled{}, 0.95) {
		t.Error("scaled to no reference")
	}
}

// A case whose own groups' scaling would widen it is brought to the fast
// phase by the run's mean factor over its groups: not left at the mix of
// phases its loads met while the floor goes to the fast one.
func TestAtMeanPhase(t *testing.T) {
	points := []float64{80, 81, 96, 97, 88, 89}
	l, err := stats.OverLoads(points, stats.Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	factors := []float64{1.0, 1.2, 1.1}
	got := atMeanPhase(l, factors, stats.Phase{Slowest: 1.2, Fast: 1, Groups: 3, RefHalf: 0.01}, 2)
	if want := l.Estimate.Point / 1.1; math.Abs(got.Estimate.Point-want) > 1e-9 {
		t.Errorf("point %.3f, want %.3f (the measured %.3f over the mean factor 1.1)", got.Estimate.Point, want, l.Estimate.Point)
	}
	if got.Estimate.RelativeHalfWidth() < RecallTransfer*math.Log(1.1) {
		t.Errorf("±%.2f %%: want the scaling's own uncertainty in it", 100*got.Estimate.RelativeHalfWidth())
	}
	if got.Phase == nil || got.Phase.Groups != 3 {
		t.Errorf("phase %+v, want the run's", got.Phase)
	}
}

// A floor run through a restorer, or one run a call, is not the plain
// floor the history holds: a run of only such floor cases has no floor
// level and is not scaled; beside a plain case, the plain one counts.
func TestFloorLevelWithoutRunTimeStats(t *testing.T) {
	r := reportAt(111, 200)
	if _, _, ok := FloorLevel(r); !ok {
		t.Fatal("a plain floor gave no level")
	}
	r.Environment.RunTimeStats = true
	if _, _, ok := FloorLevel(r); ok {
		t.Error("a floor the run-time statistics' clock reads raised gave a phase level")
	}
	if AtRecalled(r, Recalled{Floor: 28, RelHalf: 0.02, Runs: 5}, 0.95) {
		t.Error("a run with the run-time statistics on was scaled as a slow phase")
	}
}

func TestFloorLevelPlainOnly(t *testing.T) {
	r := reportAt(120, 500)
	r.Floor.Results[0].Restored = true
	if _, _, ok := FloorLevel(r); ok {
		t.Error("a restored floor gave a floor level")
	}
	if AtRecalled(r, Recalled{Floor: 28, RelHalf: 0.02, Runs: 5}, 0.95) {
		t.Error("a run whose floor was restored was scaled to the plain floor's history")
	}
	plain := reportAt(28.5, 70).Floor.Results[0]
	plain.Name = "udp-dns"
	r.Floor.Results = append(r.Floor.Results, plain)
	if level, _, ok := FloorLevel(r); !ok || level != 28.5 {
		t.Errorf("beside a plain case: level %v (ok %v), want the plain case's 28.5", level, ok)
	}
}

// A run whose groups met the fast phase once and a slow one five times
// stands at its slow phase, as measured, even where that interval is wider
// than the mixed loads': the mean phase's scaling (which read fizz 10.98
// ns in such a run, against 17 to 19 in its neighbours) is only for runs
// with too few groups of either kind.
func TestAtFastPhaseStandsAtSlowPhase(t *testing.T) {
	load := func(x float64) results.Program {
		return results.Program{Results: []results.Case{{Name: "c", Stats: &results.Summary{
			Estimates: results.Estimates{Mean: results.Estimate{Point: x, Lower: x, Upper: x}}}}}}
	}
	run := func(floors, points []float64) *results.Run {
		var fl, pr []results.Program
		for _, f := range floors {
			fl = append(fl, load(f))
		}
		for _, x := range points {
			pr = append(pr, load(x))
		}
		floor, prog := fl[0], pr[0]
		floor.Placements, prog.Placements = fl[1:], pr[1:]
		r := &results.Run{Settings: results.Settings{Estimator: stats.Mean}, Floor: &floor, Programs: []results.Program{prog}}
		overLoads(r.Floor, stats.Mean, 1, 0.95)
		overLoads(&r.Programs[0], stats.Mean, 2, 0.95)
		return r
	}
	// The slow groups spread widely, so that their own interval is wider,
	// relative to their mean, than the mixed loads'.
	r := run([]float64{5, 9.5, 9.6, 9.4, 9.7, 9.5}, []float64{19, 19, 20, 20, 45, 45, 22, 22, 44, 44, 33, 33})
	atFastPhase(r, 2, 1, 0.95)
	l := r.Programs[0].Results[0].Stats.Loads
	if l.Phase == nil || !l.Phase.AtSlow || l.Phase.LeftOut != 2 || len(l.Points) != 10 || math.Abs(l.Estimate.Point-32.8) > 1e-9 {
		t.Errorf("%+v, phase %+v: want the slow groups' mean 32.8 as measured, the fast group's 2 loads left out", l.Estimate, l.Phase)
	}
}

// A run whose program moved with its floor from group to group is scaled
// by the groups' ratios: what they shared leaves the interval, which
// taken apart (the program's loads, then the floor's carried in) held it
// twice.
func TestAtRecalledOverGroups(t *testing.T) {
	moves := []float64{1.00, 1.03, 0.98, 1.02, 0.99, 1.04, 0.97, 1.01}
	var program, floor []float64
	for g, m := range moves {
		floor = append(floor, 5*m)
		own := 1 + 0.002*float64(g%3-1) // the program's own, beside the shared move
		program = append(program, 20*m*own, 20*m*own)
	}
	grouped := func(points []float64, per int) *results.Summary {
		l, err := stats.OverGroupedLoads(points, per, stats.Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		return &results.Summary{Loads: &l}
	}
	r := &results.Run{
		Settings: results.Settings{Estimator: stats.Slope},
		Floor:    &results.Program{Results: []results.Case{{Name: "fizz", Stats: grouped(floor, 1)}}},
		Programs: []results.Program{{Results: []results.Case{{Name: "fizz", Stats: grouped(program, 2)}}}},
	}
	apart := r.Programs[0].Results[0].Stats.Loads.Estimate.RelativeHalfWidth()
	level, levelHalf, _ := FloorLevel(r)
	rec := Recalled{Floor: 0.97 * level, RelHalf: 0.01, Runs: 20, Drift: 1e9, DriftKnown: true}
	factor, carried, rest, share, ok := recallScaling(level, levelHalf, rec, 0.95)
	if !ok || share < 0.99 {
		t.Fatalf("scaling %v, share %v", ok, share)
	}
	if !AtRecalled(r, rec, 0.95) {
		t.Fatal("not scaled")
	}
	ratios, _ := stats.FloorScaledHalf(program, 2, floor, 1, share, 0.95)
	got := r.Programs[0].Results[0].Stats.Loads.Estimate
	if want := math.Hypot(ratios, rest); math.Abs(got.RelativeHalfWidth()-want) > 1e-9 {
		t.Errorf("±%.3f %%, want the groups' ratios' ±%.3f %% and the rest's ±%.3f %%: ±%.3f %%", 100*got.RelativeHalfWidth(), 100*ratios, 100*rest, 100*want)
	}
	if independent := math.Sqrt(apart*apart + carried*carried + rest*rest); got.RelativeHalfWidth() >= independent/2 {
		t.Errorf("±%.3f %%: want well under the ±%.3f %% of the program's loads and the floor's taken apart", 100*got.RelativeHalfWidth(), 100*independent)
	}
	if want := stat.Mean(program, nil) * factor; math.Abs(got.Point-want) > 1e-9 {
		t.Errorf("point %v, want the loads' mean scaled, %v", got.Point, want)
	}
}
