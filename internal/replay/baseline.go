package replay

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A saved comparison's two runs were not timed in turns: each met the
// host at its own speed. On this project's 2-core guest, eight runs of one
// synthetic replay (50,000 packets over the flow table) read 152 to 229
// ns, while each run's five replays spread 3 to 15 %: the runs stood at
// one of two levels, and a run at the slower one spread wider and read a
// slower floor. So each side's interval holds one more replay's spread, as
// the mean's own interval does (a run's level is another draw), the host's
// run-to-run wander (stats.HostWander) a side, and floorLeverage times
// how far the floor moved between the two: over those runs a program's
// level moved 1.8 (new flows) to 2.4 (hits) times as much as the floor's
// (slopes of the one's log over the other's), and single pairs scattered
// wider; with 2, three hits' groups of 56 in 28 A/A pairs claimed a
// change, with 3 two: both where the floor moved 4 % at most and the
// hits 25 to 39 %, between a run whose replays spread 8 to 15 % and a
// quiet one. A run whose replays spread wide met a host that moves, so
// its wander is its replays' spread where that is more than the host's.
// So made, 2 of 73 A/A pairs claimed a change (docs/replay.md), within
// the 1 in 20 bench's saved pairs are held to; a leverage of 4 left 1 and
// widened every interval.
const (
	replayWander  = stats.HostWander
	floorLeverage = 3.0
)

// savedMethod says how a saved comparison's intervals were had.
var savedMethod = fmt.Sprintf("each side's replays' spread as one more replay's (Welch's t), a run-to-run wander a side "+
	"(%g %%, or the replays' spread where wider), and %g times the floor's move between the runs", 100*replayWander, floorLeverage)

// Verdicts of a group met on one side only.
const (
	onlyAfter  = results.ReplayOnlyAfter
	onlyBefore = results.ReplayOnlyBefore
)

// compareSaved makes after's result its comparison with a replay saved
// earlier of the same traffic: the change of the mean and of each group,
// each with an interval from both sides' replays and the host's wander,
// and the change in cores at rate.
func compareSaved(before, after *results.Replay, name string, rate float64) *results.Replay {
	after.Before = before
	ch := &results.ReplayChange{Against: name, Method: savedMethod, MeanNS: after.Mean.Point - before.Mean.Point, Rate: rate}
	h := hostMoves{wander: [2]float64{wanderOf(before.ReplayMeans), wanderOf(after.ReplayMeans)}}
	if before.Floor > 0 && after.Floor > 0 {
		h.drift = math.Abs(after.Floor/before.Floor - 1)
	}
	drift := h.drift
	ch.Mean, ch.Verdict = savedChange(before.ReplayMeans, after.ReplayMeans, h)
	for i, m := range []float64{before.Mean.Point, after.Mean.Point} {
		if m > 0 {
			ch.PPSPerCore[i] = 1e9 / m
		}
	}
	if rate > 0 {
		ch.Cores = rate * ch.MeanNS * 1e-9
	}
	ch.Kinds = savedKinds(before.Kinds, after.Kinds, h)
	ch.Paths = savedPaths(before.Paths, after.Paths, h)
	if drift >= 0.02 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("the floor moved %+.1f %% between the baseline and this replay (%s to %s ns): the host ran at another speed, "+
			"and the intervals hold %g times that; gate on --before/--after, whose builds are timed in turns", 100*(after.Floor/before.Floor-1),
			printable.NS(before.Floor), printable.NS(after.Floor), floorLeverage))
	}
	after.Change = ch
	return after
}

// savedKinds pairs the kinds by name: a kind names an action and what
// it did to the maps, not its instructions, so it pairs across builds.
func savedKinds(before, after []results.ReplayKind, h hostMoves) []results.ReplayPathChange {
	seen := map[string]bool{}
	var out []results.ReplayPathChange
	for _, a := range after {
		pc := results.ReplayPathChange{Name: a.Name, Packets: a.Packets, After: a.Mean.Point, AfterIn: a.Instructions[1], Verdict: onlyAfter}
		for _, b := range before {
			if b.Name == a.Name {
				seen[b.Name] = true
				pc.Before, pc.BeforeIn = b.Mean.Point, b.Instructions[1]
				pc.Change, pc.Verdict = savedChange(b.ReplayMeans, a.ReplayMeans, h)
			}
		}
		out = append(out, pc)
	}
	for _, b := range before {
		if !seen[b.Name] {
			out = append(out, results.ReplayPathChange{Name: b.Name, Packets: b.Packets, Before: b.Mean.Point, BeforeIn: b.Instructions[1], Verdict: onlyBefore})
		}
	}
	return out
}

// savedPaths pairs the paths by name (action, instructions and effects),
// else by their first packet: a build whose path ran other instructions
// still pairs with its earlier self on the same traffic.
func savedPaths(before, after []results.ReplayPath, h hostMoves) []results.ReplayPathChange {
	used := make([]bool, len(before))
	find := func(a results.ReplayPath) int {
		for i, b := range before {
			if !used[i] && b.Name == a.Name {
				return i
			}
		}
		for i, b := range before {
			if !used[i] && b.First == a.First && b.Action == a.Action {
				return i
			}
		}
		return -1
	}
	var out []results.ReplayPathChange
	for _, a := range after {
		pc := results.ReplayPathChange{Name: a.Name, Packets: a.Packets, After: a.Mean.Point, AfterIn: a.Instructions, Verdict: onlyAfter}
		if i := find(a); i >= 0 {
			used[i] = true
			b := before[i]
			pc.Before, pc.BeforeIn = b.Mean.Point, b.Instructions
			pc.Change, pc.Verdict = savedChange(b.ReplayMeans, a.ReplayMeans, h)
		}
		out = append(out, pc)
	}
	for i, b := range before {
		if !used[i] {
			out = append(out, results.ReplayPathChange{Name: b.Name, Packets: b.Packets, Before: b.Mean.Point, BeforeIn: b.Instructions, Verdict: onlyBefore})
		}
	}
	return out
}

// savedChange is the relative change, in %, of after's mean over
// before's, two runs' replays that were not timed in turns, drift the
// floor's relative move between them: a 95 % interval that holds each
// side's spread as one more replay's (Welch's t on the ratio, by the
// delta method), the host's wander a side and floorLeverage times the
// drift, in quadrature; and its verdict, none where it holds 0.
func savedChange(before, after []float64, h hostMoves) (stats.Estimate, string) {
	nb, na := float64(len(before)), float64(len(after))
	if nb < 2 || na < 2 {
		return stats.Estimate{}, string(results.NoChange)
	}
	mb, vb := meanVar(before)
	ma, va := meanVar(after)
	if !(mb > 0) {
		return stats.Estimate{}, string(results.NoChange)
	}
	ratio := ma / mb
	// The delta method's parts of the ratio's variance, each side's
	// spread taken as one more replay's: after's, and before's.
	ca, cb := va*(1+1/na)/(mb*mb), ratio*ratio*vb*(1+1/nb)/(mb*mb)
	df := (ca + cb) * (ca + cb) / (ca*ca/(na-1) + cb*cb/(nb-1)) // Welch–Satterthwaite
	if !(df >= 1) {
		df = min(nb, na) - 1
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	z := distuv.UnitNormal.Quantile(0.975)
	spread := t * math.Sqrt(ca+cb)
	wander := z * math.Hypot(h.wander[0], h.wander[1]) * math.Abs(ratio)
	moved := floorLeverage * h.drift * math.Abs(ratio)
	half := 100 * math.Sqrt(spread*spread+wander*wander+moved*moved)
	point := 100 * (ratio - 1)
	e := stats.Estimate{Point: point, Lower: point - half, Upper: point + half}
	switch {
	case e.Lower > 0:
		return e, string(results.Regressed)
	case e.Upper < 0:
		return e, string(results.Improved)
	}
	return e, string(results.NoChange)
}

// hostMoves is how far the host may have moved between a saved
// comparison's runs: each side's run-to-run wander, and the floor's
// relative move between them.
type hostMoves struct {
	wander [2]float64
	drift  float64
}

// wanderOf is a run's wander: the host's, or its replays' relative
// spread where that is wider.
func wanderOf(means []float64) float64 {
	if len(means) < 2 {
		return replayWander
	}
	m, v := meanVar(means)
	if !(m > 0) {
		return replayWander
	}
	return max(replayWander, math.Sqrt(v)/m)
}

// meanVar is xs' mean and sample variance.
func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}
