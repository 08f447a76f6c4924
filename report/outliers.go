package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xdpmicro/xdpmicro/results"
)

// Outliers as the tables show them, counted Criterion's way: the samples
// beyond Tukey's fences (1.5 and 3 interquartile ranges below the first
// quartile or above the third), low severe, low mild, high mild and high
// severe, as the statistics counted them (Summary.Outliers). The counts
// are of the samples a figure stands for: a case's, which with linear
// sampling are each call's time per run as the kernel reports it, the
// same that --verbose's note of each case counts; in a comparison, both
// builds', over every load the change was judged by.

// tally is outliers by kind among n samples.
type tally struct {
	lowSevere, lowMild, highMild, highSevere, n int
}

// add counts a summary's outliers and samples in.
func (t *tally) add(s *results.Summary) {
	o := s.Outliers
	t.lowSevere += o.LowSevere
	t.lowMild += o.LowMild
	t.highMild += o.HighMild
	t.highSevere += o.HighSevere
	t.n += s.N
}

func (t tally) total() int  { return t.lowSevere + t.lowMild + t.highMild + t.highSevere }
func (t tally) severe() int { return t.lowSevere + t.highSevere }

// kinds is the count of each kind there is, in Criterion's order, in
// words ("4 high mild, 1 high severe") or short ("4hm 1hs").
func (t tally) kinds(short bool) string {
	var out []string
	for _, k := range []struct {
		n           int
		name, short string
	}{{t.lowSevere, "low severe", "ls"}, {t.lowMild, "low mild", "lm"}, {t.highMild, "high mild", "hm"}, {t.highSevere, "high severe", "hs"}} {
		switch {
		case k.n == 0:
		case short:
			out = append(out, fmt.Sprintf("%d%s", k.n, k.short))
		default:
			out = append(out, fmt.Sprintf("%d %s", k.n, k.name))
		}
	}
	if short {
		return strings.Join(out, " ")
	}
	return strings.Join(out, ", ")
}

// cell is the tally as a table's cell: "5/1754", with kinds
// "5/1754 (4hm 1hs)".
func (t tally) cell(kinds bool) string {
	s := fmt.Sprintf("%d/%d", t.total(), t.n)
	if kinds && t.total() > 0 {
		s += " (" + t.kinds(true) + ")"
	}
	return s
}

// sentence is Criterion's line: "Found 5 outliers among 1754
// measurements (4 high mild, 1 high severe)", the kinds short where the
// words would not fit one line under a table.
func (t tally) sentence() string {
	outliers := "outliers"
	if t.total() == 1 {
		outliers = "outlier"
	}
	s := fmt.Sprintf("Found %d %s among %d measurements (%s)", t.total(), outliers, t.n, t.kinds(false))
	if utf8.RuneCountInString(noteIndent+s) > maxColumns {
		s = fmt.Sprintf("Found %d %s among %d measurements (%s)", t.total(), outliers, t.n, t.kinds(true))
	}
	return s
}

// noteIndent is the indent of the lines under a table.
const noteIndent = "  "

// caseTally is the outliers of the samples a program table's figure
// stands for: the case's, over every load of p when the figure is over
// its loads; ok is false for a case with too few samples.
func caseTally(p results.Program, c results.Case) (t tally, ok bool) {
	if c.Stats == nil {
		return t, false
	}
	t.add(c.Stats)
	if c.Stats.Loads == nil {
		return t, true
	}
	for _, q := range p.Placements {
		j := slices.IndexFunc(q.Results, func(o results.Case) bool { return o.Name == c.Name })
		if j >= 0 && q.Results[j].Stats != nil {
			t.add(q.Results[j].Stats)
		}
	}
	return t, true
}

// plus is the two tallies together.
func (t tally) plus(u tally) tally {
	return tally{t.lowSevere + u.lowSevere, t.lowMild + u.lowMild, t.highMild + u.highMild, t.highSevere + u.highSevere, t.n + u.n}
}

// sides is a compared case's outliers on each side.
type sides struct{ before, after tally }

// cell is both sides' outliers together as the default table shows
// them, or each side's, before → after, as a wide one does.
func (s sides) cell(level int, wide bool) string {
	if wide {
		return s.before.cell(true) + " → " + s.after.cell(true)
	}
	return s.before.plus(s.after).cell(level == outliersKinds)
}

// comparedSides is the outliers of the samples a comparison's change
// stands for: each build's, over every load the change was judged by (a
// slope's over its placements, an estimate of the kernel's figures over
// the first load). The builds are the report's two programs, before and
// after; ok is false where they are not there.
func (r doc) comparedSides(cc results.ComparedCase) (s sides, ok bool) {
	if len(r.Programs) != 2 {
		return s, false
	}
	for i, side := range []*tally{&s.before, &s.after} {
		p := r.Programs[i]
		loads := []results.Program{p}
		if cc.Placements > 0 {
			loads = append(loads, p.Placements...)
		}
		for _, q := range loads {
			j := slices.IndexFunc(q.Results, func(c results.Case) bool { return c.Name == cc.Name })
			if j < 0 || q.Results[j].Stats == nil || cc.Placements > 0 && len(q.Results[j].Runs) == 0 {
				continue // as the comparison left it out
			}
			side.add(q.Results[j].Stats)
		}
		if side.n == 0 {
			return sides{}, false
		}
	}
	return s, true
}

// sum is the tallies there are, added up.
func sum(ts []*tally) tally {
	var out tally
	for _, t := range ts {
		if t != nil {
			out = out.plus(*t)
		}
	}
	return out
}

// foundNote is Criterion's line for a table's outliers, summed over its
// cases: shown by default where any is severe, dropped first when the
// default output would pass maxLines (see tableView.write).
func foundNote(t tally) note {
	if t.severe() == 0 {
		return note{}
	}
	return note{text: t.sentence(), matters: true, givesWay: true}
}

// columnNote gives each case's outliers, "name cell", where the table
// could not hold their column within maxColumns.
func columnNote(cells []string) note {
	if len(cells) == 0 {
		return note{}
	}
	return mattering("outliers: %s", strings.Join(cells, ", "))
}

// How much of the outliers a default table shows: a column with their
// kinds, a column of the counts alone, or, where neither fits maxColumns,
// no column and a line under the table (columnNote).
const (
	outliersKinds = iota
	outliersCounts
	outliersLine
	outliersLevels
)

// writeFitting renders a table at each level in turn, from the first,
// and writes the first whose every line fits maxColumns, or the last;
// it returns the level written.
func writeFitting(w io.Writer, levels int, render func(w io.Writer, level int) error) (int, error) {
	var buf bytes.Buffer
	level := 0
	for ; level < levels; level++ {
		buf.Reset()
		if err := render(&buf, level); err != nil {
			return level, err
		}
		if fits(buf.String()) {
			break
		}
	}
	level = min(level, levels-1)
	_, err := w.Write(buf.Bytes())
	return level, err
}

// fits says whether every line of s fits maxColumns.
func fits(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if utf8.RuneCountInString(line) > maxColumns {
			return false
		}
	}
	return true
}
