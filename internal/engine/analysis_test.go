package engine

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// measured is a run of one program on two cases, ten samples each of the
// kernel's figures, in the environment env.
func measured(env results.Environment) results.Raw {
	var fizz, none []float64
	for i := range 10 {
		fizz, none = append(fizz, float64(10+i)), append(none, 5)
	}
	return results.Raw{
		Environment: env,
		Programs: []results.Program{{Object: "v4 (bundled)", Info: results.ProgramInfo{Name: "fizzbuzz", Type: "XDP"},
			Results: []results.Case{
				{Name: "fizz", Frame: "00", Action: "XDP_PASS", Samples: fizz},
				{Name: "none", Frame: "01", Action: "XDP_PASS", Samples: none},
			}}},
	}
}

func analyse(t *testing.T, m results.Raw) *results.Run {
	t.Helper()
	opts := stats.DefaultOptions()
	opts.Resamples = 1000
	r, err := New(results.Settings{Confidence: 0.95, Estimator: stats.Low}, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Results measured apart compare unpaired, by the estimator they were
// measured for, and warn of what differs between their environments; a
// repeat xdpmicro chose differs by design and is not worth a word.
func TestAgainst(t *testing.T) {
	env := results.Environment{Kernel: "6.1.0-test", CPU: 1, CPUs: 2, Repeat: 1000, Resolution: 1}
	base := analyse(t, measured(env))
	moved := env
	moved.CPU, moved.Repeat = 0, 5
	opts := stats.CompareOptions{Options: stats.Options{Confidence: 0.95, Resamples: 1000, Seed: 1}, Significance: 0.05, NoiseThreshold: 0.02}
	r, err := Against(base, analyse(t, measured(moved)), results.Files, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(r.Comparison.Warnings, "\n")
	if !strings.Contains(w, "CPU 1 before, CPU 0 after") || !strings.Contains(w, "repeat differs") {
		t.Errorf("warnings: %q", w)
	}
	if r.Comparison.Mode != results.Files || r.Comparison.Estimator != string(stats.Low) || len(r.Comparison.Cases) != 2 {
		t.Errorf("comparison %+v", r.Comparison)
	}
	for _, cc := range r.Comparison.Cases {
		if cc.Verdict == stats.Regressed || cc.Verdict == stats.Improved {
			t.Errorf("%s: the same samples compared as %s", cc.Name, cc.Verdict)
		}
	}
	moved.RepeatChosen = true
	if r, err = Against(base, analyse(t, measured(moved)), results.Files, opts); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(r.Comparison.Warnings, "\n"); strings.Contains(w, "repeat differs") {
		t.Errorf("a chosen repeat warned of: %q", w)
	}
	if _, err := Against(base, &results.Run{}, results.Files, opts); err == nil {
		t.Error("a result without programs compared")
	}
}

// A change measured in a run at ×1.4 the recalled fast phase holds its
// size at the fast phase within 1.4^±2: each bound moves away from or
// toward no change, never across it, and the verdict is judged again; a
// case whose run has no recalled phase keeps its change.
func TestHoldAtRecalled(t *testing.T) {
	blocked := func(lower, point, upper float64) results.ComparedCase {
		return results.ComparedCase{Name: "c", CaseComparison: results.CaseComparison{Test: results.BlockedTest, P: 0.001, Verdict: stats.Improved,
			Change:     results.Estimate{Point: point, Lower: lower, Upper: upper},
			Difference: results.Estimate{Point: 70 * point, Lower: 70 * lower, Upper: 70 * upper}}}
	}
	before := results.Program{Results: []results.Case{{Name: "c", Stats: &results.Summary{Loads: &results.Loads{Phase: &results.Phase{Recalled: 28, RunFloor: 39.2}}}}}}
	c := &results.Comparison{Significance: 0.05, NoiseThreshold: 0.0025, Cases: []results.ComparedCase{blocked(-0.19, -0.17, -0.15)}}
	holdAtRecalled(c, before, 2)
	got := c.Cases[0]
	if math.Abs(got.Change.Lower+0.19*1.96) > 1e-9 || math.Abs(got.Change.Upper+0.15/1.96) > 1e-9 || got.Change.Point != -0.17 || got.Verdict != stats.Improved {
		t.Errorf("change %+v, %s: want [-0.19×1.96, -0.15/1.96] around -0.17, still improved", got.Change, got.Verdict)
	}
	c.Cases = []results.ComparedCase{blocked(-0.008, -0.006, -0.004)}
	holdAtRecalled(c, before, 2)
	if v := c.Cases[0].Verdict; v != stats.WithinNoise {
		t.Errorf("-0.8 to -0.4 %% at ×1.4: upper bound %+.4f, verdict %s: want within noise of ±0.25 %%", c.Cases[0].Change.Upper, v)
	}
	c.Cases = []results.ComparedCase{blocked(-0.008, -0.006, -0.004)}
	holdAtRecalled(c, before, 0.5)
	if v := c.Cases[0].Verdict; v != stats.Improved || math.Abs(c.Cases[0].Change.Upper+0.004/math.Sqrt(1.4)) > 1e-9 {
		t.Errorf("the same at a live run's transfer, 1.4^±0.5: %+v, %s", c.Cases[0].Change, v)
	}
	before.Results[0].Stats.Loads.Phase = &results.Phase{Slowest: 1.4}
	c.Cases = []results.ComparedCase{blocked(-0.19, -0.17, -0.15)}
	holdAtRecalled(c, before, 2)
	if c.Cases[0].Change != blocked(-0.19, -0.17, -0.15).Change {
		t.Errorf("no recalled phase: the change moved to %+v", c.Cases[0].Change)
	}
}

// floorRun is a report whose floor's loads read each of floors ns on case
// "c", by the mean.
func floorRun(floors ...float64) *results.Run {
	var loads []results.Program
	for _, f := range floors {
		loads = append(loads, results.Program{Results: []results.Case{{Name: "c", Stats: &results.Summary{Estimates: results.Estimates{Mean: results.Estimate{Point: f}}}}}})
	}
	floor := loads[0]
	floor.Results[0].Stats.Loads = &results.Loads{Estimator: stats.Mean}
	floor.Placements = loads[1:]
	return &results.Run{Floor: &floor}
}

// Two runs compared over their loads' times over their floors hold, beside
// their loads' spread, RecallTransfer of how far apart the runs' floors
// were: a run whose floor read 36 ns against one at 28 is known to
// ±hypot(2 %, 0.5 ln(36/28)); runs at one floor keep their interval.
func TestWidenByFloorGap(t *testing.T) {
	compared := func() *results.Comparison {
		return &results.Comparison{Significance: 0.05, NoiseThreshold: 0.03, Cases: []results.ComparedCase{{
			Name: "c", Before: results.Estimate{Point: 70},
			CaseComparison: results.CaseComparison{Test: results.FloorLoadsTest, P: 0.001, Verdict: stats.Improved,
				Change: results.Estimate{Point: -0.06, Lower: math.Expm1(math.Log(0.94) - 0.02), Upper: math.Expm1(math.Log(0.94) + 0.02)}},
		}}}
	}
	opts := stats.CompareOptions{Options: stats.Options{Confidence: 0.95}}
	c := compared()
	widenByFloorGap(c, floorRun(28, 28), floorRun(36, 36), opts)
	want := math.Hypot(0.02, RecallTransfer*math.Log(36.0/28))
	if got := (math.Log1p(c.Cases[0].Change.Upper) - math.Log1p(c.Cases[0].Change.Lower)) / 2; math.Abs(got-want) > 1e-9 {
		t.Errorf("floors 28 and 36 ns: half-width %.4f on the log scale, want %.4f", got, want)
	}
	if v := c.Cases[0].Verdict; v == stats.Improved {
		t.Errorf("-6 %% known to ±%.1f %%: still %s", 100*want, v)
	}
	c = compared()
	widenByFloorGap(c, floorRun(28, 36), floorRun(36, 28), opts)
	if got, was := c.Cases[0].Change, compared().Cases[0].Change; math.Abs(got.Lower-was.Lower) > 1e-12 || math.Abs(got.Upper-was.Upper) > 1e-12 || c.Cases[0].Verdict != stats.Improved {
		t.Errorf("the same floors, the groups in another order: %+v, %s", got, c.Cases[0].Verdict)
	}
}

// Figures far apart, each within what a file may hold, can divide to a
// change of ±Inf, which no report can hold (the JSON writer refused
// "+Inf" and wrote nothing): the comparison is refused as bad input
// instead. Here the second program's first load read fizz at 1e-300 ns a
// run against 25, compared blocked by group.
func TestCompareRefusesNonFiniteChange(t *testing.T) {
	data, err := os.ReadFile("testdata/slope.json")
	if err != nil {
		t.Fatal(err)
	}
	base, err := results.Parse("slope.json", data)
	if err != nil {
		t.Fatal(err)
	}
	// The 527th array or number is programs[0].cases[0].stats.loads.points[0].
	tiny, err := results.Parse("tiny.json", edit(data, 527, 0, 1e-300))
	if err != nil {
		t.Fatal(err)
	}
	if got := tiny.Programs[0].Results[0].Stats.Loads.Points[0]; got != 1e-300 {
		t.Fatalf("the edit set %g, not the load's point", got)
	}
	run := *tiny
	run.Programs = []results.Program{*base.Measured(), *tiny.Measured()}
	err = CompareInterleaved(&run, fuzzOptions, phases.ChangeTransfer)
	if !errors.Is(err, ErrNotComparable) || !errors.Is(err, badinput.Err) {
		t.Fatalf("CompareInterleaved: %v, want a bad-input ErrNotComparable", err)
	}
}

// A case's time over the floor is, group by group, its loads' mean over
// the floor's measured with them, the floor's level in the run kept;
// where the groups do not match, each load over the run's level, the
// level's own uncertainty kept for the comparison to add.
func TestOverFloor(t *testing.T) {
	loads := func(points []float64, per int, half float64) *results.Summary {
		m := stat.Mean(points, nil)
		return &results.Summary{Loads: &results.Loads{Estimator: stats.Slope, Points: points, PerGroup: per,
			Estimate: results.Estimate{Point: m, Lower: m * (1 - half), Upper: m * (1 + half)}}}
	}
	floorPoints := []float64{5.1, 5.5, 5.2, 5.4}
	programPoints := []float64{20, 20.2, 20.4, 19.8, 20, 20.2, 21, 20}
	floor := results.Program{Results: []results.Case{{Name: "c", Stats: loads(floorPoints, 1, 0.04)}}}
	p := results.Program{Results: []results.Case{{Name: "c", Stats: loads(programPoints, 2, 0.01)}}}
	overFloor(&p, floor, 0.95)
	of := p.Results[0].Stats.OverFloor
	if of == nil || of.Phase == nil || math.Abs(of.Phase.RunFloor-5.3) > 1e-9 || of.Phase.RefHalf != 0 || len(of.Points) != 4 {
		t.Fatalf("over the floor by group: %+v; want the level 5.3 kept, nothing more to add, four groups", of)
	}
	for g, f := range floorPoints {
		if want := (programPoints[2*g] + programPoints[2*g+1]) / 2 / f; math.Abs(of.Points[g]-want) > 1e-12 {
			t.Errorf("group %d: %v over its floor, want %v", g, of.Points[g], want)
		}
	}
	// Three floor loads for four groups: no group has its own.
	floor.Results[0].Stats = loads(floorPoints[:3], 1, 0.04)
	overFloor(&p, floor, 0.95)
	of = p.Results[0].Stats.OverFloor
	level := stat.Mean(floorPoints[:3], nil)
	if of == nil || of.Phase == nil || math.Abs(of.Phase.RunFloor-level) > 1e-9 || math.Abs(of.Phase.RefHalf-0.04) > 1e-9 {
		t.Fatalf("over the run's level: %+v; want the level %.3f ±4 %% kept", of, level)
	}
	for k, x := range programPoints {
		if math.Abs(of.Points[k]-x/level) > 1e-12 {
			t.Errorf("load %d: %v over the floor, want %v/%.3f", k, of.Points[k], x, level)
		}
	}
	// Two runs compared over their floors: each run's level's uncertainty
	// joins the change's interval.
	run := func(level float64) *results.Run {
		q := results.Program{Results: []results.Case{{Name: "c", Stats: &results.Summary{OverFloor: &results.Loads{Phase: &results.Phase{RunFloor: level, RefHalf: 0.01}}}}}}
		return &results.Run{Floor: &results.Program{}, Programs: []results.Program{q}}
	}
	c := &results.Comparison{Significance: 0.05, NoiseThreshold: 0.03, Cases: []results.ComparedCase{{Name: "c", Before: results.Estimate{Point: 70},
		CaseComparison: results.CaseComparison{Test: results.FloorLoadsTest, Change: results.Estimate{Point: -0.06, Lower: math.Expm1(math.Log(0.94) - 0.02), Upper: math.Expm1(math.Log(0.94) + 0.02)}}}}}
	widenByFloorGap(c, run(5.3), run(5.3), stats.CompareOptions{Options: stats.Options{Confidence: 0.95}})
	want := math.Sqrt(0.02*0.02 + 2*0.01*0.01)
	if got := (math.Log1p(c.Cases[0].Change.Upper) - math.Log1p(c.Cases[0].Change.Lower)) / 2; math.Abs(got-want) > 1e-9 {
		t.Errorf("runs at one floor level, each known to ±1 %%: half-width %.4f, want %.4f", got, want)
	}
	// Floors apart within one phase, a quarter of their log ratio joins the
	// interval; across phases, half.
	for _, tc := range []struct{ after, transfer float64 }{{5.6, FineTransfer}, {7.0, RecallTransfer}} {
		c.Cases[0].Change = results.Estimate{Point: -0.06, Lower: math.Expm1(math.Log(0.94) - 0.02), Upper: math.Expm1(math.Log(0.94) + 0.02)}
		widenByFloorGap(c, run(5.3), run(tc.after), stats.CompareOptions{Options: stats.Options{Confidence: 0.95}})
		want := math.Sqrt(0.02*0.02 + 2*0.01*0.01 + math.Pow(tc.transfer*math.Log(tc.after/5.3), 2))
		if got := (math.Log1p(c.Cases[0].Change.Upper) - math.Log1p(c.Cases[0].Change.Lower)) / 2; math.Abs(got-want) > 1e-9 {
			t.Errorf("floors 5.3 and %v ns: half-width %.4f, want %.4f", tc.after, got, want)
		}
	}
}
