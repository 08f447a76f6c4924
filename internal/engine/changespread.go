package engine

import (
	"cmp"
	"encoding/hex"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
	"gonum.org/v1/gonum/stat"
)

// recalled is the fast phase of cpu as earlier runs on this boot read it,
// what the report will scale to (runner.recall). Read once the first
// group has run: it gives the floor's type and loads a group. A history
// that cannot be read is said later, by recall.
func (o *runner) recalled(h phases.History, boot string, total testrun.Result, cpu int) (Recalled, bool) {
	if total.Floor == nil {
		return Recalled{}, false
	}
	var frames []string // the floor's plain cases', as FloorLevelFrames reads them
	for _, c := range total.Floor.Cases {
		if !c.Restored && !c.Single {
			frames = append(frames, hex.EncodeToString(c.Case.Frame))
		}
	}
	key := o.historyKey(boot, cpu, total.Floor.Info.Type.String(), 1+len(total.Floor.Placements), frames)
	ref, ok := h.Reference(key, time.Now(), o.Stats.Confidence)
	if !ok {
		return Recalled{}, false
	}
	return Recalled{Floor: ref.Floor, RelHalf: ref.RelHalf, Runs: ref.Runs, Drift: ref.Drift, DriftKnown: ref.DriftKnown}, true
}

// history is the phase history and this boot's id; ok is false without
// either.
func (o *runner) history() (h phases.History, boot string, ok bool) {
	if o.History == "" {
		return h, "", false
	}
	boot, err := phases.Boot()
	if err != nil {
		return h, "", false
	}
	h, _ = phases.Load(o.History)
	return h, boot, true
}

// recallHalf is the relative half-width the report's scaling to the
// recalled fast phase will add to every figure of the run so far
// (RecallScaling), given its floor's points (floorPoints), its
// floor read at the fast phase as the
// report will read it (FloorLevel: the median case's estimate
// over the floor's loads, the slow groups' left out); ok is false where
// the report will not scale.
func (o *runner) recallHalf(points [][]float64, plain []bool, rule stopRule, groups int) (float64, bool) {
	if o.recalledRef == nil || groups < 1 {
		return 0, false
	}
	var floors []stats.Estimate
	for ci, byLoad := range points {
		per := len(byLoad) / groups
		if !plain[ci] || per < 1 || per*groups != len(byLoad) {
			continue
		}
		l, err := stats.OverGroupedLoads(byLoad, per, o.Estimator, o.Stats.Confidence)
		if len(rule.Factors) > 0 {
			l, err = stats.AtPhase(byLoad, rule.Factors, rule.Phase, per, o.Estimator, o.Stats.Confidence)
		}
		if err != nil {
			return 0, false
		}
		floors = append(floors, l.Estimate)
	}
	if len(floors) == 0 {
		return 0, false
	}
	slices.SortFunc(floors, func(a, b stats.Estimate) int { return cmp.Compare(a.Point, b.Point) })
	median := floors[(len(floors)-1)/2]
	_, half, _, ok := RecallScaling(median.Point, median.RelativeHalfWidth(), *o.recalledRef, o.Stats.Confidence)
	return half, ok
}

// changeSpread is the factor within which the changes measured so far
// hold their size at the recalled floor (phases.ChangeSpread), as the
// report will widen them, so that sampling goes on until they settle
// widened. The report reads the run's floor at its fast phase where its
// groups tell one (FloorLevel after the groups' scaling, from
// stats.MinGroups groups), else as the mean over them: a run of two
// groups stopped on the fastest group's spread at 2.66 s of 60, on a
// change the report, at the mean's floor (×1.28), judged within noise
// ([+0.22 +2.65] %). So the rule takes the wider of the two, each the
// median over the cases.
func (o *runner) changeSpread(total testrun.Result, recalled float64, groups int) float64 {
	if !(recalled > 0) || groups < 1 {
		return 1
	}
	points, plain, ok := o.floorPoints(total)
	if !ok {
		return 1
	}
	var fastest, mean []float64
	for ci, byLoad := range points {
		if !plain[ci] {
			continue // not the plain floor (FloorLevel)
		}
		byGroup := groupMeans(byLoad, max(1, len(byLoad)/groups))
		fastest, mean = append(fastest, slices.Min(byGroup)), append(mean, stat.Mean(byGroup, nil))
	}
	if len(fastest) == 0 {
		return 1
	}
	slices.Sort(fastest)
	slices.Sort(mean)
	at := func(floors []float64) float64 {
		return phases.ChangeSpread(floors[(len(floors)-1)/2], recalled, phases.Transfer(o.Live))
	}
	return max(at(fastest), at(mean))
}

// floorPoints is each floor case's estimate (a point, no interval) over
// the floor's loads in the order measured, and whether the case is the
// plain floor, neither restored nor run once a call; ok is false without
// a floor, or where a load lacks a case or its point.
func (o *runner) floorPoints(total testrun.Result) (points [][]float64, plain []bool, ok bool) {
	if total.Floor == nil {
		return nil, nil, false
	}
	loads := append([]testrun.ProgramResult{*total.Floor}, total.Floor.Placements...)
	for ci, c := range total.Floor.Cases {
		byLoad := make([]float64, len(loads))
		for i, l := range loads {
			if ci >= len(l.Cases) {
				return nil, nil, false
			}
			var err error
			if byLoad[i], err = sidePoint(o.Estimator, sampled(l.Cases[ci : ci+1])[0], o.Stats); err != nil {
				return nil, nil, false
			}
		}
		points, plain = append(points, byLoad), append(plain, !c.Restored && !c.Single)
	}
	return points, plain, len(points) > 0
}

// groupMeans is the mean of each group of per points, in order, the
// last whole or not (a cancelled run's).
func groupMeans(points []float64, per int) []float64 {
	var means []float64
	for start := 0; start < len(points); start += per {
		means = append(means, stat.Mean(points[start:min(start+per, len(points))], nil))
	}
	return means
}

// groupPhases is each group's speed against the run's fast phase, read
// from the floor's points by case (one a load, per loads a group): the
// one reading of the phases, for the stopping rule while measuring and
// for the report after (atFastPhase); ok is false with too few groups,
// or with no group slower than the rest.
func groupPhases(byCase [][]float64, per int, confidence float64) (factors []float64, phase stats.Phase, ok bool) {
	means := make([][]float64, len(byCase))
	for i, points := range byCase {
		means[i] = groupMeans(points, per)
	}
	return stats.PhaseFactors(means, confidence)
}
