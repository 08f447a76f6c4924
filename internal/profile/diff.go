package profile

import (
	"cmp"
	"slices"

	"github.com/xdpmicro/xdpmicro/results"
)

// The saved profile run and its difference are results'.
type (
	Report   = results.ProfileReport
	Diff     = results.ProfileDiff
	CaseDiff = results.ProfileCaseDiff
	Change   = results.ProfileChange
)

// Compare gives the difference of two builds' profiles, case by case; a
// case is matched by name.
func Compare(before, after *Profile) *Diff {
	d := &Diff{Before: before.Object, After: after.Object}
	for _, a := range after.Cases {
		i := slices.IndexFunc(before.Cases, func(b Case) bool { return b.Name == a.Name })
		if i < 0 {
			continue
		}
		b := before.Cases[i]
		cd := CaseDiff{Name: a.Name, Before: b.Total, After: a.Total}
		cd.Lines = lineChanges(b, a)
		cd.Functions = functionChanges(b, a)
		d.Cases = append(d.Cases, cd)
	}
	if b, a := before.Verifier, after.Verifier; b != nil && a != nil {
		d.Verifier = &CaseDiff{Name: a.Name, Before: b.Total, After: a.Total, Lines: lineChanges(*b, *a), Functions: functionChanges(*b, *a)}
	}
	return d
}

// lineChanges are the lines whose counts differ, the largest change first.
func lineChanges(before, after Case) []Change {
	byKey := map[string]*Change{}
	var order []string
	add := func(l LineCount, after bool) {
		c, ok := byKey[lineKey(l.Line)]
		if !ok {
			c = &Change{Name: l.String(), Source: l.Text}
			byKey[lineKey(l.Line)] = c
			order = append(order, lineKey(l.Line))
		}
		if after {
			c.After, c.Source = c.After+l.Instructions, l.Text
		} else {
			c.Before += l.Instructions
		}
	}
	for _, l := range before.Lines {
		add(l, false)
	}
	for _, l := range after.Lines {
		add(l, true)
	}
	return changed(byKey, order)
}

// functionChanges are the functions whose own counts differ.
func functionChanges(before, after Case) []Change {
	byKey := map[string]*Change{}
	var order []string
	for side, fs := range [][]FunctionCount{before.Functions, after.Functions} {
		for _, f := range fs {
			c, ok := byKey[f.Name]
			if !ok {
				c = &Change{Name: f.Name}
				byKey[f.Name] = c
				order = append(order, f.Name)
			}
			if side == 1 {
				c.After += f.Self
			} else {
				c.Before += f.Self
			}
		}
	}
	return changed(byKey, order)
}

// changed keeps the changes that are not zero, the largest first, ties in
// the order first seen.
func changed(byKey map[string]*Change, order []string) []Change {
	out := []Change{}
	for _, k := range order {
		if c := byKey[k]; c.Delta() != 0 {
			out = append(out, *c)
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int { return cmp.Compare(abs(b.Delta()), abs(a.Delta())) })
	return out
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
