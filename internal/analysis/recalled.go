package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Recalled is the machine's fast phase as earlier runs on it read the
// floor: their median floor, its interval's relative half-width, and how
// many runs there were.
type Recalled struct {
	Floor, RelHalf float64
	Runs           int
}

// RecallTransfer is the share of a run's scaling to the recalled floor
// that its programs' figures may be off by: a slow phase does not slow
// every program as much as the floor. Measured on 2026-11-26, four of ten
// default runs met only slow phases (the floor 33.7 to 36.5 ns, the
// recalled 28.3 ns); scaled by 0.78 to 0.84, they read fizz -4.3 to
// +8.7 % off the ten runs' median, up to 0.45 of their scaling. A run at
// the recalled phase gets nothing more.
const RecallTransfer = 0.5

// maxRecallFactor bounds the scaling to a recalled floor: phases moved
// the floor by up to 40 % here, and a factor of ten is no phase.
const maxRecallFactor = 10

// FloorLevel is the run's floor in its own fastest phase, the floor's
// estimate of the median case sampled plainly, and its interval's relative
// half-width; ok is false without such a floor, and when the kernel's
// run-time statistics were on: their clock reads raised the floor (28 to
// 111 ns here), which no phase of the machine did.
func FloorLevel(r *results.Report) (level, relHalf float64, ok bool) {
	if r.Floor == nil || r.Environment.RunTimeStats {
		return 0, 0, false
	}
	est := r.Settings.ChosenEstimator()
	var floors []results.Estimate
	for _, c := range r.Floor.Results {
		// A floor run through a restorer, or one run a call, costs what
		// restoring or a call costs: no phase of the plain floor (katran's
		// restored floor read 120 ns against 28).
		if c.Stats != nil && !c.Restored && !c.Single {
			floors = append(floors, c.Stats.Of(est))
		}
	}
	if len(floors) == 0 {
		return 0, 0, false
	}
	slices.SortFunc(floors, func(a, b results.Estimate) int { return cmp.Compare(a.Point, b.Point) })
	median := floors[(len(floors)-1)/2]
	return median.Point, median.RelativeHalfWidth(), true
}

// AtRecalled scales every estimate over loads in r, the floor's too, by
// the recalled fast phase's floor over r's own fastest floor. The host
// here moved the floor of its fast phase 27.0 to 28.8 ns from run to run,
// and a run that met only a slow phase read 33 ns, every program with it:
// nothing in one run tells those from the program's own cost, and the
// runs before it do. Scaled to one reference, ten runs' intervals held
// their median 9 or 10 times in 10 for every case but one, where each
// alone held it 7 to 9 times. The intervals also hold the reference's own
// uncertainty, in place of the run's own fast floor's, which divides out.
// A phase need not slow the programs as much as the floor: the interval
// also holds RecallTransfer of the scaling's own size. Only a run slower
// than the recalled phase by more than the tolerance is scaled
// (phases.Slower): within it the run met the fast phase, and scaling it
// would carry its floor's placement into every figure. It reports whether
// it scaled.
func AtRecalled(r *results.Report, rec Recalled, confidence float64) bool {
	level, _, ok := FloorLevel(r)
	if !ok || !(rec.Floor > 0) || !(level > 0) {
		return false
	}
	if !phases.Slower(level, rec.Floor) {
		return false // the run met the fast phase itself
	}
	factor := rec.Floor / level
	if !(factor > 1.0/maxRecallFactor && factor < maxRecallFactor) {
		return false // no phase of one machine: a history or a floor gone wrong
	}
	relHalf := math.Hypot(rec.RelHalf, RecallTransfer*math.Abs(math.Log(factor)))
	scaled := false
	for _, p := range append(slices.Clone(r.Programs), *r.Floor) {
		for i := range p.Results {
			c := &p.Results[i]
			if c.Stats == nil || c.Stats.Loads == nil {
				continue
			}
			l := StatsLoads(*c.Stats.Loads).Rereferenced(factor, relHalf)
			if l.Phase == nil {
				l.Phase = &stats.Phase{Slowest: 1}
			}
			l.Phase.Recalled, l.Phase.RecalledRuns, l.Phase.RunFloor = rec.Floor, rec.Runs, level
			c.Stats.Loads = Loads(&l)
			if c.Net != nil {
				n := StatsEstimate(*c.Net).Scaled(factor, relHalf)
				c.Net = EstimatePtr(&n)
			}
			scaled = true
		}
	}
	return scaled
}
