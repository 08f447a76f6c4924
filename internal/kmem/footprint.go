package kmem

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
)

// MapCost is one map's part of a load's kernel memory.
type MapCost struct {
	Name  string
	Spec  *ebpf.MapSpec
	Bytes uint64
	// Shared: every load of the program holds this one map, not a copy
	// of its own (internal/object's share.go).
	Shared bool
}

// Footprint is what loads of a chosen program hold in the kernel.
type Footprint struct {
	Maps []MapCost // in name order
	// Code is a load's programs.
	Code uint64
	// Shadows are a load's copies of the large arrays its programs
	// write (internal/object's mapped.go), made when its maps are first
	// read.
	Shadows uint64
}

// PerLoad is what each load holds of its own.
func (f Footprint) PerLoad() uint64 {
	b := SatAdd(f.Code, f.Shadows)
	for _, m := range f.Maps {
		if !m.Shared {
			b = SatAdd(b, m.Bytes)
		}
	}
	return b
}

// Shared is what all loads hold once.
func (f Footprint) Shared() uint64 {
	var b uint64
	for _, m := range f.Maps {
		if m.Shared {
			b = SatAdd(b, m.Bytes)
		}
	}
	return b
}

// Copy is what one load holds with no map shared: a load that
// instruments a copy of the program, or probes it (markLargeArrays).
func (f Footprint) Copy() uint64 { return SatAdd(f.PerLoad(), f.Shared()) }

// Largest is the map that takes most of loads of f at once: shared maps
// count once, the others loads times.
func (f Footprint) Largest(loads int) (MapCost, bool) {
	var best MapCost
	var most uint64
	for _, m := range f.Maps {
		b := m.Bytes
		if !m.Shared {
			b = SatMul(b, uint64(max(loads, 1)))
		}
		if b > most || best.Name == "" {
			best, most = m, b
		}
	}
	return best, best.Name != ""
}

// Describe names a map and its shape, for a refusal.
func (m MapCost) Describe() string {
	ms := m.Spec
	shape := fmt.Sprintf("%d entries", ms.MaxEntries)
	if ms.KeySize > 0 {
		shape += fmt.Sprintf(", %d-byte keys", ms.KeySize)
	}
	if ms.ValueSize > 0 {
		shape += fmt.Sprintf(", %d-byte values", ms.ValueSize)
	}
	return fmt.Sprintf("map %s (%s, %s) takes %s of kernel memory", m.Name, ms.Type, shape, FormatSize(m.Bytes))
}

// BudgetError refuses loads that would hold total bytes of kernel memory
// at once, past budget, naming the map that takes most of it: what says
// which loads they are ("a load of NAME", "12 loads at once").
func BudgetError(budget, total uint64, largest MapCost, what string) error {
	each := ""
	if !largest.Shared && !strings.HasPrefix(what, "a load") {
		each = " a load"
	}
	return fmt.Errorf("%w: %s%s; %s: %s in all, past the budget of %s: raise it with %s SIZE",
		ErrBudget, largest.Describe(), each, what, FormatSize(total), FormatSize(budget), Flag)
}
