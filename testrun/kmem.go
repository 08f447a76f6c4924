package testrun

import (
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// fitKernelMemory estimates the kernel memory the run holds at once, and
// refuses it past the budget before anything is loaded (internal/kmem).
// The extra loads drawn to spread placements (placement.go) are
// optional: as many are drawn as fit, down to none.
func (p *plan) fitKernelMemory(budget uint64) error {
	var groups []kmem.Group
	var keys []int
	for i, c := range p.picked {
		k := slices.Index(keys, p.programOf[i])
		if k < 0 {
			keys = append(keys, p.programOf[i])
			g := kmem.Group{Name: c.Info.Name, Floor: p.isFloor(i), Drawn: spreadable(c, 2), F: c.Footprint()}
			for _, o := range p.others[i] {
				g.Others = kmem.SatAdd(g.Others, o.Chosen.Footprint().Copy())
			}
			groups, k = append(groups, g), len(keys)-1
		}
		groups[k].Want++
	}
	per, err := kmem.Fit(groups, budget, candidatesPerLoad, p.cfg.Counts == nil)
	p.candidates = per
	return err
}
