package testrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/object"
)

// loadGroup is the loads of one program (or of the floor) in a run, for
// the kernel memory they hold at once.
type loadGroup struct {
	name   string
	floor  bool
	want   int // loads kept
	spread bool
	f      object.Footprint
	others uint64 // a load's objects loaded beside it (map-init)
}

// fitKernelMemory estimates the kernel memory the run holds at once, and
// refuses it past the budget before anything is loaded (object's
// kmem.go). The extra loads drawn to spread placements (placement.go)
// are optional: as many are drawn as fit, down to none.
func (p *plan) fitKernelMemory(budget uint64) error {
	var groups []loadGroup
	var keys []int
	for i, c := range p.picked {
		k := slices.Index(keys, p.programOf[i])
		if k < 0 {
			keys = append(keys, p.programOf[i])
			g := loadGroup{name: c.Info.Name, floor: p.isFloor(i), spread: spreadable(c, 2), f: c.Footprint()}
			for _, o := range p.others[i] {
				g.others += o.Chosen.Footprint().Copy()
			}
			groups, k = append(groups, g), len(keys)-1
		}
		groups[k].want++
	}
	counting := p.cfg.Counts == nil
	for per := candidatesPerLoad; per >= 1; per-- {
		if p.peakKernelMemory(groups, per, counting) <= budget {
			p.candidates = per
			return nil
		}
	}
	return kernelMemoryError(groups, budget, p.peakKernelMemory(groups, 1, counting), counting)
}

// peakKernelMemory is what the run holds at once, drawing per loads for
// each one kept: while the candidates are loaded, and then with the kept
// ones checked and counted on an instrumented copy (a copy of each
// program's own maps, one program at a time).
func (p *plan) peakKernelMemory(groups []loadGroup, per int, counting bool) uint64 {
	var drawing, checking, copies uint64
	for _, g := range groups {
		drawn := g.want
		if g.spread && g.want > 1 {
			drawn *= per
		}
		own := g.f.PerLoad() - g.f.Shadows
		drawing = sat(drawing, g.f.Shared(), mulSat(own, drawn))
		checking = sat(checking, g.f.Shared(), mulSat(sat(g.f.PerLoad(), g.others), g.want))
		if counting && !g.floor {
			copies = max(copies, g.f.PerLoad()) // sharing the shared maps
		}
	}
	return max(drawing, sat(checking, copies))
}

// kernelMemoryError names the map that takes most of the run's kernel
// memory, and the loads that hold it.
func kernelMemoryError(groups []loadGroup, budget, total uint64, counting bool) error {
	var largest object.MapCost
	var most uint64
	loads := 0
	var each []string
	for _, g := range groups {
		loads += g.want
		if g.floor {
			each = append(each, fmt.Sprintf("%d of the floor", g.want))
		} else {
			each = append(each, fmt.Sprintf("%d of %s", g.want, g.name))
		}
		m, ok := g.f.Largest(g.want)
		if !ok {
			continue
		}
		b := m.Bytes
		if !m.Shared {
			b = mulSat(b, g.want)
		}
		if b > most {
			largest, most = m, b
		}
	}
	what := fmt.Sprintf("%d loads at once (%s)", loads, strings.Join(each, ", "))
	if counting {
		what += " and a copy to count instructions"
	}
	if largest.Name == "" {
		return fmt.Errorf("%w: %s take %s of kernel memory, past the budget of %s: raise it with %s SIZE",
			object.ErrKernelMemory, what, object.FormatSize(total), object.FormatSize(budget), object.KernelMemoryFlag)
	}
	return object.BudgetError(budget, total, largest, what)
}

func sat(xs ...uint64) uint64 {
	var s uint64
	for _, x := range xs {
		if s+x < s {
			return ^uint64(0)
		}
		s += x
	}
	return s
}

func mulSat(x uint64, n int) uint64 {
	if n <= 0 {
		return 0
	}
	if x > ^uint64(0)/uint64(n) {
		return ^uint64(0)
	}
	return x * uint64(n)
}
