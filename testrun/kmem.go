package testrun

import (
	"bytes"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/bpf"
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
			if c.Info.Type == ebpf.XDP {
				g.Others = kmem.SatAdd(g.Others, p.restorerBytes())
			}
			groups, k = append(groups, g), len(keys)-1
		}
		groups[k].Want++
	}
	per, err := kmem.Fit(groups, budget, candidatesPerLoad, p.cfg.Counts == nil)
	p.candidates = per
	return err
}

// restorerBytes is what a load's frame restorer may hold: its frames, one
// a case (restore.c's struct frame), and its code. Which cases a restorer
// serves is known only after the checking runs, so every XDP load is
// counted one.
func (p *plan) restorerBytes() uint64 {
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(bpf.Restorer()))
	if err != nil {
		return 0 // the run will say so when it loads one
	}
	var total uint64
	for name, ms := range spec.Maps {
		if name == "frames" {
			ms = ms.Copy()
			ms.MaxEntries = uint32(max(len(p.cfg.Cases), 1))
		}
		total = kmem.SatAdd(total, kmem.MapBytes(ms, 1))
	}
	for _, ps := range spec.Programs {
		total = kmem.SatAdd(total, kmem.ProgramBytes(ps))
	}
	return total
}
