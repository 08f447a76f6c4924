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
	ch := &results.ReplayChange{Against: "lock-step", Method: "Student's t over the replays' paired changes, the builds timed in turns",
		MeanNS: after.Mean.Point - before.Mean.Point, Rate: rate}
	ch.Mean, ch.Verdict = changeOf(before.ReplayMeans, after.ReplayMeans)
	for i, m := range []float64{before.Mean.Point, after.Mean.Point} {
		if m > 0 {
			ch.PPSPerCore[i] = 1e9 / m
		}
	}
	if rate > 0 {
		ch.Cores = rate * ch.MeanNS * 1e-9
	}
	for _, k := range after.Kinds {
		ch.Kinds = append(ch.Kinds, groupChange(k.Name, k.Packets, k.Paths, byKey))
	}
	for _, p := range after.Paths {
		ch.Paths = append(ch.Paths, groupChange(p.Name, p.Packets, []int{p.ID}, byKey))
	}
	after.Change = ch
	return after
}

// groupChange is the change of the after build's paths ids: the same
// packets' mean cost in each build, replay by replay, and the
// instructions each build ran on their first packets (lowest, highest).
func groupChange(name string, packets int, ids []int, byKey [2]*timing) results.ReplayPathChange {
	bt, at := byKey[0], byKey[1]
	var b, a []float64
	for k := range at.replays {
		var bs, bn, as, an float64
		for _, id := range ids {
			bs, bn = bs+bt.keySum[k][id], bn+bt.keyN[k][id]
			as, an = as+at.keySum[k][id], an+at.keyN[k][id]
		}
		if bn > 0 && an > 0 {
			b, a = append(b, bs/bn-bt.floor(k)), append(a, as/an-at.floor(k))
		}
	}
	pc := results.ReplayPathChange{Name: name, Packets: packets, Before: meanOf(b), After: meanOf(a)}
	pc.Change, pc.Verdict = changeOf(b, a)
	pc.BeforeIn, pc.AfterIn = instructionsOf(bt, ids, true), instructionsOf(at, ids, false)
	return pc
}

// instructionsOf is the most instructions a build ran on the first
// packet of each of the after build's paths ids: its own paths'
// (own) or the key's.
func instructionsOf(t *timing, ids []int, own bool) uint64 {
	var most uint64
	for _, id := range ids {
		first := t.key.table.paths[id].first
		n := t.key.table.paths[id].instructions
		if own {
			n = t.own.table.paths[t.own.ids[first]].instructions
		}
		most = max(most, n)
	}
	return most
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
