package engine

import (
	"cmp"
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Recalled is the machine's fast phase as earlier runs on it read the
// floor: their median floor, its interval's relative half-width, and how
// many runs there were.
type Recalled struct {
	Floor, RelHalf float64
	Runs           int
	// Drift is how far, as a variance on the log scale, the fast phase's
	// floor moved from run to run beyond each run's own noise; DriftKnown
	// says the history held runs enough to tell (phases.Reference).
	Drift      float64
	DriftKnown bool
}

// RecallTransfer is the share of a run's scaling to the recalled floor
// that its programs' figures may be off by: a slow phase does not slow
// every program as much as the floor. Measured on 2026-11-26, four of ten
// default runs met only slow phases (the floor 33.7 to 36.5 ns, the
// recalled 28.3 ns); scaled by 0.78 to 0.84, they read fizz -4.3 to
// +8.7 % off the ten runs' median, up to 0.45 of their scaling. A run at
// the recalled phase gets nothing more.
const RecallTransfer = 0.5

// FineTransfer is RecallTransfer for a run within the tolerance of the
// recalled phase: v4's cases followed the run's floor by 0.73 to 1.05
// times its move there (AtRecalled), so at most a quarter of the scaling
// is in doubt.
const FineTransfer = 0.25

// maxRecallFactor bounds the scaling to a recalled floor: phases moved
// the floor by up to 40 % here, and a factor of ten is no phase.
const maxRecallFactor = 10

// FloorLevel is the run's floor in its own fastest phase, the floor's
// estimate of the median case sampled plainly, and its interval's relative
// half-width; ok is false without such a floor, and when the kernel's
// run-time statistics were on: their clock reads raised the floor (28 to
// 111 ns here), which no phase of the machine did.
func FloorLevel(r *results.Run) (level, relHalf float64, ok bool) {
	c, ok := floorLevelCase(r)
	if !ok {
		return 0, 0, false
	}
	median := c.Stats.Of(r.Settings.ChosenEstimator())
	return median.Point, median.RelativeHalfWidth(), true
}

// FloorLevelFrames are the frames, in hex, of the floor's cases that
// FloorLevel reads its level from: a floor's level is comparable only
// with one read from the same frames.
func FloorLevelFrames(r *results.Run) []string {
	var frames []string
	for _, c := range plainFloorCases(r) {
		frames = append(frames, c.Frame)
	}
	return frames
}

// floorLevelCase is the floor's case whose estimate FloorLevel takes.
func floorLevelCase(r *results.Run) (*results.Case, bool) {
	if r.Floor == nil || r.Environment.RunTimeStats {
		return nil, false
	}
	est := r.Settings.ChosenEstimator()
	plain := plainFloorCases(r)
	if len(plain) == 0 {
		return nil, false
	}
	slices.SortStableFunc(plain, func(a, b *results.Case) int { return cmp.Compare(a.Stats.Of(est).Point, b.Stats.Of(est).Point) })
	return plain[(len(plain)-1)/2], true
}

// plainFloorCases are the floor's cases sampled plainly. A floor run
// through a restorer, one run a call, or with its maps put back after
// every run (a state other than steady) costs what restoring, a call or
// the put-back costs: no phase of the plain floor (katran's restored
// floor read 120 ns against 28; a first-state floor 35 to 60 ns against
// 10, and scaled first-state runs ×0.26 to ×1.5 by plain floors).
func plainFloorCases(r *results.Run) []*results.Case {
	if r.Floor == nil {
		return nil
	}
	var plain []*results.Case
	for i := range r.Floor.Results {
		if c := &r.Floor.Results[i]; c.Stats != nil && plainFloor(*c) {
			plain = append(plain, c)
		}
	}
	return plain
}

// plainFloor says whether a floor's case was sampled plainly.
func plainFloor(c results.Case) bool {
	return !c.Restored && !c.Single && (c.State == "" || c.State == packets.StateSteady)
}

// floorScaledHalf is stats.FloorScaledHalf of a program's loads l and the
// floor's case whose level the run is scaled by.
func floorScaledHalf(l stats.Loads, floor *results.Case, share, confidence float64) (float64, bool) {
	if floor == nil || floor.Stats == nil || floor.Stats.Loads == nil || l.PerGroup <= 0 {
		return 0, false
	}
	fl := floor.Stats.Loads
	return stats.FloorScaledHalf(l.Points, l.PerGroup, fl.Points, fl.PerGroup, share, confidence)
}

// AtRecalled scales every estimate over loads in r, the floor's too, by
// the recalled fast phase's floor over r's own fast floor. The host here
// moved the floor of its fast phase 27.0 to 28.8 ns from run to run, and
// a run that met only a slow phase read 33 ns, every program with it:
// nothing in one run tells those from the program's own cost, and the
// runs before it do. Within the fast phase too the floor follows what
// moves every program from run to run: on 2026-11-27, over 94 default
// runs at the fast phase, v4's cases moved with the run's floor by 0.73
// to 1.05 times its own move, and scaling by it halved their spread (fizz
// 2.5 % to 1.4 %, issue 50's study). The interval holds what the scaling
// adds: the run's own floor's noise (taken with the program's loads,
// group by group, where their groups match: FloorScaledHalf), the drift
// it does not follow, the reference's uncertainty while the history is
// short, and a share of the scaling's own size, as the programs need not
// follow the floor exactly: FineTransfer within the tolerance of one
// phase (phases.SamePhase), RecallTransfer beyond it. It reports whether
// it scaled.
func AtRecalled(r *results.Run, rec Recalled, confidence float64) bool {
	level, levelHalf, ok := FloorLevel(r)
	if !ok {
		return false
	}
	factor, carried, rest, share, ok := recallScaling(level, levelHalf, rec, confidence)
	if !ok {
		return false
	}
	relHalf := math.Hypot(carried, rest)
	floorCase, _ := floorLevelCase(r)
	scaled := false
	for pi, p := range append(slices.Clone(r.Programs), *r.Floor) {
		isFloor := pi == len(r.Programs)
		for i := range p.Results {
			c := &p.Results[i]
			if c.Stats == nil || c.Stats.Loads == nil {
				continue
			}
			l := *c.Stats.Loads
			if half, ok := floorScaledHalf(l, floorCase, share, confidence); ok && !isFloor {
				// The program's loads and the floor's, group by group:
				// what they shared divides out of the scaled figure.
				l = l.WithHalf(half).Rereferenced(factor, rest)
			} else {
				l = l.Rereferenced(factor, relHalf)
			}
			if l.Phase == nil {
				l.Phase = &stats.Phase{Slowest: 1}
			}
			l.Phase.Recalled, l.Phase.RecalledRuns, l.Phase.RunFloor, l.Phase.Share = rec.Floor, rec.Runs, level, share
			l.Phase.DriftAssumed = !rec.DriftKnown && share > 0 && share < 1
			c.Stats.Loads = &l
			if c.Net != nil {
				n := c.Net.Scaled(factor, relHalf)
				c.Net = &n
			}
			scaled = true
		}
	}
	return scaled
}

// RecallScaling is AtRecalled's scaling of a run whose floor reads level,
// known to the relative half-width levelHalf: the factor every figure
// takes, the relative half-width that adds to each interval, and the
// share of the scaling to rec's floor taken; ok is false where there is
// nothing to scale to. Adaptive sampling asks it what the report will add.
func RecallScaling(level, levelHalf float64, rec Recalled, confidence float64) (factor, relHalf, share float64, ok bool) {
	factor, carried, rest, share, ok := recallScaling(level, levelHalf, rec, confidence)
	return factor, math.Hypot(carried, rest), share, ok
}

// recallScaling is RecallScaling with its half-width in two parts: what
// the run floor's own noise carries into every figure, and the rest.
func recallScaling(level, levelHalf float64, rec Recalled, confidence float64) (factor, carried, rest, share float64, ok bool) {
	if !(rec.Floor > 0) || !(level > 0) {
		return 0, 0, 0, 0, false
	}
	factor = rec.Floor / level
	if !(factor > 1.0/maxRecallFactor && factor < maxRecallFactor) {
		return 0, 0, 0, 0, false // no phase of one machine: a history or a floor gone wrong
	}
	// A run at another phase follows the floor all the way; within the
	// fast phase, as far as the history saw the phase move beyond what
	// its floors' own noise explains: a quiet machine's run floor moves by
	// its loads' noise alone, which scaling would carry into every figure.
	transfer := RecallTransfer
	share = 1
	noise := math.Pow(levelHalf/1.96, 2)
	// A floor whose own interval reaches the reference cannot say that it
	// met another phase: `--repeat 1000000`, two floor loads in one group
	// (±28 %), read 5.58 ns against 6.03 recalled, ×0.93 just past the
	// tolerance, was followed all the way and read ±28 % on every case.
	if phases.SamePhase(level, rec.Floor) || math.Abs(factor-1) <= levelHalf {
		// Within it, a history too short to say how far the phase moves
		// follows the floor as far as stats.PriorDrift would against the run
		// floor's noise and the reference's own: followed all the way, a
		// run of four loads (--repeat 1000000) a run after its first
		// brought in its two floor loads' noise and the one reference
		// run's, and read ±35 %; not at all, the second to fifth runs of a
		// new history kept the floor's whole move (one at +3.6 % read fizz
		// 3 % above the ten runs' median, 7 to 9 of those ten intervals
		// holding it).
		transfer, share = FineTransfer, 0
		drift, doubt := rec.Drift, noise
		if !rec.DriftKnown {
			drift, doubt = stats.PriorDrift, noise+math.Pow(rec.RelHalf/1.96, 2)
		}
		if drift+doubt > 0 {
			share = drift / (drift + doubt)
		}
	}
	logFactor := math.Log(factor)
	// What the scaling leaves in the figures: the drift it does not
	// follow and the run floor's noise it carries in, and, a bound of its
	// own, what the programs do not follow of the floor. The reference is
	// the level the figures are given at, printed with them, not a figure
	// of theirs: its own uncertainty (±1 to ±1.7 % over 34 runs on a Xeon
	// host whose fast phase drifted 2 %) is the same for every run scaled
	// to it, and moved nothing the runs' spread did not show; in their
	// intervals it kept --time 10s from ±1 % (±1.4 % where the runs'
	// figures spread 0.4 %). While the history is too short to say how
	// far the phase drifts, each run moves the reference: it stays in.
	z := distuv.UnitNormal.Quantile((1 + confidence) / 2)
	reference := 0.0
	if !rec.DriftKnown {
		reference = share * rec.RelHalf
	}
	carried = z * share * math.Sqrt(noise)
	rest = math.Sqrt(reference*reference + z*z*(1-share)*(1-share)*rec.Drift + math.Pow(transfer*share*logFactor, 2))
	return math.Exp(share * logFactor), carried, rest, share, true
}
