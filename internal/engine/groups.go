package engine

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/testrun"
)

// Groups of loads. Every load of a program is JIT-compiled to its own
// address and differs from the others by a few per cent; loads measured
// together also share the machine's phase and the dispatcher's image
// while they run, which moves them together. So a run measures its loads
// in groups, each loaded, anchored, sampled and closed on its own, and
// judges each case over all of them (stats.OverGroupedLoads): the next
// run's figure then falls within the interval as often as it says. The
// groups also keep the anchored programs within what the XDP dispatcher
// holds at once, and let time buy precision: while the budget allows and
// an estimate is not yet known to the precision asked, another group
// adds loads.

// Defaults of the groups and of adaptive sampling.
const (
	// MinSamplingTime is sampled before precision is judged: the machine's
	// phases last up to about a second, and a low quantile judged on a
	// shorter stretch could be one phase's alone.
	MinSamplingTime = time.Second
	// MinAdaptiveRounds are taken before precision is judged, however
	// long the rounds.
	MinAdaptiveRounds = 30
	// maxLoads bounds the loads adaptive sampling adds.
	maxLoads = MaxPlacements
	// MaxPlacements bounds Options.Placements and GroupLoads: every load
	// is a program JIT-compiled and held in the kernel for the run.
	MaxPlacements = 1024
	// laterWarmup is the warm-up of every group after the first: the CPU
	// is warm by then; only the new loads' caches are not, which one
	// round warms (testrun takes a zero warm-up as one round).
	laterWarmup = 0
	// reserve is what the budget keeps for the analysis, the report and
	// the exit after sampling; reservePerLoad more for each load measured
	// beyond a hundred, as the analysis and the report grow with them
	// (docs/measurement-notes.md, "Warm-up and reserve of groups").
	reserve        = 200 * time.Millisecond
	reservePerLoad = 2 * time.Millisecond
	// LongRepeat is a given repeat whose calls last milliseconds.
	LongRepeat = 100000
)

// groupLoads is how many loads of each program one group holds: the
// configured size, within what the dispatcher holds at once, the loads
// spread evenly over as many groups as that takes.
func (o *runner) groupLoads() int {
	size := max(1, min(o.GroupLoads, o.Placements, testrun.MostLoads(len(o.Programs))))
	groups := (o.Placements + size - 1) / size
	return (o.Placements + groups - 1) / groups
}

// measureGroups measures the loads group by group and returns them as one
// result, each program's loads in the order measured.
func (o *runner) measureGroups(ctx context.Context, obs Observer) (testrun.Result, error) {
	size := o.groupLoads()
	least := (o.Placements + size - 1) / size
	start := o.Started
	var total testrun.Result
	var groupTime time.Duration
	var recalled float64
	mover := o.mover
	if mover == nil {
		mover = o.newCPUMover()
	}
	var groupCPUs []int
	for g := 0; ; g++ {
		began := time.Now()
		cfg := o.groupConfig(g, size, start, obs)
		cfg.Unanchored = total.Environment.Dispatcher.Unanchored
		cfg.Counts = total.Counts // the first group's: loads run the same instructions
		if g > 0 {
			cfg.CPU = mover.cpu()
		}
		res, err := testrun.Run(ctx, cfg)
		merge(&total, res, g)
		if err != nil {
			// Cancelled: what the groups so far measured is the partial
			// result; any other failure fails the run.
			total.Partial = ctx.Err() != nil && (res.Partial || g > 0)
			total.Environment.LoadsPerGroup = size
			return total, err
		}
		// The next group's time is foretold by the later groups alone
		// once there are any: the first warms up longer and counts
		// instructions, and as the measure it kept 0.1 to 0.2 s of the
		// budget unused.
		if took := time.Since(began); g == 1 {
			groupTime = took
		} else {
			groupTime = max(groupTime, took)
		}
		if g == 0 {
			if h, boot, ok := o.history(); ok {
				mover.recall(o, h, boot, total)
				if ref, ok := o.recalled(h, boot, total, total.Environment.CPU); ok {
					if o.Compared {
						recalled = ref.Floor
					} else if o.Precision > 0 {
						o.recalledRef = &ref
					}
				}
			}
		}
		groupCPUs = append(groupCPUs, res.Environment.CPU)
		mover.saw(res.Environment.CPU, o.groupFloor(res))
		spread := o.changeSpread(total, recalled, g+1)
		if !o.anotherGroup(g+1, least, size, spread, total, time.Since(start), groupTime) {
			break
		}
	}
	if o.Precision > 0 {
		o.markPrecise(&total, loadCount(total), size, o.changeSpread(total, recalled, (loadCount(total)+size-1)/size))
	}
	if slices.ContainsFunc(groupCPUs, func(c int) bool { return c != groupCPUs[0] }) {
		total.Environment.GroupCPUs = groupCPUs
	}
	total.Environment.Wall = time.Since(start)
	total.Environment.LoadsPerGroup = size
	total.Environment.Groups = max(total.Environment.Groups, 1)
	return total, nil
}

// groupConfig is testrun's configuration of group g of size loads a
// program, in a run that started at start.
func (o *runner) groupConfig(g, size int, start time.Time, obs Observer) testrun.Config {
	// What the run's budget has left, less what the analysis keeps.
	plan := o.plan(max(o.Budget-time.Since(start)-reserve, time.Millisecond))
	if o.Precision > 0 {
		// A group takes the rounds every fit needs, no more: the loads,
		// not the samples of one, narrow the interval. That is the fewest
		// calls of each level (testrun plans them), where a program is
		// measured alone: 25 rounds in place of 30 (laterWarmup).
		if o.Samples == 0 && !o.Compared {
			plan.samples = testrun.MinSamples
		}
		plan.enough = func(int, []testrun.CaseResult) bool { return true }
		plan.minTime = 0
	}
	cfg := o.config(plan, obs)
	// A program measured alone takes the fewest rounds a group, its loads
	// being what narrows it; a comparison keeps ten calls a level of each
	// load: at repeat 1000000, five made v3 -> v4 read 3, 2 and 4 of 5
	// improved in three runs here.
	cfg.Placements, cfg.Grouped = size, (o.Placements > size || o.Precision > 0) && !o.Compared
	if cfg.Floor != nil {
		cfg.FloorPlacements = testrun.FloorLoads(size)
		if o.Placements > size && o.Repeat < LongRepeat {
			// Groups: the floor's loads spread over them, one a group. A
			// long repeat's budget holds one group at most, whose floor
			// then needs loads of its own to know their spread.
			cfg.FloorPlacements = 1
		}
	}
	if g > 0 {
		cfg.Warmup = laterWarmup
		cfg.Notice = nil        // said once, by the first group
		cfg.PutBackTimed = true // by the first group, whose loads the analysis reads it from
	}
	return cfg
}

// reserveFor is what the budget keeps after sampling total so far and
// one group more.
func reserveFor(total testrun.Result) time.Duration {
	loads := loadCount(total) * max(len(total.Programs), 1)
	if total.Floor != nil {
		loads += 1 + len(total.Floor.Placements)
	}
	return max(reserve, time.Duration(loads)*reservePerLoad)
}

// anotherGroup says whether to measure one more group after done groups:
// while the budget holds another group as long as the longest so far,
// until least, then while an estimate is short of the precision asked;
// without a precision, exactly least.
func (o *runner) anotherGroup(done, least, size int, spread float64, total testrun.Result, elapsed, groupTime time.Duration) bool {
	switch {
	case o.Precision == 0, o.callersLoad():
		// A fixed number of rounds: every load asked for. A program its
		// caller loaded is one load, however often it is sampled.
		return done < least
	case elapsed+groupTime+reserveFor(total) > o.Budget:
		return false // the budget is kept, and the notes say what more time would give
	case done < least:
		return true
	case (done+1)*size > maxLoads:
		return false
	}
	return !o.preciseOverLoads(total, loadCount(total), size, spread)
}

// preciseOverLoads says whether every case is known to the precision
// asked over the loads measured so far, loads of each program, a change's
// size within spread (changeSpread).
func (o *runner) preciseOverLoads(total testrun.Result, loads, size int, spread float64) bool {
	rule, points, plain := o.phasedRule(total, loads, size, spread)
	if extra, ok := o.recallHalf(points, plain, rule, (loads+size-1)/size); ok {
		// The report's scaling adds extra to every interval, in
		// quadrature: the loads' own must leave room for it. Judged on
		// the loads alone, --time 10s runs stopped at 2.8 s where their
		// own reached ±1 %, and printed ±1.6 to ±2.2 %.
		if extra >= rule.Precision {
			return false
		}
		rule.Precision = math.Sqrt(rule.Precision*rule.Precision - extra*extra)
	}
	for ci := range o.Cases {
		if !rule.enough(sampled(sidesOf(total, ci))) {
			return false
		}
	}
	return true
}

// markPrecise marks every case whether it reached the precision asked
// over all its loads: what the report's notes say of it.
func (o *runner) markPrecise(total *testrun.Result, loads, size int, spread float64) {
	rule, _, _ := o.phasedRule(*total, loads, size, spread)
	for ci := range o.Cases {
		enough := rule.enough(sampled(sidesOf(*total, ci)))
		for i := range total.Programs {
			if ci < len(total.Programs[i].Cases) {
				total.Programs[i].Cases[ci].Enough = enough
			}
		}
	}
}

// rule is the stopping rule over loads loads of each program, measured
// size a group, a change's size within spread.
func (o *runner) rule(loads, size int, spread float64) stopRule {
	return stopRule{Estimator: o.Estimator, Precision: o.Precision, Options: o.Stats,
		Compare: o.Compared, Placements: loads, PerGroup: size, Threshold: o.Compare.NoiseThreshold, ChangeSpread: spread}
}

// phasedRule is rule with the groups' phases as the report will take
// them (groupPhases), and the floor's points it read them from
// (floorPoints; nil without them).
func (o *runner) phasedRule(total testrun.Result, loads, size int, spread float64) (stopRule, [][]float64, []bool) {
	r := o.rule(loads, size, spread)
	points, plain, ok := o.floorPoints(total)
	if !ok {
		return r, nil, nil
	}
	per := max(1, len(points[0])/((loads+size-1)/size))
	if factors, phase, ok := groupPhases(points, per, o.Stats.Confidence); ok {
		r.Factors, r.Phase = factors, phase
	}
	return r, points, plain
}

// sidesOf is case ci of every load of every program, each program's in
// turn.
func sidesOf(total testrun.Result, ci int) []testrun.CaseResult {
	var sides []testrun.CaseResult
	for _, p := range total.Programs {
		for _, q := range append([]testrun.ProgramResult{p}, p.Placements...) {
			if ci < len(q.Cases) {
				sides = append(sides, q.Cases[ci])
			}
		}
	}
	return sides
}

// loadCount is how many loads of each program total holds.
func loadCount(total testrun.Result) int {
	if len(total.Programs) == 0 {
		return 0
	}
	return 1 + len(total.Programs[0].Placements)
}

// callersLoad says whether a program is one its caller loaded: it has
// one placement, and more groups would sample the same one again.
func (o *runner) callersLoad() bool {
	for _, p := range o.Programs {
		if p.Object.Prog != nil {
			return true
		}
	}
	return false
}

// merge adds group g's result to total: its loads after each program's
// loads so far, its floor's after the floor's.
func merge(total *testrun.Result, res testrun.Result, g int) {
	if g == 0 {
		*total = res
		return
	}
	for i := range min(len(total.Programs), len(res.Programs)) {
		p := res.Programs[i]
		total.Programs[i].Placements = append(total.Programs[i].Placements, p)
		total.Programs[i].Placements = append(total.Programs[i].Placements, p.Placements...)
		total.Programs[i].Placements[len(total.Programs[i].Placements)-1-len(p.Placements)].Placements = nil
	}
	if total.Floor != nil && res.Floor != nil {
		f := *res.Floor
		total.Floor.Placements = append(total.Floor.Placements, f)
		total.Floor.Placements = append(total.Floor.Placements, f.Placements...)
		total.Floor.Placements[len(total.Floor.Placements)-1-len(f.Placements)].Placements = nil
	}
	env, other := &total.Environment, res.Environment
	env.KernelTime += other.KernelTime
	env.MachineLoad.Preemptions += other.MachineLoad.Preemptions
	for _, n := range other.Notes {
		if !slices.Contains(env.Notes, n) {
			env.Notes = append(env.Notes, n)
		}
	}
	env.Groups = g + 1
}
