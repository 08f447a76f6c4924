package kmem

import (
	"fmt"
	"strings"
)

// Group is the loads of one program (or of the floor) in a run.
type Group struct {
	Name  string
	Floor bool
	Want  int  // loads kept
	Drawn bool // more loads than kept may be drawn (placements spread)
	F     Footprint
	// Others is what a load's objects loaded beside it hold (map-init's
	// {object: FILE}).
	Others uint64
}

// Fit is how many loads to draw for each kept, from most down to 1, that
// keeps what the groups hold at once within budget; counting says a copy
// of each program is loaded to count its instructions. Past the budget at
// 1, the refusal names the map that takes most of it.
func Fit(groups []Group, budget uint64, most int, counting bool) (int, error) {
	for per := most; per >= 1; per-- {
		if Peak(groups, per, counting) <= budget {
			return per, nil
		}
	}
	return 0, fitError(groups, budget, Peak(groups, 1, counting), counting)
}

// Peak is what the groups hold at once, drawing per loads for each one
// kept: while the candidates are loaded, and then with the kept ones
// checked and counted on an instrumented copy (a copy of each program's
// own maps, one program at a time).
func Peak(groups []Group, per int, counting bool) uint64 {
	var drawing, checking, copies uint64
	for _, g := range groups {
		drawn := g.Want
		if g.Drawn && g.Want > 1 {
			drawn *= per
		}
		own := g.F.PerLoad() - g.F.Shadows
		drawing = SatAdd(drawing, SatAdd(g.F.Shared(), SatMul(own, uint64(drawn))))
		checking = SatAdd(checking, SatAdd(g.F.Shared(), SatMul(SatAdd(g.F.PerLoad(), g.Others), uint64(g.Want))))
		if counting && !g.Floor {
			copies = max(copies, g.F.PerLoad()) // sharing the shared maps
		}
	}
	return max(drawing, SatAdd(checking, copies))
}

// fitError names the map that takes most of the groups' kernel memory,
// and the loads that hold it.
func fitError(groups []Group, budget, total uint64, counting bool) error {
	var largest MapCost
	var most uint64
	loads := 0
	var each []string
	for _, g := range groups {
		loads += g.Want
		if g.Floor {
			each = append(each, fmt.Sprintf("%d of the floor", g.Want))
		} else {
			each = append(each, fmt.Sprintf("%d of %s", g.Want, g.Name))
		}
		m, ok := g.F.Largest(g.Want)
		if !ok {
			continue
		}
		b := m.Bytes
		if !m.Shared {
			b = SatMul(b, uint64(g.Want))
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
			ErrBudget, what, FormatSize(total), FormatSize(budget), Flag)
	}
	return BudgetError(budget, total, largest, what)
}
