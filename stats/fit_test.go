package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// linearCalls draws rounds of calls of repeat step·1 … step·levels, each
// taking intercept + slope·runs ns plus one-sided noise: most calls add a
// little, a few a lot, as an interrupt or a reschedule would.
func linearCalls(r *rand.Rand, rounds, levels int, step, intercept, slope float64) Timings {
	var t Timings
	for i := range rounds {
		runs := step * float64(1+i%levels)
		noise := r.ExpFloat64() * 50
		if r.IntN(20) == 0 {
			noise += 20000 * r.Float64()
		}
		t.Runs = append(t.Runs, runs)
		t.Total = append(t.Total, intercept+slope*runs+noise)
	}
	return t
}

func fitOptions() FitOptions {
	o := DefaultOptions()
	o.Resamples = 2000
	return FitOptions{Options: o}
}

// The robust slope recovers the time per run through one-sided noise that
// pulls least squares; its interval holds the truth.
func TestFitLinearRecoversSlope(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const intercept, slope = 900, 62.25
	fit, err := FitLinear(linearCalls(r, 2000, 10, 500, intercept, slope), fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !(fit.Slope.Lower <= slope && slope <= fit.Slope.Upper) || fit.Slope.Upper-fit.Slope.Lower > 0.05 {
		t.Errorf("slope %+v, want an interval of under 0.05 ns around %v", fit.Slope, slope)
	}
	if math.Abs(fit.Intercept.Point-intercept) > 100 {
		t.Errorf("intercept %v, want about %v", fit.Intercept.Point, intercept)
	}
	if len(fit.Levels) != 10 || fit.Levels[0].Runs != 500 || fit.Levels[9].N != 200 {
		t.Errorf("levels %+v", fit.Levels)
	}
	// Least squares follows the long calls: farther off, wider.
	if fit.OLS.Upper-fit.OLS.Lower <= fit.Slope.Upper-fit.Slope.Lower {
		t.Errorf("least squares %+v is no wider than the robust slope %+v", fit.OLS, fit.Slope)
	}
}

// R² is 1 - SSres/SStot of the least-squares line, as computed by hand.
func TestFitLinearR2(t *testing.T) {
	tm := Timings{Runs: []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}, Total: []float64{10, 11, 12, 13, 14, 20, 21, 22, 23, 30}}
	fit, err := FitLinear(tm, fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	alpha, beta := stat.LinearRegression(tm.Runs, tm.Total, nil, false)
	var ssRes, ssTot float64
	mean := stat.Mean(tm.Total, nil)
	for i, y := range tm.Total {
		ssRes += math.Pow(y-alpha-beta*tm.Runs[i], 2)
		ssTot += math.Pow(y-mean, 2)
	}
	if want := 1 - ssRes/ssTot; math.Abs(fit.R2-want) > 1e-12 || math.Abs(fit.OLS.Point-beta) > 1e-12 {
		t.Errorf("R² %v, slope %v; want %v, %v", fit.R2, fit.OLS.Point, want, beta)
	}
}

// A constant per-run difference between paired timings comes out exactly,
// whatever the noise they share; timings that differ by one part in a
// thousand per run are told apart.
func TestCompareFits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	before := linearCalls(r, 1000, 10, 500, 800, 60)
	shifted := Timings{Runs: before.Runs}
	for i, y := range before.Total {
		shifted.Total = append(shifted.Total, y+0.5*before.Runs[i])
	}
	c, err := comparePairedFits(before, shifted, false, fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Difference.Point-0.5) > 1e-9 || c.Difference.Upper-c.Difference.Lower > 1e-9 {
		t.Errorf("difference %+v, want exactly 0.5", c.Difference)
	}
	after := linearCalls(r, 1000, 10, 500, 800, 60.06)
	c, err = comparePairedFits(before, after, false, fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Difference.Lower <= 0 || math.Abs(c.Difference.Point-0.06) > 0.006 || c.P() >= 0.05 {
		t.Errorf("difference %+v, p %v: want 0.06 ns within 10 %%, its interval above zero", c.Difference, c.P())
	}
}

// A/A: independent draws of the same timings are not called different
// more often than the significance level allows.
func TestCompareLinearAA(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	opts := CompareOptions{Options: fitOptions().Options, Significance: 0.05, NoiseThreshold: 0.005, Estimator: Slope, Paired: true}
	flagged := 0
	const trials = 40
	for range trials {
		b, a := linearCalls(r, 500, 10, 500, 800, 60), linearCalls(r, 500, 10, 500, 800, 60)
		perRun := func(t Timings) []float64 {
			out := make([]float64, len(t.Total))
			for i := range out {
				out[i] = math.Floor(t.Total[i] / t.Runs[i])
			}
			return out
		}
		c, _, err := compareLinear([]Timings{b}, []Timings{a}, perRun(b), perRun(a), opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Test != LinearTest || c.Estimator != Slope {
			t.Fatalf("comparison %+v", c)
		}
		if c.Verdict == Regressed || c.Verdict == Improved {
			flagged++
		}
	}
	if flagged > trials/10 {
		t.Errorf("%d of %d A/A comparisons found a change", flagged, trials)
	}
}

func TestFitLinearRefuses(t *testing.T) {
	for name, tm := range map[string]Timings{
		"one level":      {Runs: []float64{5, 5, 5, 5, 5, 5}, Total: []float64{1, 2, 3, 4, 5, 6}},
		"lengths differ": {Runs: []float64{1, 2}, Total: []float64{1}},
		"few per level":  {Runs: []float64{1, 2, 1, 2}, Total: []float64{1, 2, 1, 2}},
		"non-finite":     {Runs: []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}, Total: []float64{1, 1, 1, 1, math.NaN(), 2, 2, 2, 2, 2}},
		"zero repeat":    {Runs: []float64{0, 0, 0, 0, 0, 2, 2, 2, 2, 2}, Total: []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}},
	} {
		if _, err := FitLinear(tm, fitOptions()); !errors.Is(err, ErrTimings) {
			t.Errorf("%s: %v, want ErrTimings", name, err)
		}
	}
	a := Timings{Runs: []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}, Total: []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}}
	b := Timings{Runs: []float64{2, 2, 2, 2, 2, 1, 1, 1, 1, 1}, Total: a.Total}
	if _, err := comparePairedFits(a, b, false, fitOptions()); !errors.Is(err, ErrTimings) {
		t.Errorf("paired timings of different repeats: %v, want ErrTimings", err)
	}
}

// The resample's low quantile, cut off where the weights vanish, is that
// of the resample written out in full: each level's, and, at repeats from
// PooledRuns, every call's time per run pooled.
func TestLowOfMatchesExpandedResample(t *testing.T) {
	for _, step := range []float64{100, PooledRuns} {
		pcg := rand.NewPCG(7, 8)
		r := rand.New(pcg)
		tm := linearCalls(r, 600, 3, step, 500, 10)
		d, err := newDesign(tm.Runs, 0.02)
		if err != nil {
			t.Fatal(err)
		}
		f := d.arrange(tm)
		counts := d.newResample()
		for range 50 {
			d.draw(pcg, counts)
			for l := range d.runs {
				var expanded []float64
				for i, v := range f.sorted[l] {
					for range counts[l][f.order[l][i]] {
						expanded = append(expanded, v)
					}
				}
				want := HarrellDavis(expanded, 0.02)
				if got := d.low[l].of(f.sorted[l], false, func(i int) int { return counts[l][f.order[l][i]] }); math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Fatalf("level %d: %v, want %v", l, got, want)
				}
			}
			var perRun []float64
			for l, m := range d.members {
				for i, call := range m {
					for range counts[l][i] {
						perRun = append(perRun, tm.Total[call]/d.runs[l])
					}
				}
			}
			slices.Sort(perRun)
			got := d.robust(f, counts, nil)
			if pooled := step >= PooledRuns; pooled != (got.intercept == 0) {
				t.Fatalf("repeats from %v: intercept %v", step, got.intercept)
			} else if want := HarrellDavis(perRun, 0.02); pooled && math.Abs(got.slope-want) > 1e-9*want {
				t.Fatalf("pooled slope %v, want %v", got.slope, want)
			}
		}
	}
}

// At repeats from PooledRuns the fit pools its calls: its slope is the
// time per run, high by at most a call's own cost over its runs, and
// its interval holds that.
func TestFitLinearPools(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const slope = 70.0
	fit, err := FitLinear(linearCalls(r, 40, 2, PooledRuns, 2000, slope), fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	const ownCost = 2000.0 / PooledRuns
	if fit.Intercept.Point != 0 || fit.Slope.Lower > slope+ownCost || fit.Slope.Upper < slope {
		t.Errorf("slope %+v, intercept %+v: want an interval within %v + %v, intercept 0", fit.Slope, fit.Intercept, slope, ownCost)
	}
	if len(fit.Levels) != 2 || fit.Levels[1].Runs != 2*PooledRuns {
		t.Errorf("levels %+v: want both shown", fit.Levels)
	}
}

func BenchmarkFitLinear(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	tm := linearCalls(r, 2500, 10, 500, 900, 62)
	opts := DefaultOptions()
	for b.Loop() {
		if _, err := FitLinear(tm, FitOptions{Options: opts}); err != nil {
			b.Fatal(err)
		}
	}
}

// Placements that differ among themselves widen the interval of a
// comparison by as much: two sets of the same three placements are not
// told apart, and a difference far beyond the placements' spread is.
func TestComparePlacedFits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	placed := func(offsets []float64, extra float64) []Timings {
		var ts []Timings
		base := linearCalls(r, 600, 10, 500, 800, 60)
		for _, o := range offsets {
			t := Timings{Runs: base.Runs}
			for i, y := range base.Total {
				t.Total = append(t.Total, y+(o+extra)*base.Runs[i]+r.ExpFloat64()*20)
			}
			ts = append(ts, t)
		}
		return ts
	}
	spread := []float64{-1, 0, 1}
	same, err := comparePlacedFits(placed(spread, 0), placed([]float64{1, -1, 0}, 0), false, fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !same.Placed || same.P() < 0.05 || same.Difference.Upper-same.Difference.Lower < 1 || same.Spread < 0.02 {
		t.Errorf("the same placements: %+v, p %v; want no difference, an interval over 1 ns wide", same, same.P())
	}
	slower, err := comparePlacedFits(placed(spread, 0), placed(spread, 5), false, fitOptions())
	if err != nil {
		t.Fatal(err)
	}
	if slower.P() >= 0.05 || slower.Difference.Lower <= 0 || math.Abs(slower.Difference.Point-5) > 0.5 {
		t.Errorf("5 ns slower: %+v, p %v", slower.Difference, slower.P())
	}
}

// Fits of the same rounds drew the same resamples: their difference from
// those resamples is comparePairedFits' own, to the last bit; fits of other
// rounds say so.
func TestFitMinus(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	a, b := linearCalls(r, 400, 10, 500, 800, 60), linearCalls(r, 400, 10, 500, 800, 61)
	opts := fitOptions()
	fa, err := FitLinear(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := FitLinear(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Estimator{Slope, OLS} {
		ols := e == OLS
		got, ok := fb.Minus(&fa, e, opts.Confidence)
		want, err := comparePairedFits(a, b, ols, opts)
		if err != nil || !ok || got != want.Difference {
			t.Errorf("ols %v: Minus %+v (%v), comparePairedFits %+v (%v)", ols, got, ok, want.Difference, err)
		}
	}
	other := linearCalls(r, 390, 10, 500, 800, 60)
	fo, err := FitLinear(other, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fo.Minus(&fa, Slope, opts.Confidence); ok {
		t.Error("fits of other rounds subtracted as if paired")
	}
}

// A placed comparison of fits already made is the one made anew from the
// calls, to the bit: the fits drew the same resamples.
func TestComparePlacedFitted(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	opts := fitOptions()
	base := linearCalls(r, 300, 10, 500, 800, 60)
	var timings []Timings
	var fits []*Fit
	for i := range 6 {
		tm := Timings{Runs: base.Runs}
		for j, y := range base.Total {
			tm.Total = append(tm.Total, y+float64(i%3)*0.2*base.Runs[j]+r.ExpFloat64()*30)
		}
		f, err := FitLinear(tm, opts)
		if err != nil {
			t.Fatal(err)
		}
		timings, fits = append(timings, tm), append(fits, &f)
	}
	want, err := comparePlacedFits(timings[:3], timings[3:], false, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := comparePlacedFitted(fits[:3], fits[3:], false, opts.Options)
	if err != nil || !ok {
		t.Fatalf("%v, %v", ok, err)
	}
	if got.Before != want.Before || got.After != want.After || got.Difference != want.Difference || got.P() != want.P() || !got.Placed {
		t.Errorf("from the fits %+v, anew %+v", got, want)
	}
}

// The judgement's cheap path agrees with the full one: the slope without
// intervals is the fit's point, and Welch's change of the points is the
// placed comparison's.
func TestSlopeOfAndWelchChange(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	opts := fitOptions()
	var ts []Timings
	var slopes []float64
	for i := range 4 {
		tm := linearCalls(r, 200, 10, 500, 800, 60+0.3*float64(i))
		f, err := FitLinear(tm, opts)
		if err != nil {
			t.Fatal(err)
		}
		s, err := SlopePoint(tm, false, opts)
		if err != nil || s != f.Slope.Point {
			t.Fatalf("slopeOf %v (%v), fit %v", s, err, f.Slope.Point)
		}
		ts, slopes = append(ts, tm), append(slopes, s)
	}
	for i := range ts[1:] {
		ts[i+1].Runs = ts[0].Runs
	}
	want, err := comparePlacedFits(ts[:2], ts[2:], false, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := WelchChange(slopes[:2], slopes[2:], opts.Confidence)
	if err != nil || got.Change != want.Change || got.P() != want.P() {
		t.Errorf("Welch %+v (%v), placed %+v", got.Change, err, want.Change)
	}
	if _, err := WelchChange(slopes[:1], slopes[2:], 0.95); !errors.Is(err, ErrTimings) {
		t.Errorf("one placement: %v", err)
	}
}
