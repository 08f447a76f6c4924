package profile

import (
	"cmp"
	"slices"
)

// Report is a profile run: one program's profile, or two builds' and their
// difference.
type Report struct {
	Profiles []*Profile `json:"profiles"`
	Diff     *Diff      `json:"diff,omitempty"`
}

// Diff is, per case, how the instructions executed changed from one build
// to another, by line and by function. Lines are matched by file and line
// number (by index without line info), functions by name, as pprof's
// -diff_base matches them.
type Diff struct {
	Before string     `json:"before"`
	After  string     `json:"after"`
	Cases  []CaseDiff `json:"cases"`
}

// CaseDiff is one case's change: its totals, and the lines and functions
// whose counts changed, the largest change first.
type CaseDiff struct {
	Name      string   `json:"name"`
	Before    uint64   `json:"before"`
	After     uint64   `json:"after"`
	Lines     []Change `json:"lines"`
	Functions []Change `json:"functions"`
}

// Change is a line's or a function's instructions before and after.
type Change struct {
	Name   string `json:"name"`             // file:line, or a function's name
	Source string `json:"source,omitempty"` // the line's text
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
}

// Delta is the change, after less before.
func (c Change) Delta() int64 { return int64(c.After) - int64(c.Before) }

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
	return d
}

// lineChanges are the lines whose counts differ, the largest change first.
func lineChanges(before, after Case) []Change {
	byKey := map[string]*Change{}
	var order []string
	add := func(l LineCount, after bool) {
		c, ok := byKey[l.key()]
		if !ok {
			c = &Change{Name: l.String(), Source: l.Text}
			byKey[l.key()] = c
			order = append(order, l.key())
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
