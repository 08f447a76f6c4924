package xdpmicro

import (
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/internal/stopping"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// recalledFloor is the fast phase's floor as earlier runs on this boot and
// CPU read it, the reference the report will scale a comparison to
// (Options.recall); 0 without one. Read once the first group has run: it
// gives the CPU and the floor's type. A history that cannot be read is
// said later, by recall.
func (o Options) recalledFloor(total testrun.Result) float64 {
	if !o.Compared || o.History == "" || total.Floor == nil {
		return 0
	}
	boot, err := phases.Boot()
	if err != nil {
		return 0
	}
	h, _ := phases.Load(o.History)
	key := phases.Key{Boot: boot, CPU: total.Environment.CPU, Type: total.Floor.Info.Type.String()}
	ref, ok := h.Reference(key, time.Now(), o.Stats.Confidence)
	if !ok {
		return 0
	}
	return ref.Floor
}

// changeSpread is the factor within which the changes measured so far
// hold their size at the recalled floor (phases.ChangeSpread), as the
// report will widen them, so that sampling goes on until they settle
// widened. The run's floor is its fastest group's, the median over the
// cases of each group's mean floor, as analysis.FloorLevel reads it.
func (o Options) changeSpread(total testrun.Result, recalled float64, groups int) float64 {
	if !(recalled > 0) || total.Floor == nil || groups < 1 {
		return 1
	}
	loads := append([]testrun.ProgramResult{*total.Floor}, total.Floor.Placements...)
	per := max(1, len(loads)/groups)
	var byCase []float64
	for ci, c := range total.Floor.Cases {
		if c.Restored || c.Single {
			continue // not the plain floor (analysis.FloorLevel)
		}
		fastest := 0.0
		for start := 0; start+per <= len(loads); start += per {
			var sum float64
			for _, l := range loads[start : start+per] {
				if ci >= len(l.Cases) {
					return 1
				}
				p, err := stopping.Point(o.Estimator, sampled(l.Cases[ci : ci+1])[0], o.Stats)
				if err != nil {
					return 1
				}
				sum += p
			}
			if mean := sum / float64(per); fastest == 0 || mean < fastest {
				fastest = mean
			}
		}
		byCase = append(byCase, fastest)
	}
	if len(byCase) == 0 {
		return 1
	}
	slices.Sort(byCase)
	return phases.ChangeSpread(byCase[(len(byCase)-1)/2], recalled, o.changeTransfer())
}

// changeTransfer is how far the phase moves what this run compares: a
// change between builds, or the cost of the action live frames carry out.
func (o Options) changeTransfer() float64 {
	if o.Live {
		return phases.LiveChangeTransfer
	}
	return phases.ChangeTransfer
}
