package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrNotComparable is returned when two results share no case.
var ErrNotComparable = badinput.New("results not comparable")

// CompareInterleaved compares the two programs of a run that measured them
// together, pairing their samples round by round; a run scaled to the
// recalled fast phase holds each change there within the phase's spread,
// transfer its exponent (phases.ChangeTransfer, LiveChangeTransfer).
func CompareInterleaved(r *results.Run, opts stats.CompareOptions, transfer float64) error {
	return CompareInterleavedContext(context.Background(), r, opts, transfer)
}

// CompareInterleavedContext is CompareInterleaved that stops between
// cases once ctx is done, with ctx's error.
func CompareInterleavedContext(ctx context.Context, r *results.Run, opts stats.CompareOptions, transfer float64) error {
	if len(r.Programs) != 2 {
		return fmt.Errorf("%w: a before/after run holds 2 programs, this one %d", ErrNotComparable, len(r.Programs))
	}
	opts.Paired = true
	if q := r.Environment.Resolution; q > 0 {
		opts.Quantum = q // the timer's own quantum
	}
	c, err := compare(ctx, r.Programs[0], r.Programs[1], opts)
	if err != nil {
		return err
	}
	c.Mode = results.Interleaved
	holdAtRecalled(c, r.Programs[0], transfer)
	c.ChangeSpread = changeSpread(r, transfer)
	if err := checkFinite(c); err != nil {
		return err
	}
	r.Comparison = c
	return nil
}

// Against returns a report of current compared with an earlier result:
// the last program measured in each (the only one, or the "after" build),
// case by case, by name. Samples taken at different times cannot be
// paired, so the comparison uses the unpaired test, and warns when the two
// were taken in different environments.
func Against(base, current *results.Run, mode string, opts stats.CompareOptions) (*results.Run, error) {
	return AgainstContext(context.Background(), base, current, mode, opts)
}

// AgainstContext is Against that stops between cases once ctx is done,
// with ctx's error.
func AgainstContext(ctx context.Context, base, current *results.Run, mode string, opts stats.CompareOptions) (*results.Run, error) {
	if len(base.Programs) == 0 || len(current.Programs) == 0 {
		return nil, fmt.Errorf("%w: a result holds no program", ErrNotComparable)
	}
	before, after := *base.Measured(), *current.Measured()
	opts.Paired = false
	var warnings []string
	if opts.Estimator == "" {
		// The files decide: the estimator they were measured for.
		opts.Estimator = current.Settings.ChosenEstimator()
		if b := base.Settings.ChosenEstimator(); b != opts.Estimator {
			warnings = append(warnings, fmt.Sprintf("estimators differ: %s before, %s after: compared by %s", b, opts.Estimator, opts.Estimator))
		}
	}
	if q := max(base.Environment.Resolution, current.Environment.Resolution); q > 0 {
		opts.Quantum = q // the coarser of the two timers
	}
	c, err := compare(ctx, before, after, opts)
	if errors.Is(err, stats.ErrTimings) || errors.Is(err, stats.ErrTooFewSamples) || errors.Is(err, stats.ErrNonFinite) {
		// The files' samples, not the machine: bad input.
		return nil, fmt.Errorf("%w: %w", ErrNotComparable, err)
	}
	if err != nil {
		return nil, err
	}
	c.Mode = mode
	widenByFloorGap(c, base, current, opts)
	if err := checkFinite(c); err != nil {
		return nil, err
	}
	c.Warnings = append(c.Warnings, warnings...)
	c.Warnings = append(c.Warnings, environmentDiffers(base.Environment, current.Environment)...)
	out := *current
	out.Programs = []results.Program{before, after}
	out.Comparison = c
	out.PooledFrom = pooledFrom(&out)
	return &out, nil
}

func compare(ctx context.Context, before, after results.Program, opts stats.CompareOptions) (*results.Comparison, error) {
	c := &results.Comparison{
		Before: describe(before), After: describe(after),
		Significance: opts.Significance, NoiseThreshold: opts.NoiseThreshold, Quantum: opts.Quantum,
		Estimator: string(opts.Estimator),
	}
	for _, b := range before.Results {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(after.Results, func(a results.Case) bool { return a.Name == b.Name })
		if i < 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("case %s only measured before", b.Name))
			continue
		}
		a := after.Results[i]
		if b.Stats == nil || a.Stats == nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("case %s: too few samples to compare", b.Name))
			continue
		}
		c.Warnings = append(c.Warnings, caseWarnings(b, a)...)
		caseOpts := caseOptions(c, b, a, opts)
		cc, err := compareCase(c, before, after, b, a, opts, caseOpts)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", b.Name, err)
		}
		c.Test = cc.Test
		c.Cases = append(c.Cases, cc)
	}
	for _, a := range after.Results {
		if !slices.ContainsFunc(before.Results, func(b results.Case) bool { return b.Name == a.Name }) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("case %s only measured after", a.Name))
		}
	}
	if len(c.Cases) == 0 {
		return nil, fmt.Errorf("%w: no case measured on both sides", ErrNotComparable)
	}
	if before.Verifier != nil && after.Verifier != nil {
		c.Verifier = &results.VerifierChange{Before: *before.Verifier, After: *after.Verifier,
			BeforeTimes: before.VerificationTimes(), AfterTimes: after.VerificationTimes()}
	}
	return c, nil
}

// caseWarnings say what makes a case's two sides less alike than their
// names: other packets, or the restorer on one side only.
func caseWarnings(b, a results.Case) []string {
	var out []string
	if b.Frame != a.Frame {
		out = append(out, fmt.Sprintf("case %s: the packets differ", b.Name))
	}
	if b.Restored != a.Restored {
		out = append(out, fmt.Sprintf("case %s: measured through the restorer on one side only: its figures hold the restoring, compare nets of the floor", b.Name))
	}
	return out
}

// caseOptions are opts for one case, its estimator the one both sides
// can be compared by (the low one where a slope is not to be had on
// both), recorded in c, with a warning when it is not the one asked for.
func caseOptions(c *results.Comparison, b, a results.Case, opts stats.CompareOptions) stats.CompareOptions {
	caseOpts := opts
	switch linear := bothLinear(b, a); {
	case opts.Estimator == "" && linear:
		caseOpts.Estimator = stats.Slope
	case opts.Estimator.Fitted() && (b.Single || a.Single):
		c.Warnings = append(c.Warnings, fmt.Sprintf("case %s: measured one run a call (a program changes its frame): compared by the low estimator", b.Name))
		caseOpts.Estimator = stats.Low
	case opts.Estimator.Fitted() && !linear:
		c.Warnings = append(c.Warnings, fmt.Sprintf("case %s: not sampled linearly on both sides: compared by the low estimator", b.Name))
		caseOpts.Estimator = stats.Low
	}
	if caseOpts.Estimator != "" {
		c.Estimator = string(caseOpts.Estimator)
	}
	return caseOpts
}

// compareCase compares one case's sides by what both have: their loads
// (blocked by group when paired, else over the floor where both have
// it), their placements' slopes, or their samples.
func compareCase(c *results.Comparison, before, after results.Program, b, a results.Case, opts, caseOpts stats.CompareOptions) (results.ComparedCase, error) {
	cc := results.ComparedCase{Name: b.Name, Source: b.Source, Before: b.Stats.Of(caseOpts.Estimator), After: a.Stats.Of(caseOpts.Estimator)}
	var sc stats.Comparison
	var err error
	bl, al := loadsOf(b, caseOpts.Estimator), loadsOf(a, caseOpts.Estimator)
	switch {
	case bl != nil && al != nil && opts.Paired:
		// Blocked by group: what a group's rounds shared divides out;
		// by Welch where the loads do not pair up (a cancelled run).
		if len(bl.Points) == len(al.Points) {
			sc, err = stats.CompareBlocked(*bl, *al, bl.PerGroup, b.Samples, a.Samples, caseOpts)
		} else {
			sc, _, err = stats.CompareOverLoads(*bl, *al, b.Samples, a.Samples, caseOpts)
		}
		cc.Before, cc.After, cc.Placements, cc.PlacementSpread = bl.Estimate, al.Estimate, min(len(bl.Points), len(al.Points)), max(bl.Spread, al.Spread)
	case bl != nil && al != nil:
		if caseOpts.ThresholdChosen {
			caseOpts.NoiseThreshold = stats.AcrossLoadsNoiseThreshold
			c.NoiseThreshold = caseOpts.NoiseThreshold
		}
		// By the time over the floor where both runs have it: the
		// machine's speed, which differs between runs, divides out.
		// On a host that changes speed (withHostWander) a load's time over
		// its group's floor moves with the phase, as programs and the floor
		// slow unequally: each run's level, with the wander it holds,
		// compares there. On a steady host the floor divides the machine's
		// speed out, and each side keeps its wander.
		byb, bya := bl, al
		moving := bl.Wander > stats.SteadyWander || al.Wander > stats.SteadyWander
		if b.Stats.OverFloor != nil && a.Stats.OverFloor != nil && !moving {
			fb, fa := *b.Stats.OverFloor, *a.Stats.OverFloor
			fb.Wander, fa.Wander = bl.Wander, al.Wander
			byb, bya = &fb, &fa
		}
		sc, err = stats.CompareLoads(*byb, *bya, caseOpts)
		if byb != bl {
			sc.Test = stats.FloorLoadsTest
		}
		cc.Before, cc.After, cc.Placements, cc.PlacementSpread = bl.Estimate, al.Estimate, min(len(bl.Points), len(al.Points)), max(bl.Spread, al.Spread)
	case caseOpts.Estimator.Fitted():
		sc, err = compareSlopes(&cc, before, after, b, a, opts.Paired, caseOpts)
	default:
		sc, _, err = caseOpts.Estimator.Method().Compare(stats.Side{Samples: b.Samples}, stats.Side{Samples: a.Samples}, caseOpts)
	}
	cc.CaseComparison = CaseComparison(sc)
	if b.Action != a.Action {
		cc.ActionBefore, cc.ActionAfter = b.Action, a.Action
	}
	cc.InsnsBefore, cc.InsnsAfter = b.Instructions, a.Instructions
	return cc, err
}

// compareSlopes compares a case by its placements' slopes on each side.
func compareSlopes(cc *results.ComparedCase, before, after results.Program, b, a results.Case, paired bool, opts stats.CompareOptions) (stats.Comparison, error) {
	bs, as := placementsOf(before, b.Name), placementsOf(after, a.Name)
	if !paired && len(bs) > 0 && len(as) > 0 {
		// Runs at different times, one of them over a single load
		// (saved before loads were measured, or a loaded program):
		// each side's first load.
		bs, as = bs[:1], as[:1]
	}
	sc, fc, err := compareLinear(bs, as, opts)
	if len(bs) > 1 || len(as) > 1 {
		cc.Before, cc.After, cc.Placements, cc.PlacementSpread = fc.Before, fc.After, min(len(bs), len(as)), fc.Spread
	}
	return sc, err
}

// compareLinear compares one case's slopes, given by its placements'
// cases on each side, over the rounds all have when they were paired.
func compareLinear(bs, as []results.Case, opts stats.CompareOptions) (stats.Comparison, stats.FitChange, error) {
	n := math.MaxInt
	if opts.Paired {
		for _, c := range append(slices.Clone(bs), as...) {
			n = min(n, len(c.Runs))
		}
	}
	return opts.Estimator.Method().Compare(sideOf(bs, n), sideOf(as, n), opts)
}

// placementsOf returns the case of that name in every placement of p, the
// first load's first; the placements that lack it are left out.
func placementsOf(p results.Program, name string) []results.Case {
	var cases []results.Case
	for _, q := range append([]results.Program{p}, p.Placements...) {
		if i := slices.IndexFunc(q.Results, func(c results.Case) bool { return c.Name == name }); i >= 0 && len(q.Results[i].Runs) > 0 {
			cases = append(cases, q.Results[i])
		}
	}
	return cases
}

// loadsOf is a case's estimate over its loads by e, nil when it has none.
func loadsOf(c results.Case, e stats.Estimator) *stats.Loads {
	if c.Stats == nil || c.Stats.Loads == nil || c.Stats.Loads.Estimator != e {
		return nil
	}
	return c.Stats.Loads
}

func bothLinear(b, a results.Case) bool { return len(b.Runs) > 0 && len(a.Runs) > 0 }

func describe(p results.Program) string {
	return p.Info.Name + " in " + p.Object
}

// environmentDiffers lists what makes two environments' figures
// incomparable: another kernel, CPU model, CPU or repeat count.
func environmentDiffers(a, b results.Environment) []string {
	var w []string
	if a.Kernel != b.Kernel {
		w = append(w, fmt.Sprintf("kernels differ: %s before, %s after", a.Kernel, b.Kernel))
	}
	if a.CPUModel != b.CPUModel {
		w = append(w, fmt.Sprintf("CPU models differ: %s before, %s after", a.CPUModel, b.CPUModel))
	}
	if a.CPU != b.CPU {
		w = append(w, fmt.Sprintf("measured on CPU %d before, CPU %d after: the CPUs of one machine can differ by 40 %%", a.CPU, b.CPU))
	}
	if a.Timer != b.Timer {
		w = append(w, fmt.Sprintf("timers differ: %s before, %s after", a.Timer, b.Timer))
	}
	// A repeat xdpmicro chose, or linear sampling's range, differs by
	// design from run to run; only two repeats both given are worth a word.
	if a.Repeat != b.Repeat && !a.RepeatChosen && !b.RepeatChosen && a.Sampling.Mode != results.SamplingLinear && b.Sampling.Mode != results.SamplingLinear {
		w = append(w, fmt.Sprintf("repeat differs: %d before, %d after", a.Repeat, b.Repeat))
	}
	if a.Sampling.Mode != b.Sampling.Mode {
		w = append(w, fmt.Sprintf("sampling differs: %s before, %s after", orFlat(a.Sampling.Mode), orFlat(b.Sampling.Mode)))
	}
	if a.RunTimeStats != b.RunTimeStats {
		w = append(w, fmt.Sprintf("the kernel's run-time statistics were %s before and %s after: each run with them pays two clock reads", onOff(a.RunTimeStats), onOff(b.RunTimeStats)))
	}
	if a.Hostname != b.Hostname {
		w = append(w, fmt.Sprintf("hosts differ: %s before, %s after", a.Hostname, b.Hostname))
	}
	return w
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// orFlat names a sampling mode, flat for results saved before there was
// a choice.
func orFlat(mode string) string {
	if mode == "" {
		return results.SamplingFlat
	}
	return mode
}

// holdAtRecalled widens every change of c, its before side measured in a
// run scaled to the recalled fast phase (stats.Phase.Recalled), by
// phases.ChangeSpread with the transfer exponent given, and judges it
// again: what the comparison says holds at the phase its figures are
// scaled to.
func holdAtRecalled(c *results.Comparison, before results.Program, transfer float64) {
	opts := stats.CompareOptions{Significance: c.Significance, NoiseThreshold: c.NoiseThreshold, Quantum: c.Quantum}
	for i := range c.Cases {
		cc := &c.Cases[i]
		j := slices.IndexFunc(before.Results, func(b results.Case) bool { return b.Name == cc.Name })
		if j < 0 || before.Results[j].Stats == nil || before.Results[j].Stats.Loads == nil || before.Results[j].Stats.Loads.Phase == nil {
			continue
		}
		ph := before.Results[j].Stats.Loads.Phase
		spread := phases.ChangeSpread(ph.RunFloor, ph.Recalled, transfer)
		if spread > 1 && cc.Test == results.BlockedTest {
			cc.Change, cc.Difference = phases.Widen(cc.Change, spread), phases.Widen(cc.Difference, spread)
			cc.Verdict = stats.Judge(cc.P, cc.Change, cc.Difference, opts)
		}
	}
}

// widenByFloorGap widens every change c judged over the two runs' loads
// over their floors (stats.FloorLoadsTest) by a share of how far apart
// the runs' floors were (FineTransfer within one phase, RecallTransfer
// across): a phase does not slow a program as much as
// the floor, so a load's time over its floor is itself a function of the
// phase. Six default v4 runs against a baseline saved here, their floors'
// groups moving between 27 and 40 ns, claimed 2 changes of 30 (-6.9 and
// -8.1 %, in the run whose every group met the slow phase) without it.
func widenByFloorGap(c *results.Comparison, base, current *results.Run, opts stats.CompareOptions) {
	opts.Significance, opts.NoiseThreshold, opts.Quantum = c.Significance, c.NoiseThreshold, c.Quantum
	z := distuv.UnitNormal.Quantile((1 + opts.Confidence) / 2)
	for i := range c.Cases {
		cc := &c.Cases[i]
		fb, hb, okb := floorOf(base, cc.Name)
		fa, ha, oka := floorOf(current, cc.Name)
		if cc.Test != results.FloorLoadsTest || !okb || !oka || !(cc.Change.Lower > -1) {
			continue
		}
		d := math.Log1p(cc.Change.Point)
		// Every load of a run is divided by one floor level: its own
		// uncertainty, each run's, moves the change too.
		own := (math.Log1p(cc.Change.Upper) - math.Log1p(cc.Change.Lower)) / 2
		// As the recall's scaling takes it: within one phase the programs
		// followed the floor by 0.85 to 1.16 of its move between runs on a
		// Xeon host (0.73 to 1.05 on an EPYC one), FineTransfer; across
		// phases by as little as half, RecallTransfer.
		transfer := RecallTransfer
		if phases.SamePhase(fa, fb) {
			transfer = FineTransfer
		}
		half := math.Sqrt(own*own + math.Pow(transfer*math.Log(fa/fb), 2) + ha*ha + hb*hb)
		cc.Change.Lower, cc.Change.Upper = math.Expm1(d-half), math.Expm1(d+half)
		mb := cc.Before.Point
		cc.Difference = results.Estimate{Point: mb * cc.Change.Point, Lower: mb * cc.Change.Lower, Upper: mb * cc.Change.Upper}
		if half > 0 {
			cc.P = 2 * distuv.UnitNormal.CDF(-math.Abs(d)/(half/z))
		}
		cc.Verdict = stats.Judge(cc.P, cc.Change, cc.Difference, opts)
	}
}

// floorOf is the geometric mean of r's floor loads' own estimates of the
// named case, as measured: the phase the run's loads met.
func floorOf(r *results.Run, name string) (level, relHalf float64, ok bool) {
	if r.Floor == nil {
		return 0, 0, false
	}
	if len(r.Programs) > 0 {
		p := r.Programs[0]
		k := slices.IndexFunc(p.Results, func(c results.Case) bool { return c.Name == name })
		if k >= 0 && p.Results[k].Stats != nil {
			if of := p.Results[k].Stats.OverFloor; of != nil && of.Phase != nil && of.Phase.RunFloor > 0 {
				return of.Phase.RunFloor, of.Phase.RefHalf, true // the level its loads were divided by
			}
		}
	}
	// Saved before the level was kept: each load over its group's floor.
	j := slices.IndexFunc(r.Floor.Results, func(c results.Case) bool { return c.Name == name })
	if j < 0 || r.Floor.Results[j].Stats == nil || r.Floor.Results[j].Stats.Loads == nil {
		return 0, 0, false
	}
	points, ok := ownPoints(append([]results.Program{*r.Floor}, r.Floor.Placements...), name, r.Floor.Results[j].Stats.Loads.Estimator)
	if !ok || len(points) == 0 || slices.ContainsFunc(points, func(x float64) bool { return !(x > 0) }) {
		return 0, 0, false
	}
	return stat.GeometricMean(points, nil), 0, true
}

// checkFinite refuses a comparison with a figure that is not finite:
// saved figures far apart (1e-300 ns against 25) can divide to one, which
// no report can hold.
func checkFinite(c *results.Comparison) error {
	for _, cc := range c.Cases {
		figures := []float64{cc.P, cc.PlacementSpread}
		for _, e := range []results.Estimate{cc.Before, cc.After, cc.Change, cc.Difference, cc.Mean, cc.Median} {
			figures = append(figures, e.Point, e.Lower, e.Upper)
		}
		if cc.Live != nil {
			figures = append(figures, cc.Live.Point, cc.Live.Lower, cc.Live.Upper)
		}
		for _, x := range figures {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: case %q: its figures give a change of %v", ErrNotComparable, cc.Name, x)
			}
		}
	}
	return nil
}

// CaseComparison is stats' comparison of a case as results saves it, its
// test said in words: the one conversion between stats and the schema
// (results' doc says why the two types stay apart).
func CaseComparison(c stats.Comparison) results.CaseComparison {
	return results.CaseComparison{Mean: c.Mean, Median: c.Median, Estimator: c.Estimator, Change: c.Change,
		Difference: c.Difference, P: c.P, Test: results.TestSentence(c.Test), Verdict: c.Verdict}
}
