package replay

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// changeOf is the mean of the relative changes after_k / before_k - 1 of
// paired replays, in %, with a 95 % confidence interval (Student's t over
// the pairs: each pair was timed in turn, so that the host's drift hits
// both), and its verdict: a change whose interval holds 0 is none.
func changeOf(before, after []float64) (stats.Estimate, string) {
	var xs []float64
	for k := range min(len(before), len(after)) {
		if before[k] > 0 {
			xs = append(xs, 100*(after[k]/before[k]-1))
		}
	}
	if len(xs) < 2 {
		return stats.Estimate{}, string(results.NoChange)
	}
	n := float64(len(xs))
	var sum, ss float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * math.Sqrt(ss/(n-1)/n)
	e := stats.Estimate{Point: mean, Lower: mean - half, Upper: mean + half}
	switch {
	case e.Lower > 0:
		return e, string(results.Regressed)
	case e.Upper < 0:
		return e, string(results.Improved)
	}
	return e, string(results.NoChange)
}

// compare makes after's result the comparison of the two: the change of
// the mean, of each of after's path groups (the same packets' cost in
// the before build), and in cores at rate.
func compare(before, after *results.Replay, byKey [2]*timing, rate float64) *results.Replay {
	after.Before = before
	ch := &results.ReplayChange{MeanNS: after.Mean.Point - before.Mean.Point, Rate: rate}
	ch.Mean, ch.Verdict = changeOf(before.ReplayMeans, after.ReplayMeans)
	for i, m := range []float64{before.Mean.Point, after.Mean.Point} {
		if m > 0 {
			ch.PPSPerCore[i] = 1e9 / m
		}
	}
	if rate > 0 {
		ch.Cores = rate * ch.MeanNS * 1e-9
	}
	bt, at := byKey[0], byKey[1]
	for _, p := range after.Paths {
		id := p.ID
		var b, a []float64
		for k := range at.replays {
			if bt.keyN[k][id] > 0 && at.keyN[k][id] > 0 {
				b = append(b, bt.keySum[k][id]/bt.keyN[k][id]-bt.floor(k))
				a = append(a, at.keySum[k][id]/at.keyN[k][id]-at.floor(k))
			}
		}
		pc := results.ReplayPathChange{Name: p.Name, Packets: p.Packets, Before: meanOf(b), After: meanOf(a), AfterIn: p.Instructions}
		pc.Change, pc.Verdict = changeOf(b, a)
		pc.BeforeIn = beforeInstructions(before, bt, id)
		ch.Paths = append(ch.Paths, pc)
	}
	after.Change = ch
	return after
}

// beforeInstructions is the instructions the before build ran on the
// first packet of the after build's path id.
func beforeInstructions(before *results.Replay, bt *timing, id int) uint64 {
	first := bt.key.table.paths[id].first
	own := bt.own.ids[first]
	return bt.own.table.paths[own].instructions
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
