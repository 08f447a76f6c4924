package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimates over loads. Each load of a program is JIT-compiled to its own
// address, and loads of one object differ in speed by 1 to 7 %, each
// consistently, which more samples of one load do not average away. So a
// case over several loads stands for the mean of their estimates, its
// interval Student's t over them, as the next run's loads will vary.

// MinLoads is the fewest loads an interval over loads takes.
const MinLoads = 2

// MinGroups is the fewest groups whose means the interval is drawn over:
// two give one degree of freedom, an interval ten times their difference.
const MinGroups = 3

// Loads is a case's estimate over several loads of its program.
type Loads struct {
	// Estimator is what each load's Points stand for.
	Estimator Estimator `json:"estimator"`
	// Estimate is the mean of Points with Student's t interval over them.
	Estimate Estimate `json:"estimate"`
	// Points are each load's own estimate, in the order loaded.
	Points []float64 `json:"points"`
	// StdDev is the standard deviation of Points.
	StdDev float64 `json:"std_dev"`
	// Spread is max/min - 1 of Points.
	Spread float64 `json:"spread"`
	// PerGroup is how many loads were measured together in each group,
	// in the order of Points; 0 when all were measured together.
	PerGroup int `json:"per_group,omitempty"`
	// Within is the median relative half-width of one load's own
	// interval; 0 when unknown. Set apart from StdDev it says what
	// dominates: the loads' own noise (more time narrows it), or their
	// placement (only more loads do).
	Within float64 `json:"within,omitempty"`
	// Phase, where set, says that the machine's speed changed between the
	// groups and that Points were scaled to its fastest phase (AtPhase).
	Phase *Phase `json:"phase,omitempty"`
	// Wander, where set, is the relative standard deviation of the
	// machine's level from run to run that the interval holds besides
	// the loads' own spread (HostWander): the run met a host that changes
	// speed.
	Wander float64 `json:"host_wander,omitempty"`
}

// PhaseTolerance is how far above the fastest group's floor another
// group's may read and still be taken for the same phase of the machine.
// Here a quiet host's groups read their floors within 4 % of each other,
// and its slow phases 15 to 40 % above them.
const PhaseTolerance = 0.08

// PriorDrift is the variance, on the log scale, taken for how far the
// fast phase's floor moves from run to run while the history is too
// short to say (internal/phases' DriftKnown): a 2 % standard deviation,
// as the floors of runs in a row moved on both hosts here (5.89 to 6.20
// ns over ten runs on a Xeon, 27.0 to 28.8 ns on an EPYC). It decides
// only how far such a run follows its floor; the interval then holds the
// reference's uncertainty, as it does until the drift is known.
const PriorDrift = 0.02 * 0.02

// Phase records how a run's loads were scaled to the machine's fastest
// phase: the host slowed every program alike, for seconds at a time.
type Phase struct {
	// Slowest is the slowest group's speed factor: ×1.33 for a group that
	// ran 33 % slower than the fast phase.
	Slowest float64 `json:"slowest"`
	// Fast is how many of the Groups read the fast phase.
	Fast   int `json:"fast_groups"`
	Groups int `json:"groups"`
	// Split says the run met each speed in SplitShare of its groups or
	// more: the next run may meet the other most, and the interval spans
	// the level the other speed's groups read (AtPhase).
	Split bool `json:"split_speeds,omitempty"`
	// Other is, with Split, the mean the other speed's loads read.
	Other float64 `json:"other_speed,omitempty"`
	// RefHalf is the relative half-width the fast phase's own uncertainty
	// added to the interval.
	RefHalf float64 `json:"ref_half,omitempty"`
	// Recalled, where set, is the fast phase's floor as earlier runs on
	// this machine read it, and every figure was scaled to it from this
	// run's own fast floor, RunFloor.
	Recalled     float64 `json:"recalled_floor,omitempty"`
	RecalledRuns int     `json:"recalled_runs,omitempty"`
	RunFloor     float64 `json:"run_floor,omitempty"`
	// Share is how much of the scaling to Recalled the figures took: 1
	// across phases, within one what the history's drift says, or, with
	// DriftAssumed, a prior drift where the history was too short to say.
	Share        float64 `json:"recall_share,omitempty"`
	DriftAssumed bool    `json:"drift_assumed,omitempty"`
	// LeftOut is how many loads AtPhase left out: those of the groups at
	// the speed fewer groups met; AtSlow, where more met the slow one, the
	// run stands at its slow phase (for a recalled floor to scale, where
	// one is asked for).
	LeftOut int  `json:"left_out_loads,omitempty"`
	AtSlow  bool `json:"at_slow_phase,omitempty"`
}

// PhaseFactors is each group's speed against the machine's fast phase,
// from the empty program's estimates floors[c][g], of case c in group g.
// A group's factor is the median over the cases of its floor over the
// mean of the case's fast groups' (within PhaseTolerance of its
// fastest): a slow phase slows every floor alike, and a floor that
// misread its phase is outvoted. The phase is the fast groups', its
// half-width Student's t over their factors, at most PhaseTolerance/2.
// ok is false where fewer than MinGroups groups, or none slow.
func PhaseFactors(floors [][]float64, confidence float64) (factors []float64, phase Phase, ok bool) {
	if len(floors) == 0 || len(floors[0]) < MinGroups {
		return nil, Phase{}, false
	}
	groups := len(floors[0])
	ratios := make([][]float64, groups)
	for _, byGroup := range floors {
		if len(byGroup) != groups {
			return nil, Phase{}, false
		}
		lo := slices.Min(byGroup)
		if !(lo > 0) || math.IsInf(slices.Max(byGroup), 0) {
			return nil, Phase{}, false
		}
		var fast []float64
		for _, f := range byGroup {
			if f <= lo*(1+PhaseTolerance) {
				fast = append(fast, f)
			}
		}
		ref := stat.Mean(fast, nil)
		for g, f := range byGroup {
			ratios[g] = append(ratios[g], f/ref)
		}
	}
	var fast []float64
	for _, r := range ratios {
		slices.Sort(r)
		f := stat.Quantile(0.5, stat.Empirical, r, nil)
		factors = append(factors, f)
		if f <= 1+PhaseTolerance {
			fast = append(fast, f)
		}
	}
	if len(fast) == groups || len(fast) == 0 {
		return nil, Phase{}, false
	}
	phase = Phase{Slowest: slices.Max(factors), Fast: len(fast), Groups: groups, RefHalf: PhaseTolerance / 2}
	if n := float64(len(fast)); n > 1 {
		phase.RefHalf = min(phase.RefHalf, TQuantile(confidence, n-1)*stat.StdDev(fast, nil)/math.Sqrt(n)/stat.Mean(fast, nil))
	}
	return factors, phase, true
}

// AtPhase is OverGroupedLoads of points measured in groups of perGroup,
// at the speed most groups met (PhaseFactors, KeptLoads): the other
// groups' loads are left out, and the kept ones taken as measured, never
// one group scaled by its own floor: a slow phase slowed the floor ×1.7 to
// ×2.1 and v4's fizz ×1.5 to ×1.9 in the same groups, so a slow group
// scaled by its floor lands anywhere within that. Where neither speed
// was met by MinGroups groups, every group is divided by its speed
// factor, the interval widened by the fast phase's own uncertainty,
// phase.RefHalf.
func AtPhase(points, factors []float64, phase Phase, perGroup int, e Estimator, confidence float64) (Loads, error) {
	groups := groupsOf(points, perGroup)
	if len(groups) != len(factors) {
		return Loads{}, fmt.Errorf("%w: %d groups of loads, %d speed factors", ErrLoads, len(groups), len(factors))
	}
	if kept, atFast, ok := KeptLoads(points, perGroup, factors, phase); ok {
		l, err := OverGroupedLoads(kept, perGroup, e, confidence)
		if err != nil {
			return Loads{}, err
		}
		phase.RefHalf, phase.LeftOut, phase.AtSlow = 0, len(points)-len(kept), !atFast
		if other := min(phase.Fast, phase.Groups-phase.Fast); splits(other, phase.Groups) {
			if _, out := partition(groups, factors, atFast); len(out) > 0 {
				phase.Split, phase.Other = true, stat.Mean(out, nil)
				l = l.Spanning(phase.Other)
			}
		}
		l.Phase = &phase
		return l, nil
	}
	scaled := make([]float64, 0, len(points))
	for g, group := range groups {
		for _, x := range group {
			scaled = append(scaled, x/factors[g])
		}
	}
	l, err := OverGroupedLoads(scaled, perGroup, e, confidence)
	if err != nil {
		return Loads{}, err
	}
	l = l.Scaled(1, phase.RefHalf)
	l.Phase = &phase
	return l, nil
}

// HostWander is how far a host that changes speed moves a program's level
// from one run to the next, as a relative standard deviation, beyond what
// a run's own groups show. On a noisy Xeon guest (20 default runs, 2 s
// apart: docs/measurement-notes.md, the second and third studies of issue
// 61) each run's groups agreed within ±1 to ±3 % while the runs' levels
// spread 2.7 to 5.1 %: a run met one level for its whole length, and
// nothing in it told that level from the next run's. A run whose CPU was
// stolen, or that stood at a slower speed than one it met, takes this in
// its interval (WithWander).
const HostWander = 0.03

// FastWander is the wander of a run that met two speeds and stood at the
// faster: a slow speed is the host's contention, whose depth moves from
// run to run, while its fast one is what the host gives unhindered. On an
// AMD EPYC guest whose speed flipped within runs, six such runs read fizz
// 48.6 to 49.1 ns, while two that stood at the slow speed read 6 to 8 %
// above them.
const FastWander = 0.015

// SteadyWander is HostWander's floor on a host that met one speed and no
// steal: runs there still differ by more than their loads' own spread
// says, a level of their own for the whole run. On an AMD EPYC guest, ten
// default runs at one speed each read fizz 48.6 to 49.1 ns, none 24.8 to
// 25.2 ns, two of them at ±0.4 to ±1.0 % and 1 % off the others'
// median; on a quiet Xeon, six runs spread 0.7 to 1.7 %.
const SteadyWander = 0.0075

// RunWander is the wander a run's figures hold (WithWander), from the
// share of its measuring CPU the hypervisor stole and the speeds its
// floor met (nil: one). A run that met too few groups of either speed to
// stand on one (nothing left out) was scaled between them, and holds
// HostWander too.
func RunWander(steal float64, phase *Phase) float64 {
	switch {
	case steal >= StealToWander || phase != nil && (phase.AtSlow || phase.Split || phase.LeftOut == 0):
		return HostWander
	case phase != nil:
		return FastWander
	}
	return SteadyWander
}

// StealToWander is the share of the measuring CPU stolen by the
// hypervisor past which a run is taken to be on a host that changes
// speed.
const StealToWander = 0.01

// WithWander is l with its interval widened, in quadrature, by a
// run-to-run wander of relative standard deviation w at confidence.
func (l Loads) WithWander(w, confidence float64) Loads {
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	out := l.Scaled(1, z*w)
	out.Wander = w
	if ph := l.Phase; ph != nil && ph.Split {
		// The other speed's level moves as much from run to run.
		out = out.Spanning(ph.Other * (1 - z*w)).Spanning(ph.Other * (1 + z*w))
	}
	return out
}

// SplitShare is the share of its groups a run must meet the other speed
// in for its interval to span that speed's level too: a run that met
// the fast phase in 10 of 20 groups stood at the slow one, ×1.15 above
// the next run, which met the fast one in 16 of 22. On an EPYC guest
// whose mix of speeds moved from run to run (5 to 19 fast groups of 21),
// a quarter left a run that met the fast speed in 5 of 21 narrow at the
// slow one, ×1.25 above its neighbours: a fifth spans it (the corpus,
// docs/measurement-notes.md).
const SplitShare = 0.2

// FewGroups is the fewest groups whose share of the other speed tells
// how often it comes: in a shorter run, any group of it makes the
// interval span it. Ten runs of two first-state cases, 7 or 8 groups
// each, on a host whose mix of speeds moved between runs: three that met
// the slow speed in one group stood narrow at the fast one, and two of
// them left out the ten runs' median.
const FewGroups = 10

// splits says whether a run that met the other speed in other of its
// groups spans it (SplitShare, FewGroups).
func splits(other, groups int) bool {
	return other > 0 && (float64(other) >= SplitShare*float64(groups) || groups < FewGroups)
}

// partition is the loads of the groups at the fast phase's side atFast,
// and the others'.
func partition(groups [][]float64, factors []float64, atFast bool) (kept, other []float64) {
	for g, group := range groups {
		if (factors[g] <= 1+PhaseTolerance) == atFast {
			kept = append(kept, group...)
		} else {
			other = append(other, group...)
		}
	}
	return kept, other
}

// Spanning is l with its interval reaching level, where that lies
// outside it: the level a run's other speed read.
func (l Loads) Spanning(level float64) Loads {
	l.Estimate.Lower, l.Estimate.Upper = min(l.Estimate.Lower, level), max(l.Estimate.Upper, level)
	return l
}

// KeptLoads is points, loads in groups of perGroup, less the groups
// AtPhase leaves out by their speed factors: those of the phase fewer
// groups met (atFast where more than half the groups met the fast one).
// A run stands on the speed it met most, which the next run meets most
// too; the few groups of the other speed would move its figure by the
// ratio of the two (×0.6 to ×0.9 on a noisy Xeon guest). ok is false
// where the phase met most has fewer than MinGroups groups (AtPhase then
// divides every group by its factor), and where the groups do not match
// the factors.
func KeptLoads(points []float64, perGroup int, factors []float64, phase Phase) (kept []float64, atFast, ok bool) {
	groups := groupsOf(points, perGroup)
	atFast = 2*phase.Fast > phase.Groups
	most := phase.Groups - phase.Fast
	if atFast {
		most = phase.Fast
	}
	if len(groups) != len(factors) || most < MinGroups {
		return nil, false, false
	}
	kept, _ = partition(groups, factors, atFast)
	return kept, atFast, true
}

// WithHalf is l with its interval relHalf either side of its point,
// drawn anew from its points (FloorScaledHalf): nothing of its phase's
// reference is left in it to take out.
func (l Loads) WithHalf(relHalf float64) Loads {
	p := l.Estimate.Point
	l.Estimate = Estimate{Point: p, Lower: p - relHalf*math.Abs(p), Upper: p + relHalf*math.Abs(p)}
	if l.Phase != nil {
		ph := *l.Phase
		ph.RefHalf = 0
		l.Phase = &ph
	}
	return l
}

// Rereferenced is l, scaled by AtPhase to its run's fast phase, scaled
// on to another reference by factor, known to relHalf: the run's own
// reference divides out, and its uncertainty leaves the interval.
func (l Loads) Rereferenced(factor, relHalf float64) Loads {
	if l.Phase != nil && l.Phase.RefHalf > 0 {
		p, half := l.Estimate.Point, (l.Estimate.Upper-l.Estimate.Lower)/2
		own := math.Sqrt(max(0, half*half-(l.Phase.RefHalf*p)*(l.Phase.RefHalf*p)))
		l.Estimate = Estimate{Point: p, Lower: p - own, Upper: p + own}
	}
	out := l.Scaled(factor, relHalf)
	if out.Phase != nil {
		out.Phase.RefHalf = relHalf
	}
	return out
}

// Scaled is e times factor, its half-width widened by relHalf of the
// scaled point: a reference e was scaled to, known to that relative
// half-width.
func (e Estimate) Scaled(factor, relHalf float64) Estimate {
	p := e.Point * factor
	half := math.Hypot((e.Upper-e.Lower)/2*factor, relHalf*math.Abs(p))
	return Estimate{Point: p, Lower: p - half, Upper: p + half}
}

// Scaled is l with every point and the estimate times factor, the
// interval widened by relHalf of the scaled point: a reference the points
// were scaled to, known to that relative half-width.
func (l Loads) Scaled(factor, relHalf float64) Loads {
	out := l
	out.Points = make([]float64, len(l.Points))
	for i, x := range l.Points {
		out.Points[i] = x * factor
	}
	out.StdDev *= factor
	out.Estimate = l.Estimate.Scaled(factor, relHalf)
	if l.Phase != nil {
		ph := *l.Phase
		out.Phase = &ph
	}
	return out
}

// ErrLoads reports loads an interval cannot be drawn over.
var ErrLoads = fmt.Errorf("%w: loads", ErrTooFewSamples)

// OverLoads is the estimate over loads whose own estimates, by e, are
// points: their mean, with Student's t interval at confidence.
func OverLoads(points []float64, e Estimator, confidence float64) (Loads, error) {
	return OverGroupedLoads(points, 0, e, confidence)
}

// OverGroupedLoads is OverLoads of loads measured in groups of perGroup,
// in order (0: one group): each group was loaded, anchored and sampled
// apart, so that what a group shares (the machine's phase while it ran,
// the dispatcher's image) moves its loads together. The interval is then
// the one-way random-effects model's: the mean's variance is the mean
// square between groups over the loads, with the groups' degrees of
// freedom. Fewer than MinGroups groups are taken as loads alone.
func OverGroupedLoads(points []float64, perGroup int, e Estimator, confidence float64) (Loads, error) {
	if len(points) < MinLoads {
		return Loads{}, fmt.Errorf("%w: %d load(s), need %d", ErrLoads, len(points), MinLoads)
	}
	if !(confidence > 0 && confidence < 1) {
		return Loads{}, ErrConfidence
	}
	for _, x := range points {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Loads{}, fmt.Errorf("%w: a load's estimate is %v", ErrNonFinite, x)
		}
	}
	l := Loads{Estimator: e, Points: slices.Clone(points), StdDev: stat.StdDev(points, nil), PerGroup: perGroup}
	mean, variance, df := l.meanVariance()
	half := TQuantile(confidence, df) * math.Sqrt(variance)
	l.Estimate = Estimate{Point: mean, Lower: mean - half, Upper: mean + half}
	if lo := slices.Min(points); lo > 0 {
		l.Spread = slices.Max(points)/lo - 1
	}
	return l, nil
}

// FloorScaledHalf is the relative half-width, at confidence, of the mean
// of points (loads in groups of perGroup) once each group is divided by
// its floor's group mean to the power share (floor: the floor's loads in
// groups of floorPerGroup, as many groups): Student's t over the groups'
// log ratios. What a group's program and floor loads met alike, a phase
// or the machine's minute, divides out; what is each one's own adds.
// Taken apart, the program's loads' interval and the floor's, added as
// if independent, read ±1.8 to ±2.3 % for default runs whose scaled
// figures spread 0.4 to 0.8 %: their groups' means correlated by 0.2 to
// 0.6. ok is false for fewer than MinGroups groups, or groups that do not
// match.
func FloorScaledHalf(points []float64, perGroup int, floor []float64, floorPerGroup int, share, confidence float64) (relHalf float64, ok bool) {
	if !(confidence > 0 && confidence < 1) {
		return 0, false
	}
	pg, fg, ok := matchedGroups(points, perGroup, floor, floorPerGroup)
	if !ok {
		return 0, false
	}
	ratios := make([]float64, len(pg))
	for g := range pg {
		ratios[g] = math.Log(pg[g]) - share*math.Log(fg[g])
	}
	n := float64(len(ratios))
	half := TQuantile(confidence, n-1) * stat.StdDev(ratios, nil) / math.Sqrt(n)
	if math.IsNaN(half) || math.IsInf(half, 0) {
		return 0, false
	}
	return math.Expm1(half), true
}

// GroupRatios is each group's mean of points (loads in groups of
// perGroup) over its floor's (floor: loads in groups of floorPerGroup);
// ok is false for fewer than MinGroups groups, or groups that do not
// match (FloorScaledHalf).
func GroupRatios(points []float64, perGroup int, floor []float64, floorPerGroup int) ([]float64, bool) {
	pg, fg, ok := matchedGroups(points, perGroup, floor, floorPerGroup)
	if !ok {
		return nil, false
	}
	ratios := make([]float64, len(pg))
	for g := range pg {
		ratios[g] = pg[g] / fg[g]
	}
	return ratios, true
}

// matchedGroups is the means of points' groups and of floor's, as many
// and each whole and positive, at least MinGroups.
func matchedGroups(points []float64, perGroup int, floor []float64, floorPerGroup int) (pm, fm []float64, ok bool) {
	pg, fg := groupsOf(points, perGroup), groupsOf(floor, floorPerGroup)
	if len(pg) < MinGroups || len(pg) != len(fg) {
		return nil, nil, false
	}
	for g := range pg {
		p, f := stat.Mean(pg[g], nil), stat.Mean(fg[g], nil)
		if !(p > 0) || !(f > 0) || len(pg[g]) != perGroup || len(fg[g]) != floorPerGroup {
			return nil, nil, false
		}
		pm, fm = append(pm, p), append(fm, f)
	}
	return pm, fm, true
}

// groupsOf splits points into groups of perGroup, the last one whatever
// is left; nil for one group.
func groupsOf(points []float64, perGroup int) [][]float64 {
	if perGroup <= 0 || perGroup >= len(points) {
		return nil
	}
	var groups [][]float64
	for start := 0; start < len(points); start += perGroup {
		groups = append(groups, points[start:min(start+perGroup, len(points))])
	}
	return groups
}

// groupedVariance is the variance of the mean of grouped loads and its
// degrees of freedom (see OverGroupedLoads): MSB/N over G-1 degrees, the
// one-way random-effects model's unbiased estimate, whatever the groups
// share. The loads' spread within a group is no measure of it: each
// group's loads are spread over their code's offset on purpose, so that
// their mean, not each load, is what repeats.
func groupedVariance(groups [][]float64) (variance, df float64) {
	var n, sum float64
	for _, g := range groups {
		n += float64(len(g))
		sum += floats.Sum(g)
	}
	grand := sum / n
	var ssb float64
	for _, g := range groups {
		m := stat.Mean(g, nil)
		ssb += float64(len(g)) * (m - grand) * (m - grand)
	}
	k := float64(len(groups))
	return ssb / (k - 1) / n, k - 1
}

// TQuantile is Student's t two-sided quantile at confidence, df degrees.
func TQuantile(confidence, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + confidence) / 2)
}

// Minus is l less base, taken apart: the difference of the means, each
// mean's variance as its interval has it, Welch–Satterthwaite's df.
func (l Loads) Minus(base Loads, confidence float64) Estimate {
	mb, vb, fb := base.meanVariance()
	ma, va, fa := l.meanVariance()
	d, se := ma-mb, math.Sqrt(va+vb)
	if se == 0 {
		return Estimate{Point: d, Lower: d, Upper: d}
	}
	half := TQuantile(confidence, (va+vb)*(va+vb)/(va*va/fa+vb*vb/fb)) * se
	return Estimate{Point: d, Lower: d - half, Upper: d + half}
}

// meanVariance is l's mean, its variance and degrees of freedom: over
// MinGroups groups or more (groupedVariance), else over the loads.
func (l Loads) meanVariance() (mean, variance, df float64) {
	mean, v := stat.MeanVariance(l.Points, nil)
	variance, df = v/float64(len(l.Points)), float64(len(l.Points)-1)
	if groups := groupsOf(l.Points, l.PerGroup); len(groups) >= MinGroups {
		variance, df = groupedVariance(groups)
	}
	return mean, variance, df
}

// welchParts is after's mean less before's, its standard error, Welch's df.
func welchParts(before, after []float64) (d, se, df float64) {
	mb, vb := stat.MeanVariance(before, nil)
	ma, va := stat.MeanVariance(after, nil)
	vb, va = vb/float64(len(before)), va/float64(len(after))
	d, se = ma-mb, math.Sqrt(va+vb)
	if se == 0 {
		return d, 0, math.Inf(1)
	}
	df = (va + vb) * (va + vb) / (vb*vb/float64(len(before)-1) + va*va/float64(len(after)-1))
	return d, se, df
}

// CompareLoads compares two runs' estimates of one case, each over its own
// loads, taken at different times: Welch's t over the loads' estimates. Its
// interval holds the loads' placement and each run's noise, so that two
// separate runs of one build read no change as often as the confidence
// says, without a blanket noise threshold.
func CompareLoads(before, after Loads, opts CompareOptions) (Comparison, error) {
	if err := opts.Validate(); err != nil {
		return Comparison{}, err
	}
	if len(before.Points) < MinLoads || len(after.Points) < MinLoads {
		return Comparison{}, fmt.Errorf("%w: %d and %d loads: need %d a side", ErrCompare, len(before.Points), len(after.Points), MinLoads)
	}
	mb := stat.Mean(before.Points, nil)
	if !(mb > 0) {
		return Comparison{}, fmt.Errorf("%w: a relative change needs a positive estimate before, not %v", ErrCompare, mb)
	}
	fc, err := WelchChange(before.Points, after.Points, opts.Confidence)
	if err != nil {
		return Comparison{}, fmt.Errorf("%w: %w", ErrCompare, err)
	}
	if w := math.Hypot(before.Wander, after.Wander); w > 0 {
		fc = fc.withWander(w, mb, opts.Confidence)
	}
	if before.split() || after.split() {
		fc = fc.spanning(before.Estimate, after.Estimate)
	}
	c := Comparison{Estimator: before.Estimator, Change: fc.Change, Difference: fc.Difference, P: fc.p, Test: LoadsTest}
	// The kernel's figures of the two runs are not at hand: the change of
	// the mean and median stand for the estimator's.
	c.Mean, c.Median = c.Change, c.Change
	c.Verdict = Judge(c.P, c.Change, c.Difference, opts)
	return c, nil
}

// withWander is fc, a change between two runs at different times, with
// the level each run met on a host that changes speed (Loads.Wander):
// w, the relative standard deviation of the two levels' difference, is
// added to the change's standard error, its interval and p drawn anew
// by the normal distribution. Two runs of one build on such a host
// differed by up to 5 %, which Welch's t over each run's own loads took
// for a change (docs/measurement-notes.md).
// split says l's run met each of two speeds in enough groups for its
// interval to span both (AtPhase).
func (l Loads) split() bool { return l.Phase != nil && l.Phase.Split }

// spanning is fc with its change reaching every ratio of a point in
// after's interval to one in before's, and its difference likewise: where
// a run's figure spans two speeds, its interval is not symmetric about
// the speed it stood at, and its change holds the whole span. Where that
// reaches no change, p is 1.
func (fc FitChange) spanning(before, after Estimate) FitChange {
	if !(before.Lower > 0) {
		return fc
	}
	lo, hi := after.Lower/before.Upper-1, after.Upper/before.Lower-1
	fc.Change.Lower, fc.Change.Upper = min(fc.Change.Lower, lo), max(fc.Change.Upper, hi)
	fc.Difference.Lower = min(fc.Difference.Lower, after.Lower-before.Upper)
	fc.Difference.Upper = max(fc.Difference.Upper, after.Upper-before.Lower)
	if fc.Change.Lower <= 0 && fc.Change.Upper >= 0 {
		fc.p = 1
	}
	return fc
}

func (fc FitChange) withWander(w, before, confidence float64) FitChange {
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	widen := func(e Estimate, scale float64) Estimate {
		own := (e.Upper - e.Lower) / 2 / z
		half := z * math.Hypot(own, w*scale)
		return Estimate{Point: e.Point, Lower: e.Point - half, Upper: e.Point + half}
	}
	fc.Change = widen(fc.Change, 1+fc.Change.Point)
	fc.Difference = widen(fc.Difference, before*(1+fc.Change.Point))
	se := (fc.Change.Upper - fc.Change.Lower) / 2 / z
	if se > 0 {
		fc.p = 2 * distuv.UnitNormal.Survival(math.Abs(fc.Change.Point)/se)
	}
	return fc
}

// LoadsTest names CompareLoads' test; FloorLoadsTest the same over each
// load's time over the floor measured with it.
const (
	LoadsTest      Test = "loads_welch"
	FloorLoadsTest Test = "floor_loads_welch"
)

// CompareOverLoads compares two builds loaded several times each and
// sampled in the same rounds: the change of the mean over each build's
// loads, by Welch's t over their estimates, whose spread holds each
// load's placement and noise. Mean and Median are the changes of the
// kernel's figures per run of the first loads (beforeRuns, afterRuns),
// paired by round, as Compare gives them.
func CompareOverLoads(before, after Loads, beforeRuns, afterRuns []float64, opts CompareOptions) (Comparison, FitChange, error) {
	fc, err := WelchChange(before.Points, after.Points, opts.Confidence)
	if err != nil {
		return Comparison{}, FitChange{}, fmt.Errorf("%w: %w", ErrCompare, err)
	}
	fc.Before, fc.After, fc.Spread = before.Estimate, after.Estimate, max(before.Spread, after.Spread)
	opts.Estimator = before.Estimator
	c, err := linearComparison(fc, beforeRuns, afterRuns, opts)
	return c, fc, err
}

// CompareBlocked compares two builds whose loads were measured in the same
// groups, perGroup loads of each a group, in order (0: one group): a
// block design, its change BlockedChange's. Mean, Median: the first
// loads' kernel figures.
func CompareBlocked(before, after Loads, perGroup int, beforeRuns, afterRuns []float64, opts CompareOptions) (Comparison, error) {
	change, p, err := BlockedChange(before.Points, after.Points, perGroup, opts.Confidence)
	if err != nil {
		return Comparison{}, err
	}
	c := Comparison{Estimator: before.Estimator, P: p, Test: BlockedTest, Change: change}
	mb := before.Estimate.Point
	c.Difference = Estimate{Point: mb * c.Change.Point, Lower: mb * c.Change.Lower, Upper: mb * c.Change.Upper}
	flat := opts
	flat.Estimator = Mean
	kernel, err := Compare(beforeRuns, afterRuns, flat)
	if err != nil {
		return Comparison{}, err
	}
	c.Mean, c.Median = kernel.Mean, kernel.Median
	c.Verdict = Judge(c.P, c.Change, c.Difference, opts)
	return c, nil
}

// BlockedChange is the relative change from before's loads to after's,
// measured in the same groups, perGroup of each a group, and its p-value.
// A group's phase multiplies both builds alike, so each group's change is
// taken on the log scale, and averaged; the interval is Student's t over
// the groups' changes from MinGroups on (the spread in a group is
// deliberate), else over the loads in group and build (N-2G df).
func BlockedChange(before, after []float64, perGroup int, confidence float64) (change Estimate, p float64, err error) {
	if len(before) != len(after) {
		return Estimate{}, 1, fmt.Errorf("%w: %d loads before, %d after: a block design wants as many", ErrCompare, len(before), len(after))
	}
	bg, ag := groupsOf(before, perGroup), groupsOf(after, perGroup)
	if bg == nil || ag == nil {
		bg, ag = [][]float64{before}, [][]float64{after}
	}
	var ss, weight float64
	n, changes := 0, []float64{}
	for g := range bg {
		lb, la := logs(bg[g]), logs(ag[g])
		if lb == nil || la == nil {
			return Estimate{}, 1, fmt.Errorf("%w: a load's estimate is not positive", ErrCompare)
		}
		mb, ma := stat.Mean(lb, nil), stat.Mean(la, nil)
		changes = append(changes, ma-mb)
		for _, x := range lb {
			ss += (x - mb) * (x - mb)
		}
		for _, x := range la {
			ss += (x - ma) * (x - ma)
		}
		weight += 1/float64(len(lb)) + 1/float64(len(la))
		n += len(lb) + len(la)
	}
	k := float64(len(bg))
	df := float64(n) - 2*k
	if df < 1 {
		return Estimate{}, 1, fmt.Errorf("%w: %d loads in %d groups leave no degree of freedom", ErrCompare, n, len(bg))
	}
	d := floats.Sum(changes) / k
	se := math.Sqrt(ss / df * weight / (k * k))
	if len(changes) >= MinGroups {
		se, df = stat.StdDev(changes, nil)/math.Sqrt(k), k-1
	}
	half := TQuantile(confidence, df) * se
	return Estimate{Point: math.Expm1(d), Lower: math.Expm1(d - half), Upper: math.Expm1(d + half)}, tPValue(d, se, df), nil
}

// tPValue is Student's two-sided p of a difference d at standard error se.
func tPValue(d, se, df float64) float64 {
	switch {
	case se > 0:
		return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(d)/se)
	case d == 0:
		return 1
	}
	return 0
}

// BlockedTest names CompareBlocked's test.
const BlockedTest Test = "blocked_t"

// logs is the natural logarithm of each of xs, nil if any is not positive.
func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) {
			return nil
		}
		out[i] = math.Log(x)
	}
	return out
}
