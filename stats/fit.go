package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Linear sampling's statistics. A case's samples are calls of a repeat
// from a few levels, each with its wall time; the time per run is the
// slope of total time over repeat, the call's fixed cost the intercept.
// Least squares goes through every sample (with R²); the robust fit, the
// headline, through each level's low quantile: the machine's noise only
// adds time to a call, so a level's low quantile is its time when the
// machine added nothing. The bootstrap resamples calls within each level
// (the design, chosen before any call); rounds of one index were taken
// together for every unit, so resampling index lists keeps the pairing.

// ErrTimings reports timings a fit cannot use.
var ErrTimings = errors.New("cannot fit")

// Timings are the samples of linear sampling: the i-th call ran Runs[i]
// times and took Total[i] ns of wall time.
type Timings struct {
	Runs  []float64
	Total []float64
}

// Fit is the estimate of the time per run from timings.
type Fit struct {
	// Slope is the robust fit's slope, ns per run.
	Slope Estimate `json:"slope"`
	// Intercept is the robust fit's intercept: what a call costs beyond
	// its runs, ns.
	Intercept Estimate `json:"intercept"`
	// OLS and OLSIntercept are least squares through every sample; R2 is
	// its coefficient of determination, 1 - SSres/SStot around the mean.
	OLS          Estimate `json:"ols_slope"`
	OLSIntercept Estimate `json:"ols_intercept"`
	R2           float64  `json:"r2"`
	// Levels are the points the robust fit goes through.
	Levels        []Level `json:"levels"`
	LevelQuantile float64 `json:"level_quantile"`

	// The slopes of every resample, in the order drawn, and what decides
	// the draws: fits of timings taken in the same rounds, with the same
	// options, drew the same resamples, so their paired difference needs
	// no bootstrap of its own (Fit.Minus).
	slopes, olsSlopes []float64
	draws             uint64
}

// Level is one repeat level: its repeat, how many calls it has, and the
// low quantile of their totals.
type Level struct {
	Runs  float64 `json:"runs"`
	N     int     `json:"n"`
	Total float64 `json:"low_total_ns"`
}

// FitOptions are the options of a fit.
type FitOptions struct {
	Options
	// LevelQuantile is the quantile of each level the robust fit goes
	// through; 0 means the low estimator's, Options.LowQuantile. Measured
	// here on rungs one instruction apart, the 0.02-quantile gave the
	// steadiest slope from run to run and intervals of paired differences
	// as narrow as the median's (docs/measurement-notes.md).
	LevelQuantile float64
}

func (o FitOptions) levelQuantile() float64 {
	if o.LevelQuantile == 0 {
		return o.lowQuantile()
	}
	return o.LevelQuantile
}

// design is the levels of a set of timings: which calls belong to which.
type design struct {
	runs    []float64 // each level's repeat, ascending
	members [][]int   // each level's call indices
	low     []hdWeights
	// self[l] maps each member of level l to itself, for drawing.
	self [][]int32
	// pooled, where every level repeats PooledRuns or more, weighs all
	// calls' time per run; call i is at pooledAt[i] (level, member).
	pooled   *hdWeights
	pooledAt [][2]int
}

// PooledRuns is the repeat from which a call's own cost (microseconds)
// is under 0.05 % of its runs', and the fit pools its calls' time per
// run: calls of milliseconds mix the machine's phases, and the short
// levels' calls, pooled, find the fast one more often. At repeat 1000000
// eight loads of v4's fizz spread 2.3 % so, 4.5 % by the line.
const PooledRuns = 100000

// weightTail is the weight a resample's low quantile may leave out.
const weightTail = 1e-13

// MinPerLevel is the fewest calls a level needs for its low quantile.
const MinPerLevel = 5

func newDesign(runs []float64, q float64) (*design, error) {
	byRuns := map[float64][]int{}
	for i, r := range runs {
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("%w: call %d ran %v times", ErrTimings, i, r)
		}
		byRuns[r] = append(byRuns[r], i)
	}
	d := &design{}
	for r := range byRuns {
		d.runs = append(d.runs, r)
	}
	slices.Sort(d.runs)
	if len(d.runs) < 2 {
		return nil, fmt.Errorf("%w: %d repeat level(s), need at least 2", ErrTimings, len(d.runs))
	}
	for _, r := range d.runs {
		m := byRuns[r]
		if len(m) < MinPerLevel {
			return nil, fmt.Errorf("%w: %d calls of repeat %v, need at least %d", ErrTimings, len(m), r, MinPerLevel)
		}
		d.members, d.low = append(d.members, m), append(d.low, newHDWeights(len(m), q))
		d.self = append(d.self, identity(len(m)))
		for i := range m {
			d.pooledAt = append(d.pooledAt, [2]int{len(d.members) - 1, i})
		}
	}
	if d.runs[0] >= PooledRuns {
		pooled := newHDWeights(len(runs), q)
		d.pooled = &pooled
	}
	return d, nil
}

// fitted is one unit's timings arranged by level: each level's totals in
// ascending order, and which member each came from; pooled, every call's
// time per run in ascending order, and which (index into pooledAt).
type fitted struct {
	sorted      [][]float64
	order       [][]int // order[l][i]: the member (index into members[l]) of sorted[l][i]
	pooled      []float64
	pooledOrder []int
}

func (d *design) arrange(t Timings) fitted {
	f := fitted{sorted: make([][]float64, len(d.runs)), order: make([][]int, len(d.runs))}
	for l, m := range d.members {
		totals := make([]float64, len(m))
		for i, call := range m {
			totals[i] = t.Total[call]
		}
		f.order[l] = sortedOrder(totals)
		f.sorted[l] = gather(totals, f.order[l])
	}
	if d.pooled != nil {
		perRun := make([]float64, len(d.pooledAt))
		for i, at := range d.pooledAt {
			perRun[i] = t.Total[d.members[at[0]][at[1]]] / d.runs[at[0]]
		}
		f.pooledOrder = sortedOrder(perRun)
		f.pooled = gather(perRun, f.pooledOrder)
	}
	return f
}

// line is a fitted line.
type line struct{ intercept, slope float64 }

// resample holds, for every level, how often each member was drawn.
type resample [][]int

// robust fits the line through each level's low quantile under counts
// (nil: every member once); pooled, its slope is the pooled calls' low
// quantile and its intercept 0.
func (d *design) robust(f fitted, counts resample, levels []Level) line {
	var sx, sy, sxx, sxy float64
	for l, x := range d.runs {
		if levels == nil && d.pooled != nil {
			break // pooled, the levels are only shown: a resample skips them
		}
		q := d.low[l].of(f.sorted[l], counts == nil, func(i int) int { return counts[l][f.order[l][i]] })
		if levels != nil {
			levels[l] = Level{Runs: x, N: len(d.members[l]), Total: q}
		}
		sx, sy, sxx, sxy = sx+x, sy+q, sxx+x*x, sxy+x*q
	}
	if d.pooled != nil {
		return line{slope: d.pooled.of(f.pooled, counts == nil, func(i int) int {
			at := d.pooledAt[f.pooledOrder[i]]
			return counts[at[0]][at[1]]
		})}
	}
	return solve(float64(len(d.runs)), sx, sy, sxx, sxy)
}

// of is the Harrell–Davis quantile of sorted, each value once (all), or
// as often as count of its sorted position says: a value drawn c times
// takes the weights of the c sorted positions it fills.
func (w hdWeights) of(sorted []float64, all bool, count func(int) int) float64 {
	if all {
		return w.weightedSum(sorted)
	}
	cum, reach := w.cdf, w.reach
	pos, base, sum := 0, math.NaN(), 0.0
	for i, v := range sorted {
		c := count(i)
		if c == 0 {
			continue
		}
		if math.IsNaN(base) {
			base = v // distances from the smallest, as weightedSum
		}
		sum += (cum[pos+c] - cum[pos]) * (v - base)
		if pos += c; pos >= reach {
			break
		}
	}
	return base + sum
}

// ols fits least squares through every call under counts.
func (d *design) ols(t Timings, counts resample) line {
	var n, sx, sy, sxx, sxy float64
	for l, x := range d.runs {
		for i, call := range d.members[l] {
			c := 1.0
			if counts != nil {
				c = float64(counts[l][i])
			}
			y := t.Total[call]
			n, sx, sy, sxx, sxy = n+c, sx+c*x, sy+c*y, sxx+c*x*x, sxy+c*x*y
		}
	}
	return solve(n, sx, sy, sxx, sxy)
}

// solve is least squares from its sums.
func solve(n, sx, sy, sxx, sxy float64) line {
	mx, my := sx/n, sy/n
	slope := (sxy/n - mx*my) / (sxx/n - mx*mx)
	return line{intercept: my - slope*mx, slope: slope}
}

// draw fills counts with a resample of every level's members.
func (d *design) draw(pcg *rand.PCG, counts resample) {
	for l, m := range d.members {
		clear(counts[l])
		newIndexSource(pcg, len(m)).count(counts[l], d.self[l], len(m))
	}
}

func (d *design) newResample() resample {
	counts := make(resample, len(d.members))
	for l, m := range d.members {
		counts[l] = make([]int, len(m))
	}
	return counts
}

func checkTimings(t Timings) error {
	if len(t.Runs) != len(t.Total) {
		return fmt.Errorf("%w: %d repeats for %d totals", ErrTimings, len(t.Runs), len(t.Total))
	}
	for i, y := range t.Total {
		// A call runs at least once, and at most as often as the kernel's
		// 32-bit repeat says; each run within MaxSample.
		if runs := t.Runs[i]; !(runs >= 1 && runs <= math.MaxUint32) {
			return fmt.Errorf("%w: call %d ran %v times", ErrTimings, i, runs)
		}
		if !(math.Abs(y) <= MaxSample*t.Runs[i]) {
			return fmt.Errorf("%w: call %d took %v: %w", ErrTimings, i, y, ErrNonFinite)
		}
	}
	return nil
}

// FitLinear fits the time per run to timings, with bootstrap intervals.
// It needs at least two repeat levels of MinPerLevel calls each.
func FitLinear(t Timings, opts FitOptions) (Fit, error) {
	if err := opts.Validate(); err != nil {
		return Fit{}, err
	}
	if err := checkTimings(t); err != nil {
		return Fit{}, err
	}
	d, err := newDesign(t.Runs, opts.levelQuantile())
	if err != nil {
		return Fit{}, err
	}
	f := d.arrange(t)
	fit := Fit{Levels: make([]Level, len(d.runs)), LevelQuantile: opts.levelQuantile()}
	robust, ols := d.robust(f, nil, fit.Levels), d.ols(t, nil)
	fit.R2 = rSquared(t, ols)

	pcg := rand.NewPCG(opts.Seed, pcgStream)
	counts := d.newResample()
	slopes, intercepts := make([]float64, opts.Resamples), make([]float64, opts.Resamples)
	olsSlopes, olsIntercepts := make([]float64, opts.Resamples), make([]float64, opts.Resamples)
	for k := range opts.Resamples {
		d.draw(pcg, counts)
		rl, ol := d.robust(f, counts, nil), d.ols(t, counts)
		slopes[k], intercepts[k], olsSlopes[k], olsIntercepts[k] = rl.slope, rl.intercept, ol.slope, ol.intercept
	}
	c := opts.Confidence
	fit.slopes, fit.olsSlopes, fit.draws = slices.Clone(slopes), slices.Clone(olsSlopes), drawsOf(t.Runs, opts)
	fit.Slope = percentileInterval(robust.slope, slopes, c)
	fit.Intercept = percentileInterval(robust.intercept, intercepts, c)
	fit.OLS = percentileInterval(ols.slope, olsSlopes, c)
	fit.OLSIntercept = percentileInterval(ols.intercept, olsIntercepts, c)
	return fit, nil
}

// drawsOf is a fingerprint of what decides a fit's resamples: the repeat
// of every call, the seed, the number of resamples and the quantile.
func drawsOf(runs []float64, opts FitOptions) uint64 {
	h := fnv.New64a()
	for _, x := range append([]float64{float64(opts.Seed), float64(opts.Resamples), opts.levelQuantile()}, runs...) {
		_ = binary.Write(h, binary.LittleEndian, x)
	}
	return h.Sum64()
}

// Minus is the paired difference f - base of the slopes e names (Slope,
// or OLS for least squares) of two fits of timings taken in the same rounds, with
// the percentile interval of the resamples both drew alike, at confidence.
// It says false when the fits did not draw alike (other rounds or
// options, or read back from a file): use comparePairedFits then.
func (f *Fit) Minus(base *Fit, e Estimator, confidence float64) (Estimate, bool) {
	if f.draws == 0 || f.draws != base.draws || len(f.slopes) != len(base.slopes) {
		return Estimate{}, false
	}
	a, b, pa, pb := f.slopes, base.slopes, f.Slope.Point, base.Slope.Point
	if e == OLS {
		a, b, pa, pb = f.olsSlopes, base.olsSlopes, f.OLS.Point, base.OLS.Point
	}
	diffs := make([]float64, len(a))
	for k := range a {
		diffs[k] = a[k] - b[k]
	}
	return percentileInterval(pa-pb, diffs, confidence), true
}

// rSquared is 1 - SSres/SStot of l over every call.
func rSquared(t Timings, l line) float64 {
	return stat.RSquared(t.Runs, t.Total, nil, l.intercept, l.slope)
}

// FitChange is how the slope of after differs from that of before.
type FitChange struct {
	// Before and After are each side's slope: with several placements,
	// the mean of theirs.
	Before, After Estimate
	Change        Estimate // after/before - 1
	Difference    Estimate // after - before, ns per run
	// Spread is the largest relative difference between two placements
	// of one side, max/min - 1; 0 with one placement each.
	Spread float64
	// Placed says the difference's interval and p are Welch's over the
	// placements, not the bootstrap's.
	Placed  bool
	changes []float64
	p       float64
}

// comparePairedFits estimates the change of the robust slope (or, with ols, of
// least squares) from before to after, for timings of the same rounds:
// it resamples whole rounds within each level, so that what a round's
// calls shared stays shared.
func comparePairedFits(before, after Timings, ols bool, opts FitOptions) (FitChange, error) {
	return comparePlacedFits([]Timings{before}, []Timings{after}, ols, opts)
}

// comparePlacedFits is comparePairedFits for sides measured in several
// placements each (loads of one program at different addresses), all in
// the same rounds. Each side's slope is the mean of its placements'. Two
// loads of a program with branches differed here by up to 5 %, each
// consistently (docs/measurement-notes.md): a random effect of the load,
// not noise that more samples average away. So with two placements or more
// a side, the interval and p of the difference are Welch's t over the
// placements' slopes, whose spread holds the placement's effect and each
// slope's own noise; the bootstrap gives each side's interval.
func comparePlacedFits(before, after []Timings, ols bool, opts FitOptions) (FitChange, error) {
	if err := opts.Validate(); err != nil {
		return FitChange{}, err
	}
	if len(before) == 0 || len(after) == 0 {
		return FitChange{}, fmt.Errorf("%w: a side without timings", ErrTimings)
	}
	all := append(slices.Clone(before), after...)
	for _, t := range all {
		if err := checkTimings(t); err != nil {
			return FitChange{}, err
		}
		if !slices.Equal(t.Runs, all[0].Runs) {
			return FitChange{}, fmt.Errorf("%w: the paired timings' repeats differ", ErrTimings)
		}
	}
	d, err := newDesign(all[0].Runs, opts.levelQuantile())
	if err != nil {
		return FitChange{}, err
	}
	arranged := make([]fitted, len(all))
	for i, t := range all {
		arranged[i] = d.arrange(t)
	}
	points := make([]float64, len(all))
	resampled := make([][]float64, len(all))
	slope := func(i int, counts resample) float64 {
		if ols {
			return d.ols(all[i], counts).slope
		}
		return d.robust(arranged[i], counts, nil).slope
	}
	for i := range all {
		points[i], resampled[i] = slope(i, nil), make([]float64, opts.Resamples)
	}
	pcg := rand.NewPCG(opts.Seed, pcgStream)
	counts := d.newResample()
	for k := range opts.Resamples {
		d.draw(pcg, counts)
		for i := range all {
			resampled[i][k] = slope(i, counts)
		}
	}
	return placedChange(points, resampled, len(before), opts.Options)
}

// comparePlacedFitted is comparePlacedFits of fits already made: fits of
// the same rounds drew alike, so each placement's slope of every resample
// is already known. It says false when the fits did not draw alike.
func comparePlacedFitted(before, after []*Fit, ols bool, opts Options) (FitChange, bool, error) {
	all := append(slices.Clone(before), after...)
	if len(before) == 0 || len(after) == 0 {
		return FitChange{}, false, nil
	}
	points := make([]float64, len(all))
	resampled := make([][]float64, len(all))
	for i, f := range all {
		if f.draws == 0 || f.draws != all[0].draws || len(f.slopes) != opts.Resamples {
			return FitChange{}, false, nil
		}
		points[i], resampled[i] = f.Slope.Point, f.slopes
		if ols {
			points[i], resampled[i] = f.OLS.Point, f.olsSlopes
		}
	}
	fc, err := placedChange(points, resampled, len(before), opts)
	return fc, true, err
}

// placedChange is the change from the mean of the first nb placements'
// slopes to the mean of the others', given each placement's slope and its
// slope in every resample of the rounds. Each side's interval resamples
// the rounds and, with several placements, the placements too; the
// difference's is Welch's over the placements when each side has two or
// more, else the bootstrap's.
func placedChange(points []float64, resampled [][]float64, nb int, opts Options) (FitChange, error) {
	b, a := stat.Mean(points[:nb], nil), stat.Mean(points[nb:], nil)
	if !(b > 0) {
		return FitChange{}, fmt.Errorf("%w: a relative change needs a positive slope before, not %v", ErrTimings, b)
	}
	fc := FitChange{Spread: max(spread(points[:nb]), spread(points[nb:]))}
	r := rand.New(rand.NewPCG(opts.Seed^placementStream, pcgStream))
	n := len(resampled[0])
	befores, afters := make([]float64, n), make([]float64, n)
	changes, diffs := make([]float64, n), make([]float64, n)
	for k := range n {
		sb, sa := meanOfDrawn(r, resampled[:nb], k), meanOfDrawn(r, resampled[nb:], k)
		befores[k], afters[k], changes[k], diffs[k] = sb, sa, sa/sb-1, sa-sb
	}
	c := opts.Confidence
	fc.Before, fc.After = percentileInterval(b, befores, c), percentileInterval(a, afters, c)
	if nb >= 2 && len(points)-nb >= 2 {
		fc.welch(points[:nb], points[nb:], c)
		return fc, nil
	}
	fc.Difference = percentileInterval(a-b, diffs, c)
	fc.Change = percentileInterval(a/b-1, changes, c)
	fc.changes = changes
	return fc, nil
}

// placementStream seeds the draws of placements apart from those of calls.
const placementStream = 0x91ace

// welch sets the difference of the means of after and before, its
// relative change (to before's mean), their intervals and p from Welch's
// t-test.
func (fc *FitChange) welch(before, after []float64, confidence float64) {
	mb := stat.Mean(before, nil)
	d, se, df := welchParts(before, after)
	fc.Difference, fc.Change = Estimate{d, d, d}, Estimate{d / mb, d / mb, d / mb}
	if fc.p = tPValue(d, se, df); se == 0 {
		return
	}
	half := TQuantile(confidence, df) * se
	fc.Difference = Estimate{Point: d, Lower: d - half, Upper: d + half}
	fc.Change = Estimate{Point: d / mb, Lower: (d - half) / mb, Upper: (d + half) / mb}
	fc.Placed = true
}

// meanOfDrawn is the mean of resample k of as many placements drawn with
// replacement as there are; of the one placement's when there is one.
func meanOfDrawn(r *rand.Rand, placements [][]float64, k int) float64 {
	if len(placements) == 1 {
		return placements[0][k]
	}
	sum := 0.0
	for range placements {
		sum += placements[r.IntN(len(placements))][k]
	}
	return sum / float64(len(placements))
}

// spread is max/min - 1 of positive xs.
func spread(xs []float64) float64 {
	return slices.Max(xs)/slices.Min(xs) - 1
}

// compareFits compares timings taken at different times: each side is
// resampled on its own.
func compareFits(before, after Timings, ols, paired bool, opts FitOptions) (FitChange, error) {
	if paired {
		return comparePairedFits(before, after, ols, opts)
	}
	if err := opts.Validate(); err != nil {
		return FitChange{}, err
	}
	pcg := rand.NewPCG(opts.Seed, pcgStream)
	points := make([]float64, 2)
	resampled := make([][]float64, 2)
	for i, t := range []Timings{before, after} {
		var err error
		if points[i], resampled[i], err = resampledSlopes(t, ols, opts, pcg); err != nil {
			return FitChange{}, err
		}
	}
	return placedChange(points, resampled, 1, opts.Options)
}

// resampledSlopes is the slope of t and its slope in each of
// opts.Resamples resamples of the calls within each level, drawn from pcg.
func resampledSlopes(t Timings, ols bool, opts FitOptions, pcg *rand.PCG) (float64, []float64, error) {
	if err := checkTimings(t); err != nil {
		return 0, nil, err
	}
	d, err := newDesign(t.Runs, opts.levelQuantile())
	if err != nil {
		return 0, nil, err
	}
	f := d.arrange(t)
	slope := func(counts resample) float64 {
		if ols {
			return d.ols(t, counts).slope
		}
		return d.robust(f, counts, nil).slope
	}
	counts := d.newResample()
	resampled := make([]float64, opts.Resamples)
	for k := range resampled {
		d.draw(pcg, counts)
		resampled[k] = slope(counts)
	}
	return slope(nil), resampled, nil
}

// P is the two-sided p-value of the change: Welch's, or the bootstrap's.
func (fc FitChange) P() float64 {
	if fc.Placed {
		return fc.p
	}
	return bootstrapP(fc.changes)
}

// Of returns the estimate of e: over the loads when the program was
// loaded several times, else a slope from the fit, else from the samples'
// estimates. Samples without a fit (taken one run a call, or
// flat) stand for a slope by their low estimate.
func (s Summary) Of(e Estimator) Estimate {
	if s.Loads != nil && s.Loads.Estimator == e {
		return s.Loads.Estimate
	}
	return s.Own(e)
}

// Own is the estimate of e of this load alone, whatever Loads says.
func (s Summary) Own(e Estimator) Estimate {
	switch {
	case !e.Fitted():
		return s.Estimates.Of(e)
	case s.Fit == nil:
		return s.Estimates.Low
	case e == OLS:
		return s.Fit.OLS
	}
	return s.Fit.Slope
}

// The tests of compareLinear: with one placement a side, and with more.
const (
	LinearTest Test = "slope_bootstrap"
	PlacedTest Test = "placements_welch"
)

// compareLinear compares two cases of linear sampling by the slope
// opts.Estimator names (Slope or OLS), each side given by its placements'
// timings (one or more; see comparePlacedFits, which needs opts.Paired).
// Mean and Median are the changes of the kernel's figures per run of the
// first placements (beforeRuns, afterRuns), as Compare gives them.
func compareLinear(before, after []Timings, beforeRuns, afterRuns []float64, opts CompareOptions) (Comparison, FitChange, error) {
	est := opts.estimator()
	if !est.Fitted() {
		return Comparison{}, FitChange{}, fmt.Errorf("%w: estimator %s is not a slope", ErrCompare, est)
	}
	if !opts.Paired && (len(before) != 1 || len(after) != 1) {
		return Comparison{}, FitChange{}, fmt.Errorf("%w: placements are compared in the same rounds only", ErrCompare)
	}
	fo := FitOptions{Options: opts.Options}
	var fc FitChange
	var err error
	if opts.Paired {
		fc, err = comparePlacedFits(before, after, est == OLS, fo)
	} else {
		fc, err = compareFits(before[0], after[0], est == OLS, false, fo)
	}
	if err != nil {
		return Comparison{}, FitChange{}, fmt.Errorf("%w: %w", ErrCompare, err)
	}
	c, err := linearComparison(fc, beforeRuns, afterRuns, opts)
	return c, fc, err
}

// compareLinearFitted is compareLinear, paired, of fits already made of the
// same rounds (see comparePlacedFitted); it says false when they were not.
func compareLinearFitted(before, after []*Fit, beforeRuns, afterRuns []float64, opts CompareOptions) (Comparison, FitChange, bool, error) {
	est := opts.estimator()
	if !est.Fitted() || !opts.Paired {
		return Comparison{}, FitChange{}, false, nil
	}
	fc, ok, err := comparePlacedFitted(before, after, est == OLS, opts.Options)
	if !ok || err != nil {
		return Comparison{}, FitChange{}, ok, err
	}
	c, err := linearComparison(fc, beforeRuns, afterRuns, opts)
	return c, fc, true, err
}

// linearComparison is the Comparison of a slope's change: its change,
// difference, p and verdict, with the kernel's figures' changes of mean
// and median beside.
func linearComparison(fc FitChange, beforeRuns, afterRuns []float64, opts CompareOptions) (Comparison, error) {
	flat := opts
	flat.Estimator = Mean
	c, err := Compare(beforeRuns, afterRuns, flat)
	if err != nil {
		return Comparison{}, err
	}
	c.Estimator, c.Change, c.Difference = opts.estimator(), fc.Change, fc.Difference
	c.P, c.Test = fc.P(), LinearTest
	if fc.Placed {
		c.Test = PlacedTest
	}
	c.Verdict = Judge(c.P, c.Change, c.Difference, opts)
	return c, nil
}

// SlopePoint is the robust slope of timings (or, with ols, least squares),
// without intervals: what a judgement between rounds can afford.
func SlopePoint(t Timings, ols bool, opts FitOptions) (float64, error) {
	if err := checkTimings(t); err != nil {
		return 0, err
	}
	d, err := newDesign(t.Runs, opts.levelQuantile())
	if err != nil {
		return 0, err
	}
	if ols {
		return d.ols(t, nil).slope, nil
	}
	return d.robust(d.arrange(t), nil, nil).slope, nil
}

// WelchChange is the change from the mean of before's placements' slopes
// to the mean of after's, with Welch's interval at confidence; each side
// needs two placements or more.
func WelchChange(before, after []float64, confidence float64) (FitChange, error) {
	if len(before) < 2 || len(after) < 2 {
		return FitChange{}, fmt.Errorf("%w: Welch's test needs two placements a side, not %d and %d", ErrTimings, len(before), len(after))
	}
	if mb := stat.Mean(before, nil); !(mb > 0) {
		return FitChange{}, fmt.Errorf("%w: a relative change needs a positive slope before, not %v", ErrTimings, mb)
	}
	var fc FitChange
	fc.welch(before, after, confidence)
	return fc, nil
}
