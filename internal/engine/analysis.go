package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/stat"
)

// New computes the statistics of every case of a run.
func New(settings results.Settings, m results.Raw, opts stats.Options) (*results.Run, error) {
	return NewContext(context.Background(), settings, m, opts)
}

// NewContext is New that starts no case's bootstrap once ctx is done:
// fifty cases took 1.2 s here (3.8 s for two builds), and Ctrl-C must not
// wait for them (issue 59). A complete run's analysis then ends with
// ctx's error; a partial run's report leaves those cases without
// statistics, as it does cases with too few samples.
func NewContext(ctx context.Context, settings results.Settings, m results.Raw, opts stats.Options) (*results.Run, error) {
	r := &results.Run{Schema: results.Schema, Settings: settings, Environment: m.Environment, Partial: m.Partial}
	if settings.ChosenEstimator().Fitted() && m.Environment.Sampling.Mode != results.SamplingLinear {
		// Linear sampling was refused (the footer says why): the kernel's
		// figures stand for the cases.
		r.Settings.Estimator, settings.Estimator = stats.Low, stats.Low
	}
	// Every load flat, the floor first, each program's placements after it.
	var loads []results.Program
	var other []bool // one of a program's several loads
	add := func(p results.Program) {
		loads, other = append(loads, p), append(other, len(p.Placements) > 0)
		for _, q := range p.Placements {
			loads, other = append(loads, q), append(other, true)
		}
	}
	if m.Floor != nil {
		add(*m.Floor)
	}
	for _, p := range m.Programs {
		add(p)
	}
	for i := range loads {
		loads[i].Results = slices.Clone(loads[i].Results)
		loads[i].Placements = nil
	}
	if err := summarize(ctx, loads, other, m.Partial, opts); err != nil {
		return nil, err
	}
	for i := range loads {
		if len(settings.Sizes) > 0 {
			loads[i].Series = series(loads[i].Results, settings.ChosenEstimator())
		}
	}
	if m.Floor != nil {
		floor := loads[0]
		floor.Placements, loads = loads[1:1+len(m.Floor.Placements)], loads[1+len(m.Floor.Placements):]
		r.Floor = &floor
	}
	for _, p := range m.Programs {
		prog := loads[0]
		prog.Placements, loads = loads[1:1+len(p.Placements)], loads[1+len(p.Placements):]
		r.Programs = append(r.Programs, prog)
	}
	est := settings.ChosenEstimator()
	perGroup := m.Environment.LoadsPerGroup
	for i := range r.Programs {
		overLoads(&r.Programs[i], est, perGroup, opts.Confidence)
	}
	if r.Floor != nil {
		// The floor's loads come FloorLoads a group.
		fpg := floorPerGroup(perGroup, len(r.Floor.Placements)+1, m.Environment.Groups)
		overLoads(r.Floor, est, fpg, opts.Confidence)
		if m.Environment.Groups >= stats.MinGroups && perGroup > 0 && fpg > 0 {
			atFastPhase(r, perGroup, fpg, opts.Confidence)
		}
		for i := range r.Programs {
			overFloor(&r.Programs[i], *r.Floor, opts.Confidence)
		}
	}
	if r.Floor != nil {
		if err := subtractFloor(ctx, r.Programs, *r.Floor, settings.ChosenEstimator(), m.Partial, opts); err != nil {
			return nil, err
		}
	}
	withHostWander(r, opts.Confidence)
	r.PooledFrom = pooledFrom(r)
	return r, nil
}

// withHostWander widens every figure measured over loads, and its net of
// the floor, by how far a run's level moves from run to run
// (stats.RunWander): most where the hypervisor stole its CPU or it stood
// at the slower of two speeds, less where it stood at the faster, least
// at one speed. A run's groups agree among themselves on a level the next
// run need not meet.
func withHostWander(r *results.Run, confidence float64) {
	wander := stats.RunWander(r.Environment.MachineLoad.StealShare, r.Phase())
	for p := range r.Programs {
		for i := range r.Programs[p].Results {
			c := &r.Programs[p].Results[i]
			if c.Stats == nil || c.Stats.Loads == nil {
				continue
			}
			if c.Net != nil {
				net := stats.Loads{Estimate: *c.Net}
				if r.Floor != nil && i < len(r.Floor.Results) {
					if other, ok := otherNet(*c, r.Floor.Results[i]); ok {
						net.Phase = &stats.Phase{Split: true, Other: other}
						net = net.Spanning(other)
					}
				}
				net.Estimate = net.WithWander(wander, confidence).Estimate
				c.Net = &net.Estimate
			}
			l := c.Stats.Loads.WithWander(wander, confidence)
			c.Stats.Loads = &l
		}
	}
}

// otherNet is, where a case's run met each speed in enough groups for
// its figure to span both (stats.SplitShare), its net at the other
// speed: the program's loads there less the floor's. The net spans it as
// the figure does.
func otherNet(c, floor results.Case) (float64, bool) {
	if floor.Stats == nil || floor.Stats.Loads == nil {
		return 0, false
	}
	cp, fp := c.Stats.Loads.Phase, floor.Stats.Loads.Phase
	if cp == nil || fp == nil || !cp.Split || !fp.Split {
		return 0, false
	}
	return cp.Other - fp.Other, true
}

// overLoads sets, for every case of a program loaded more than once, its
// estimate over all its loads (stats.OverLoads): what the case stands for
// from then on. A case sampled one run a call stands for its low estimate.
func overLoads(p *results.Program, est stats.Estimator, perGroup int, confidence float64) {
	if len(p.Placements) == 0 {
		return
	}
	for i := range p.Results {
		c := &p.Results[i]
		if c.Stats == nil {
			continue
		}
		e := est
		if c.Single {
			e = stats.Low
		}
		var points, within []float64
		for _, q := range append([]results.Program{*p}, p.Placements...) {
			j := slices.IndexFunc(q.Results, func(k results.Case) bool { return k.Name == c.Name })
			if j < 0 || q.Results[j].Stats == nil {
				continue
			}
			own := q.Results[j].Stats.Own(e)
			points, within = append(points, own.Point), append(within, own.RelativeHalfWidth())
		}
		l, err := stats.OverGroupedLoads(points, perGroup, e, confidence)
		if err != nil {
			continue // too few loads sampled (a cancelled run): the first load's stands
		}
		slices.Sort(within)
		l.Within = stats.Quantile(within, 0.5)
		c.Stats.Loads = &l
	}
}

// overFloor sets, for every case measured over its loads, its estimate
// over the floor measured with it (stats.Summary.OverFloor), which keeps
// the floor's level in the run as Phase.RunFloor: the machine's speed,
// which moved the floor by up to 40 % from run to run here, divides out,
// so that runs at different times compare by it. Where the loads came in
// groups of the floor's, each point is a group's mean over its floor's
// (stats.GroupRatios), and what the two met alike leaves the comparison
// (on a Xeon host their groups' means correlated by 0.2 to 0.6), the
// floor's own noise counted once, in the ratios' spread; taken apart, it
// was counted again as the level's uncertainty. Otherwise each load is
// over the run's level, the mean of the floor's loads, whose own
// uncertainty is kept as Phase.RefHalf for the comparison to add.
func overFloor(p *results.Program, floor results.Program, confidence float64) {
	for i := range p.Results {
		c := &p.Results[i]
		j := slices.IndexFunc(floor.Results, func(k results.Case) bool { return k.Name == c.Name })
		if c.Stats == nil || c.Stats.Loads == nil || j < 0 || floor.Results[j].Stats == nil || floor.Results[j].Stats.Loads == nil {
			continue
		}
		fl := floor.Results[j].Stats.Loads
		level := stat.Mean(fl.Points, nil)
		if !(level > 0) {
			continue
		}
		var l stats.Loads
		var err error
		refHalf := fl.Estimate.RelativeHalfWidth()
		if ratios, ok := stats.GroupRatios(c.Stats.Loads.Points, c.Stats.Loads.PerGroup, fl.Points, fl.PerGroup); ok {
			l, err = stats.OverLoads(ratios, c.Stats.Loads.Estimator, confidence)
			refHalf = 0 // the floor's own noise is in the ratios
		} else {
			l, err = stats.OverGroupedLoads(c.Stats.Loads.Points, c.Stats.Loads.PerGroup, c.Stats.Loads.Estimator, confidence)
			l = l.Scaled(1/level, 0)
		}
		if err != nil {
			continue
		}
		l.Phase = &stats.Phase{Slowest: 1, RunFloor: level, RefHalf: refHalf}
		c.Stats.OverFloor = &l
	}
}

// atFastPhase takes every estimate over loads in r, the floor's too, at
// the machine's fast phase (stats.PhaseFactors, stats.AtPhase): the host
// here slowed every program by up to 40 % (×2 on 2026-11-27) for seconds
// at a time, and a run that met such a phase read every figure that much
// slower. The floor's loads come floorPerGroup a group. Where too few
// groups met the fast phase to leave the others out, a program's case
// whose interval scaling would widen rather than narrow keeps its loads
// as measured:
// the floor did not follow what that case met (a 1 s run read one case
// 87.6 ns in [-25 +200] with three groups).
func atFastPhase(r *results.Run, perGroup, floorPerGroup int, confidence float64) {
	floors := append([]results.Program{*r.Floor}, r.Floor.Placements...)
	var byCase [][]float64
	for _, c := range r.Floor.Results {
		if c.Stats == nil || c.Stats.Loads == nil {
			return
		}
		if !plainFloor(c) && slices.ContainsFunc(r.Floor.Results, plainFloor) {
			// A put-back's or a restorer's cost moves with the maps, not
			// the machine: the plain floor's cases tell the phases.
			continue
		}
		points, ok := ownPoints(floors, c.Name, c.Stats.Loads.Estimator)
		if !ok {
			return
		}
		byCase = append(byCase, points)
	}
	factors, phase, ok := groupPhases(byCase, floorPerGroup, confidence)
	if !ok {
		return
	}
	type change struct {
		c *results.Case
		l stats.Loads
	}
	var changes []change
	scale := func(p *results.Program, per int, judged bool) bool {
		for i := range p.Results {
			c := &p.Results[i]
			if c.Stats == nil || c.Stats.Loads == nil {
				continue
			}
			l, err := stats.AtPhase(c.Stats.Loads.Points, factors, phase, per, c.Stats.Loads.Estimator, confidence)
			if err != nil {
				return false // a cancelled run's last group: as measured
			}
			l.Within = c.Stats.Loads.Within
			if judged && l.Phase.LeftOut == 0 && !l.Phase.AtSlow && l.Estimate.RelativeHalfWidth() > c.Stats.Loads.Estimate.RelativeHalfWidth() {
				l = atMeanPhase(*c.Stats.Loads, factors, phase, per)
			}
			changes = append(changes, change{c, l})
		}
		return true
	}
	for i := range r.Programs {
		if !scale(&r.Programs[i], perGroup, true) {
			return
		}
	}
	if !scale(r.Floor, floorPerGroup, false) {
		return
	}
	for i := range changes {
		changes[i].c.Stats.Loads = &changes[i].l
	}
}

// atMeanPhase scales a case's loads, as measured, by the run's mean speed
// factor over its groups, where scaling each group by its own would widen
// the case's interval. Left as measured, such a case stayed at the run's
// mix of phases while the floor went to the fast one, and read 22 % high
// in a run of mostly slow groups. The interval adds the fast phase's own
// uncertainty and RecallTransfer of the scaling: a phase need not slow
// the program as much as the floor.
func atMeanPhase(l stats.Loads, factors []float64, phase stats.Phase, perGroup int) stats.Loads {
	var sum float64
	for i := range l.Points {
		sum += factors[min(i/max(perGroup, 1), len(factors)-1)]
	}
	mean := sum / float64(len(l.Points))
	out := l.Scaled(1/mean, math.Hypot(phase.RefHalf, RecallTransfer*math.Log(mean)))
	ph := phase
	out.Phase = &ph
	return out
}

// ownPoints is each load's own estimate of the named case; ok is false
// where a load lacks it.
func ownPoints(loads []results.Program, name string, e stats.Estimator) (points []float64, ok bool) {
	for _, q := range loads {
		j := slices.IndexFunc(q.Results, func(k results.Case) bool { return k.Name == name })
		if j < 0 || q.Results[j].Stats == nil {
			return nil, false
		}
		points = append(points, q.Results[j].Stats.Own(e).Point)
	}
	return points, true
}

// otherLoadResamples bounds the bootstrap of each load of a program loaded
// several times, the first too: a case stands for their mean, whose
// interval is over the loads' points; their own intervals only say how
// noisy one load is (a note of the report): 500 say it well enough. The
// first's 10,000, and 1,000 each, took 0.2 s of the default run's 2 s.
const otherLoadResamples = 500

// floorPerGroup is how many of the floor's loads each group held: its
// loads split evenly over the groups.
func floorPerGroup(perGroup, loads, groups int) int {
	if perGroup == 0 || groups <= 1 {
		return 0
	}
	return loads / groups
}

// summarize computes the summary of every case of every program, in
// place. The bootstraps of thousands of samples take tens of milliseconds
// each: one per core, over all programs, as a validation has one case per
// program. A case a cancelled run left with too few samples has none.
func summarize(ctx context.Context, programs []results.Program, other []bool, partial bool, opts stats.Options) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range programs {
		opts := opts
		if other[i] {
			opts.Resamples = min(opts.Resamples, otherLoadResamples)
		}
		for j := range programs[i].Results {
			c := &programs[i].Results[j]
			if partial && len(c.Samples) < stats.MinSamples {
				continue
			}
			g.Go(func() error {
				defer crash.Guard()
				if err := ctx.Err(); err != nil {
					return orSkipped(partial, err)
				}
				s, err := stats.Summarize(c.Samples, opts)
				if err != nil {
					return fmt.Errorf("case %q: %w", c.Name, err)
				}
				if len(c.Runs) > 0 {
					fit, err := stats.FitLinear(timings(c.Runs, c.Wall), stats.FitOptions{Options: opts})
					if partial && errors.Is(err, stats.ErrTimings) {
						return nil // too few calls of some level: as too few samples
					}
					if err != nil {
						return fmt.Errorf("case %q: %w", c.Name, err)
					}
					s.Fit = &fit
				}
				c.Stats = &s
				return nil
			})
		}
	}
	return g.Wait()
}

// orSkipped is nil for a partial run's case left unanalysed, which its
// report shows without figures, else err.
func orSkipped(partial bool, err error) error {
	if partial {
		return nil
	}
	return err
}

// subtractFloor sets each case's time net of the floor's in the same
// rounds, one case per core.
func subtractFloor(ctx context.Context, programs []results.Program, floor results.Program, est stats.Estimator, partial bool, opts stats.Options) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for p := range programs {
		for i := range programs[p].Results {
			c, f := &programs[p].Results[i], floor.Results[i]
			n := min(len(c.Samples), len(f.Samples)) // an interrupted round
			if c.Stats == nil || n < stats.MinSamples {
				continue
			}
			if c.Stats.Loads != nil && f.Stats != nil {
				net := netOverLoads(*c.Stats.Loads, *f.Stats, opts.Confidence)
				c.Net = &net
				continue
			}
			g.Go(func() error {
				defer crash.Guard()
				if err := ctx.Err(); err != nil {
					return orSkipped(partial, err)
				}
				net, err := netOf(*c, f, n, est, opts)
				if errors.Is(err, stats.ErrTimings) && n < len(c.Samples) {
					// A cancelled run that sampled the case but not the
					// floor in its last rounds: too few of those to fit.
					return nil
				}
				if err != nil {
					return fmt.Errorf("case %q net of the floor: %w", c.Name, err)
				}
				c.Net = &net
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for p := range programs {
		for i := range programs[p].Results {
			withPutBack(&programs[p].Results[i], putBackOf(programs[p], i), putBackOf(floor, i))
		}
	}
	return nil
}

// putBackOf is case i's put-back time as the load that timed it read it:
// the first group's loads do (testrun.Config.PutBackTimed); 0 if none.
func putBackOf(p results.Program, i int) float64 {
	for _, q := range append([]results.Program{p}, p.Placements...) {
		if i < len(q.Results) && q.Results[i].PutBack != 0 {
			return q.Results[i].PutBack
		}
	}
	return 0
}

// withPutBack records what an undone case's put-back cost a run beyond
// the floor's, each timed inside BPF: the floor's undoer makes the same
// calls on maps of its own, but its delete finds nothing where the
// program's frees what the run before inserted. The net keeps it: taken
// off, the flow table's first-state net read 20 to 30 % below the same
// miss timed inside BPF (TestStatesAgainstInBPFReference), where kept it
// agreed; the put-back's own clock reads do not time what it costs the
// program's run after it.
func withPutBack(c *results.Case, own, floor float64) {
	if c.Net == nil || !c.Undone || own == 0 || floor == 0 {
		return
	}
	c.PutBack, c.PutBackOver = own, own-floor
}

// netOverLoads is a case's estimate over its loads less the floor's: over
// the floor's loads too when it has several, by Welch's interval; else less
// its one load, whose own interval widens the case's.
func netOverLoads(c stats.Loads, floor results.Summary, confidence float64) stats.Estimate {
	if floor.Loads != nil && floor.Loads.Estimator == c.Estimator {
		return c.Minus(*floor.Loads, confidence)
	}
	f, e := floor.Own(c.Estimator), c.Estimate
	d := e.Point - f.Point
	half := math.Hypot((e.Upper-e.Lower)/2, (f.Upper-f.Lower)/2)
	return stats.Estimate{Point: d, Lower: d - half, Upper: d + half}
}

// netOf is the difference of c's estimate from the floor's f over the
// first n rounds, paired by round; a case sampled one run a call stands
// for its low estimate, whatever the estimator.
func netOf(c, f results.Case, n int, est stats.Estimator, opts stats.Options) (stats.Estimate, error) {
	if c.Single {
		est = stats.Low
	}
	return est.Method().Difference(sideOf([]results.Case{f}, n), sideOf([]results.Case{c}, n), opts)
}

// Difference is after's estimate less before's, two programs measured in
// the same rounds: over their loads, by Welch's interval, when each was
// loaded several times, so that the interval holds their placement; else
// PairedDifference.
func Difference(before, after results.Case, est stats.Estimator, opts stats.Options) (results.Estimate, error) {
	if b, a := loadsOf(before, est), loadsOf(after, est); b != nil && a != nil {
		return a.Minus(*b, opts.Confidence), nil
	}
	return PairedDifference(before, after, est, opts)
}

// PairedDifference is after's estimate less before's, paired by round
// over the rounds both have samples of: of their slopes when est is one.
func PairedDifference(before, after results.Case, est stats.Estimator, opts stats.Options) (results.Estimate, error) {
	n := min(len(before.Samples), len(after.Samples))
	d, err := est.Method().Difference(sideOf([]results.Case{before}, n), sideOf([]results.Case{after}, n), opts)
	return d, err
}

// sideOf is a case's placements as stats judges them: the first's
// kernel figures and every placement's calls, each over the first n
// rounds it has, and their fits where every placement has one.
func sideOf(placements []results.Case, n int) stats.Side {
	first := placements[0]
	s := stats.Side{Samples: first.Samples[:min(n, len(first.Samples))]}
	fitted := true
	for _, c := range placements {
		if len(c.Runs) > 0 {
			s.Timings = append(s.Timings, caseTimings(c, min(n, len(c.Runs))))
		}
		if c.Stats != nil && c.Stats.Fit != nil {
			s.Fits = append(s.Fits, c.Stats.Fit)
		} else {
			fitted = false
		}
	}
	if !fitted {
		s.Fits = nil
	}
	return s
}

// caseTimings are the first n of a case's linear samples.
func caseTimings(c results.Case, n int) stats.Timings { return timings(c.Runs[:n], c.Wall[:n]) }

func timings(runs []uint32, wall []float64) stats.Timings {
	t := stats.Timings{Runs: make([]float64, len(runs)), Total: wall}
	for i, r := range runs {
		t.Runs[i] = float64(r)
	}
	return t
}

// series groups cases padded to several sizes, named <case>@<size>, by
// case, in the order they first appear.
func series(cases []results.Case, est stats.Estimator) []results.Series {
	var out []results.Series
	index := map[string]int{}
	for _, c := range cases {
		base, _, found := strings.Cut(c.Name, "@")
		if !found || c.Stats == nil {
			continue
		}
		i, ok := index[base]
		if !ok {
			i = len(out)
			index[base] = i
			out = append(out, results.Series{Case: base})
		}
		out[i].Points = append(out[i].Points, results.SeriesPoint{Size: c.Length, Estimate: c.Stats.Of(est)})
	}
	return out
}
