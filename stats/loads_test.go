package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// Hand-computed: points 10, 12, 14 have mean 12 and standard deviation 2;
// Student's t with 2 degrees of freedom at 95 % is 4.3027, so the interval
// is 12 ± 4.3027·2/√3 = 12 ± 4.968.
func TestOverLoadsHandComputed(t *testing.T) {
	l, err := OverLoads([]float64{10, 12, 14}, Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	half := 4.302652729911275 * 2 / math.Sqrt(3)
	if !near(l.Estimate.Point, 12) || !near(l.Estimate.Lower, 12-half) || !near(l.Estimate.Upper, 12+half) {
		t.Errorf("estimate %+v, want 12 ± %.4f", l.Estimate, half)
	}
	if !near(l.StdDev, 2) || !near(l.Spread, 0.4) || l.Estimator != Slope {
		t.Errorf("sd %v, spread %v, estimator %s", l.StdDev, l.Spread, l.Estimator)
	}
}

func TestOverLoadsRefuses(t *testing.T) {
	if _, err := OverLoads([]float64{1}, Slope, 0.95); !errors.Is(err, ErrLoads) {
		t.Errorf("one load: %v, want ErrLoads", err)
	}
	if _, err := OverLoads([]float64{1, math.NaN()}, Slope, 0.95); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN: %v, want ErrNonFinite", err)
	}
	if _, err := OverLoads([]float64{1, 2}, Slope, 1); !errors.Is(err, ErrConfidence) {
		t.Errorf("confidence 1: %v, want ErrConfidence", err)
	}
}

// Groups that differ far more than their loads: the interval is the group
// means' (G-1 degrees of freedom). Groups {10, 10.2}, {14, 14.2}, {12, 12.2}:
// means 10.1, 14.1, 12.1, their s.d. 2, so the mean 12.1 ± 4.3027·2/√3.
// Ungrouped, the same six points would claim far less (±2.1).
func TestOverGroupedLoadsBetweenGroups(t *testing.T) {
	points := []float64{10, 10.2, 14, 14.2, 12, 12.2}
	l, err := OverGroupedLoads(points, 2, Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	half := 4.302652729911275 * 2 / math.Sqrt(3)
	if !near(l.Estimate.Point, 12.1) || !near(l.Estimate.Upper-l.Estimate.Point, half) {
		t.Errorf("estimate %+v, want 12.1 ± %.4f", l.Estimate, half)
	}
	flat, _ := OverLoads(points, Slope, 0.95)
	if flat.Estimate.RelativeHalfWidth() >= l.Estimate.RelativeHalfWidth() {
		t.Errorf("ungrouped ±%v not narrower than grouped ±%v", flat.Estimate.RelativeHalfWidth(), l.Estimate.RelativeHalfWidth())
	}
}

// Groups that differ less than their loads, as loads spread over their
// code's offset do: the interval is still the group means' (G-1 degrees
// of freedom), narrower than the loads' own spread would make it. Groups
// {10, 14}, {11, 13.4}, {12, 12.2}: means 12, 12.2, 12.1, their s.d. 0.1,
// so 12.1 ± 4.3027·0.1/√3.
func TestOverGroupedLoadsWithinGroups(t *testing.T) {
	points := []float64{10, 14, 11, 13.4, 12, 12.2}
	l, err := OverGroupedLoads(points, 2, Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	half := 4.302652729911275 * 0.1 / math.Sqrt(3)
	if !near(l.Estimate.Point, 12.1) || !near(l.Estimate.Upper-12.1, half) {
		t.Errorf("estimate %+v, want 12.1 ± %.4f", l.Estimate, half)
	}
	flat, _ := OverLoads(points, Slope, 0.95)
	if flat.Estimate.RelativeHalfWidth() <= l.Estimate.RelativeHalfWidth() {
		t.Errorf("ungrouped ±%v not wider than grouped ±%v", flat.Estimate.RelativeHalfWidth(), l.Estimate.RelativeHalfWidth())
	}
}

// Coverage: loads drawn with a group effect and a load effect; the
// grouped interval holds the true mean about as often as it says, the
// ungrouped one far less often.
func TestOverGroupedLoadsCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials, groups, per = 2000, 4, 4
	grouped, flat := 0, 0
	for range trials {
		var points []float64
		for range groups {
			g := r.NormFloat64() * 2 // the group's phase
			for range per {
				points = append(points, 100+g+r.NormFloat64())
			}
		}
		lg, err := OverGroupedLoads(points, per, Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		lf, _ := OverLoads(points, Slope, 0.95)
		if lg.Estimate.Lower <= 100 && 100 <= lg.Estimate.Upper {
			grouped++
		}
		if lf.Estimate.Lower <= 100 && 100 <= lf.Estimate.Upper {
			flat++
		}
	}
	if got := float64(grouped) / trials; got < 0.93 || got > 0.97 {
		t.Errorf("grouped intervals held the mean in %.3f of trials, want about 0.95", got)
	}
	if got := float64(flat) / trials; got > 0.85 {
		t.Errorf("ungrouped intervals held the mean in %.3f of trials: the group effect should have shown", got)
	}
}

// Separate runs of one build, each over its loads, read no change about as
// often as the confidence says; a 10 % change reads regressed.
func TestCompareLoads(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	opts := CompareOptions{Options: DefaultOptions(), Significance: 0.05, NoiseThreshold: 0}
	draw := func(mean float64) Loads {
		points := make([]float64, 16)
		for i := range points {
			points[i] = mean * (1 + 0.02*r.NormFloat64())
		}
		l, err := OverLoads(points, Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	claims := 0
	const trials = 1000
	for range trials {
		c, err := CompareLoads(draw(60), draw(60), opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != NoChange {
			claims++
		}
	}
	if rate := float64(claims) / trials; rate > 0.07 {
		t.Errorf("A/A: %.3f of comparisons claimed a change, want about 0.05", rate)
	}
	c, err := CompareLoads(draw(60), draw(66), opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Regressed || c.Test != LoadsTest || !(c.Change.Lower > 0.05) {
		t.Errorf("+10 %%: %+v", c)
	}
}

// A run whose figure spans two speeds claims no change smaller than its
// span against a run at either speed, though their kept loads differ.
func TestCompareLoadsSplit(t *testing.T) {
	opts := CompareOptions{Options: DefaultOptions(), Significance: 0.05}
	over := func(mean float64) Loads {
		var points []float64
		for i := range 12 {
			points = append(points, mean*(1+0.004*float64(i%3-1)))
		}
		l, err := OverLoads(points, Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	fast, slow := over(49), over(61)
	if c, err := CompareLoads(fast, slow, opts); err != nil || c.Verdict != Regressed {
		t.Fatalf("two runs at two speeds, neither spanning: %+v (%v), want the speeds told apart", c, err)
	}
	split := slow.Spanning(49)
	split.Phase = &Phase{Fast: 9, Groups: 21, Split: true, Other: 49}
	for name, pair := range map[string][2]Loads{"split before": {split, fast}, "split after": {fast, split}} {
		c, err := CompareLoads(pair[0], pair[1], opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == Regressed || c.Verdict == Improved {
			t.Errorf("%s: %s %+v, want no claim within the span", name, c.Verdict, c.Change)
		}
		if lo, hi := pair[1].Estimate.Lower/pair[0].Estimate.Upper-1, pair[1].Estimate.Upper/pair[0].Estimate.Lower-1; c.Change.Lower > lo || c.Change.Upper < hi {
			t.Errorf("%s: change [%.3f %.3f], want it to hold the span's [%.3f %.3f]", name, c.Change.Lower, c.Change.Upper, lo, hi)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// Groups in phases that multiply both builds alike: the blocked change
// finds a 2 % change that Welch over all loads cannot tell from the
// phases, and the same build against itself is no change.
func TestCompareBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	opts := CompareOptions{Options: DefaultOptions(), Significance: 0.05}
	draw := func(change float64) (Loads, Loads) {
		var b, a []float64
		for range 4 { // groups
			phase := 1 + 0.2*r.Float64()
			for range 2 {
				b = append(b, 70*phase*(1+0.005*r.NormFloat64()))
			}
			for range 2 {
				a = append(a, 70*(1+change)*phase*(1+0.005*r.NormFloat64()))
			}
		}
		lb, _ := OverLoads(b, Slope, 0.95)
		la, _ := OverLoads(a, Slope, 0.95)
		return lb, la
	}
	runs := []float64{70, 70, 70, 70, 70, 70, 70, 70, 70, 71}
	b, a := draw(0.02)
	c, err := CompareBlocked(b, a, 2, runs, runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Regressed || c.Change.Lower < 0.01 || c.Change.Upper > 0.03 || c.Test != BlockedTest {
		t.Errorf("+2 %% in phases: %+v", c)
	}
	if w, _ := CompareLoads(b, a, opts); w.Change.Lower < 0.01 && w.Change.Upper-w.Change.Lower <= c.Change.Upper-c.Change.Lower {
		t.Errorf("Welch over all loads [%v %v] no wider than blocked [%v %v]", w.Change.Lower, w.Change.Upper, c.Change.Lower, c.Change.Upper)
	}
	claims := 0
	for range 200 {
		b, a := draw(0)
		c, err := CompareBlocked(b, a, 2, runs, runs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == Regressed || c.Verdict == Improved {
			claims++
		}
	}
	if claims > 20 {
		t.Errorf("A/A: %d of 200 claimed a change", claims)
	}
	if _, err := CompareBlocked(b, Loads{Points: []float64{1}}, 2, runs, runs, opts); err == nil {
		t.Error("groups that do not match: no error")
	}
}

// A group whose floor read 30 % slow in every case has its loads scaled
// back by it; one case's floor that misread the phase is outvoted.
func TestPhaseFactors(t *testing.T) {
	factors, phase, ok := PhaseFactors([][]float64{{20, 26, 20}, {10, 13, 10}, {10, 6, 10}}, 0.95)
	if !ok || len(factors) != 3 || !near(factors[0], 1) || !near(factors[1], 1.3) || !near(factors[2], 1) {
		t.Fatalf("factors %v, %v; want 1, 1.3, 1", factors, ok)
	}
	if phase.Fast != 2 || phase.Groups != 3 || !near(phase.Slowest, 1.3) || phase.RefHalf != 0 {
		t.Errorf("phase %+v, want 2 of 3 groups fast, the slowest ×1.3, the fast ones agreeing", phase)
	}
	l, err := AtPhase([]float64{10, 10, 13, 13, 10, 10}, factors, phase, 2, Slope, 0.95)
	if err != nil || l.Phase == nil || !near(l.Estimate.Point, 10) || !near(l.Estimate.Lower, 10) || !near(l.Estimate.Upper, 10) {
		t.Errorf("scaled %+v, %v; want 10 exactly", l.Estimate, err)
	}
	// Floors within PhaseTolerance of each other: one phase, nothing to
	// scale; two groups cannot tell a phase from a placement.
	if _, _, ok := PhaseFactors([][]float64{{20, 21, 20.5}}, 0.95); ok {
		t.Error("steady floors gave factors")
	}
	if _, _, ok := PhaseFactors([][]float64{{20, 26}}, 0.95); ok {
		t.Error("two groups gave factors")
	}
	if _, _, ok := PhaseFactors([][]float64{{0, 20, 26}}, 0.95); ok {
		t.Error("a zero floor gave factors")
	}
	if _, err := AtPhase([]float64{1, 2, 3, 4, 5}, []float64{1, 1}, phase, 2, Slope, 0.95); !errors.Is(err, ErrLoads) {
		t.Errorf("groups and factors apart: %v, want ErrLoads", err)
	}
}

// With MinGroups fast groups or more, the slow groups' loads are left
// out, not scaled by a floor that slowed by another factor than the
// program: the figure is the fast groups' as measured, its interval theirs.
func TestAtPhaseLeavesOutSlowGroups(t *testing.T) {
	// The floor slowed ×1.8 in the second group, the program ×1.6.
	// One slow group of twelve: fewer than SplitShare, in a run of
	// FewGroups or more, so no span.
	factors, phase, ok := PhaseFactors([][]float64{{5, 9, 5.1, 5, 5.2, 5.1, 5, 5.05, 5.1, 5, 5.15, 5.05}}, 0.95)
	if !ok || phase.Fast != 11 {
		t.Fatalf("factors %v, %+v, %v: want 11 fast groups", factors, phase, ok)
	}
	points := []float64{20, 20.4, 32, 32.6, 20.2, 20, 20.6, 20.2, 20, 20.2, 20.1, 20.3,
		20.2, 20.1, 20, 20.3, 20.1, 20.2, 20.4, 20, 20.2, 20.3, 20.1, 20.2}
	l, err := AtPhase(points, factors, phase, 2, Slope, 0.95)
	if err != nil || l.Phase == nil || l.Phase.LeftOut != 2 || l.Phase.RefHalf != 0 {
		t.Fatalf("%+v, %v: want the slow group's 2 loads left out, no reference's uncertainty", l.Phase, err)
	}
	fast := slices.Concat(points[:2], points[4:])
	want, _ := OverGroupedLoads(fast, 2, Slope, 0.95)
	if l.Estimate != want.Estimate || len(l.Points) != 22 {
		t.Errorf("estimate %+v over %d loads, want the fast groups' own %+v", l.Estimate, len(l.Points), want.Estimate)
	}
	// Scaled by its floor, the slow group would have read 32.3/1.8 = 17.9,
	// below every fast load, and pulled the figure down with it.
	if l.Estimate.Point < 20 {
		t.Errorf("estimate %v, below every fast load", l.Estimate.Point)
	}
	// In a run of fewer than FewGroups groups, one group of the other
	// speed is enough to span it: the share of so few says little.
	factors, phase, _ = PhaseFactors([][]float64{{5, 9, 5.1, 5, 5.2, 5.1}}, 0.95)
	short := []float64{20, 20.4, 32, 32.6, 20.2, 20, 20.6, 20.2, 20, 20.2, 20.1, 20.3}
	if l, err := AtPhase(short, factors, phase, 2, Slope, 0.95); err != nil || !l.Phase.Split || l.Estimate.Upper < 32 {
		t.Errorf("%+v, %+v, %v: one slow group of six, want the interval to span it", l.Estimate, l.Phase, err)
	}
	// Two fast groups of six cannot stand alone: the four slow ones stand
	// for the run, as measured, for the phase history to scale.
	factors, phase, _ = PhaseFactors([][]float64{{5, 9, 9.2, 5.1, 9.1, 8.9}}, 0.95)
	points = []float64{20, 20.4, 32, 32.6, 32.2, 32.4, 20.2, 20, 32.6, 32, 32.4, 32.2}
	l, err = AtPhase(points, factors, phase, 2, Slope, 0.95)
	if err != nil || l.Phase == nil || !l.Phase.AtSlow || l.Phase.LeftOut != 4 || len(l.Points) != 8 || l.Estimate.Point < 32 {
		t.Errorf("%+v, %+v, %v: want the 4 fast loads left out, the slow groups' 32.3 as measured", l.Estimate, l.Phase, err)
	}
}

// Runs that meet a slow phase in some of their groups, which slows the
// program and the floor alike by 30 %, hold the fast phase's cost about
// as often as the confidence says once scaled, with intervals a fraction
// as wide as the phases make them unscaled.
func TestAtPhaseCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const trials, groups, per = 2000, 12, 2
	scaled, phased := 0, 0
	var scaledHalf, unscaledHalf []float64
	for range trials {
		var points, floors []float64
		for g := range groups {
			speed := 1.0
			if g > 0 && r.Float64() < 0.15 { // the first group meets the fast phase
				speed = 1.3
			}
			floors = append(floors, 25*speed*(1+0.01*r.NormFloat64()))
			for range per {
				points = append(points, 100*speed*(1+0.02*r.NormFloat64()))
			}
		}
		factors, phase, ok := PhaseFactors([][]float64{floors}, 0.95)
		if !ok {
			continue // every group met the fast phase
		}
		phased++
		l, err := AtPhase(points, factors, phase, per, Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		// A run of too few fast groups stands at its slow phase, which
		// the phase history scales later.
		want := 100.0
		if l.Phase.AtSlow {
			want = 130
		}
		if l.Estimate.Lower <= want && want <= l.Estimate.Upper {
			scaled++
		}
		if l.Phase.Split {
			// Each speed met in a quarter of the groups or more: the
			// interval spans both speeds' levels, whichever the next
			// run meets most.
			if !(l.Estimate.Lower <= 105 && l.Estimate.Upper >= 120) {
				t.Errorf("a split run's interval %+v does not span both speeds (100, 130)", l.Estimate)
			}
			continue
		}
		u, _ := OverGroupedLoads(points, per, Slope, 0.95)
		scaledHalf = append(scaledHalf, l.Estimate.RelativeHalfWidth())
		unscaledHalf = append(unscaledHalf, u.Estimate.RelativeHalfWidth())
	}
	if got := float64(scaled) / float64(phased); got < 0.93 {
		t.Errorf("scaled intervals held the fast cost in %.3f of trials, want at least 0.93", got)
	}
	slices.Sort(scaledHalf)
	slices.Sort(unscaledHalf)
	if len(scaledHalf) < phased/10 {
		t.Fatalf("%d runs of %d with a clear majority speed", len(scaledHalf), phased)
	}
	if s, u := scaledHalf[len(scaledHalf)/2], unscaledHalf[len(unscaledHalf)/2]; s > u/2 {
		t.Errorf("median half-width ±%.2f %% scaled, ±%.2f %% unscaled: scaling should halve it at least", 100*s, 100*u)
	}
}

// Scaled on to another reference, loads leave their run's own reference
// uncertainty out of the interval and take the new one's.
func TestRereferenced(t *testing.T) {
	factors, phase, _ := PhaseFactors([][]float64{{20, 26, 21}}, 0.95)
	l, err := AtPhase([]float64{10, 11, 13, 14.3, 10.5, 10.5}, factors, phase, 2, Slope, 0.95)
	if err != nil || l.Phase == nil || l.Phase.RefHalf == 0 {
		t.Fatalf("%+v, %v: want a phase with the reference's uncertainty", l, err)
	}
	bare, _ := OverGroupedLoads(l.Points, 2, Slope, 0.95)
	r := l.Rereferenced(0.5, 0)
	if !near(r.Estimate.Point, bare.Estimate.Point/2) || !near(r.Estimate.Upper-r.Estimate.Lower, (bare.Estimate.Upper-bare.Estimate.Lower)/2) {
		t.Errorf("rereferenced %+v, want the bare estimate %+v halved", r.Estimate, bare.Estimate)
	}
}

// A difference of grouped loads takes each side's variance from its
// groups, as its own interval does: loads spread within each group, as
// placements over code offsets are, leave it as narrow as the groups'
// means agree. Over loads alone it would be some ten times wider.
func TestLoadsMinusGrouped(t *testing.T) {
	base, err := OverGroupedLoads([]float64{10, 14, 11, 13.4, 12, 12.2}, 2, Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OverGroupedLoads([]float64{20, 24, 21, 23.4, 22, 22.2}, 2, Slope, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	d := l.Minus(base, 0.95)
	// Each mean's variance 0.01/3 over 2 df: Welch–Satterthwaite gives 4.
	half := 2.7764451051977987 * math.Sqrt(2*0.01/3)
	if !near(d.Point, 10) || !near(d.Upper-d.Point, half) {
		t.Errorf("difference %+v, want 10 ± %.4f", d, half)
	}
	flatBase, _ := OverLoads(base.Points, Slope, 0.95)
	flat, _ := OverLoads(l.Points, Slope, 0.95)
	if f := flat.Minus(flatBase, 0.95); f.Upper-f.Point < 5*half {
		t.Errorf("over loads alone ±%.3f, want far wider than ±%.3f", f.Upper-f.Point, half)
	}
}

// A program's groups that move with the floor's lose that move once
// divided by it; groups that move on their own keep it, the floor's
// added; and the half-width is Student's t over the groups' log ratios,
// by hand.
func TestFloorScaledHalf(t *testing.T) {
	moves := []float64{1.00, 1.04, 0.97, 1.02, 0.99, 1.05}
	var with, apart, floor []float64
	for g, m := range moves {
		floor = append(floor, 5*m)
		with = append(with, 20*m*1.001, 20*m*0.999)
		apart = append(apart, 20*moves[(g+3)%len(moves)], 20*moves[(g+3)%len(moves)])
	}
	together, ok := FloorScaledHalf(with, 2, floor, 1, 1, 0.95)
	if !ok || together > 1e-9 {
		t.Errorf("groups that move with the floor: ±%.4f %% (ok %v), want ±0", 100*together, ok)
	}
	own, ok := FloorScaledHalf(apart, 2, floor, 1, 0, 0.95)
	if !ok {
		t.Fatal("not computed")
	}
	var logs []float64
	for g := range moves {
		logs = append(logs, math.Log(apart[2*g]))
	}
	want := math.Expm1(TQuantile(0.95, 5) * stat.StdDev(logs, nil) / math.Sqrt(6))
	if math.Abs(own-want) > 1e-12 {
		t.Errorf("share 0: ±%.4f %%, want Student's t over the groups' logs, ±%.4f %%", 100*own, 100*want)
	}
	scaled, _ := FloorScaledHalf(apart, 2, floor, 1, 1, 0.95)
	if scaled <= own {
		t.Errorf("groups that move on their own, divided by the floor's: ±%.3f %%, want more than their own ±%.3f %%", 100*scaled, 100*own)
	}
	if _, ok := FloorScaledHalf(with[:4], 2, floor[:2], 1, 1, 0.95); ok {
		t.Error("two groups: computed")
	}
	if _, ok := FloorScaledHalf(with, 2, floor[:5], 1, 1, 0.95); ok {
		t.Error("six groups of the program against five of the floor: computed")
	}
}

// A run stands on the speed most of its groups met: three fast groups of
// eight are left out (they would move the figure by the ratio of the two
// speeds, as the next run need not), five of eight stand for the run.
func TestAtPhaseTheSpeedMostGroupsMet(t *testing.T) {
	floors := []float64{5, 9, 9.1, 5.1, 9, 5, 9.2, 8.9}
	factors, phase, ok := PhaseFactors([][]float64{floors}, 0.95)
	if !ok || phase.Fast != 3 {
		t.Fatalf("factors %v, %+v, %v: want 3 fast groups of 8", factors, phase, ok)
	}
	var points []float64
	for _, f := range floors {
		points = append(points, f*4, f*4+0.2)
	}
	l, err := AtPhase(points, factors, phase, 2, Slope, 0.95)
	if err != nil || !l.Phase.AtSlow || l.Phase.LeftOut != 6 || l.Estimate.Point < 35 {
		t.Errorf("%+v, %+v, %v: want the 3 fast groups' 6 loads left out, the slow groups' ~36 as measured", l.Estimate, l.Phase, err)
	}
	floors = []float64{5, 9, 5.1, 5, 9, 5, 9.2, 5.1}
	factors, phase, _ = PhaseFactors([][]float64{floors}, 0.95)
	points = points[:0]
	for _, f := range floors {
		points = append(points, f*4, f*4+0.2)
	}
	l, err = AtPhase(points, factors, phase, 2, Slope, 0.95)
	if err != nil || l.Phase.AtSlow || l.Phase.LeftOut != 6 || l.Estimate.Point > 21 {
		t.Errorf("%+v, %+v, %v: want the 3 slow groups left out, the fast ones' ~20 as measured", l.Estimate, l.Phase, err)
	}
}

// The wander of a host that changes speed widens an interval in
// quadrature, and two runs of one build whose levels differ by it are no
// change; without it, Welch's t over each run's tight loads calls 5 % a
// change.
func TestWanderHoldsALevelBetweenRuns(t *testing.T) {
	tight := func(level float64) Loads {
		var pts []float64
		for i := range 16 {
			pts = append(pts, level*(1+0.002*float64(i%4-2)))
		}
		l, err := OverLoads(pts, Slope, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	before, after := tight(52), tight(49.4) // 5 % apart
	w := before.WithWander(0.03, 0.95)
	if w.Wander != 0.03 || !(w.Estimate.RelativeHalfWidth() > 0.058 && w.Estimate.RelativeHalfWidth() < 0.062) {
		t.Errorf("widened to ±%.2f %% (wander %g): want about 1.96 × 3 %%", 100*w.Estimate.RelativeHalfWidth(), w.Wander)
	}
	opts := CompareOptions{Options: DefaultOptions(), Significance: 0.05, NoiseThreshold: 0.01}
	plain, err := CompareLoads(before, after, opts)
	if err != nil || plain.Verdict != Improved {
		t.Errorf("without wander: %v, %v; want improved", plain.Verdict, err)
	}
	held, err := CompareLoads(before.WithWander(0.03, 0.95), after.WithWander(0.03, 0.95), opts)
	if err != nil || held.Verdict == Improved || held.Verdict == Regressed {
		t.Errorf("with a 3 %% wander each: %v (change %+v, p %.3f), %v; want no change claimed", held.Verdict, held.Change, held.P, err)
	}
	if !(held.Change.Lower < 0 && held.Change.Upper > 0) {
		t.Errorf("change %+v: want an interval that holds zero", held.Change)
	}
}
