package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// What the table shows by default, and what waits for --verbose.
//
// A default run is read at a glance: the figures, then a line for each
// thing that makes a figure unreliable, or that the tool or the machine
// did out of the ordinary. A line matters, and is shown by default, when
// it says
//
//   - that a figure is in doubt: precision not reached, two regimes in a
//     case's samples, outliers under mean or ols (which every sample or
//     call enters; see outliersMove), an interrupted run, a comparison's
//     verdict not settled, its sides not comparable (warnings),
//     instruction counts and times that disagree;
//   - that the path measured is not the packet's one path: a program that
//     changed its frame or its context, calls that returned another
//     action than the checking run, an action changed between builds;
//   - that the tool left its plan: flat sampling where linear was asked,
//     sampling past the time budget, objects changed to load them (the
//     environment's notes), a measuring CPU moved from or waited for
//     because other runs held it;
//   - that the machine may have moved the figures: its load warnings, a
//     TLB flushed on every entry under one run a call;
//   - what a cell or a mark of the table means where it is not plain: why
//     instructions were not counted (a "—"), the † of one run a call;
//   - severe outliers: Criterion's "Found N outliers among M
//     measurements (...)", once for the table, where any case has some
//     (the outliers column counts every case's; see outliers.go), unless
//     each case's outliers have a line already (under mean or ols).
//
// The rest is the method, the same on every ordinary run, and waits for
// --verbose (the JSON and the HTML page hold it too): the estimator, the
// repeat levels, the clock, the intercepts, the resolution, the
// bootstrap, anchoring, why this CPU, the floor of each case, what insns
// counts, each case's outliers by kind where the estimate stands aside
// from them, samples
// restarted after a signal (the restarted call is timed anew, whole; the
// interrupted one is dropped), the maps the checking run changed (the
// return column already says which path it took), the context a case was
// asked to run with, a frame restored or run one run a call as asked, a
// precision reached but not yet confirmed between rounds, and how a
// comparison was tested. One short line stays: the kernel, the CPU, the
// wall time, and where the method is.
//
// By default every line fits maxColumns: the tables by their layout
// (--wide shows every column; the outliers column gives up its kinds,
// then its place to a line, where the table would be wider), the lines
// under them wrapped at spaces.

// maxColumns is the width of a default table and of every line under a
// table, in columns (runes: the output's symbols are one column each).
const maxColumns = 100

// maxLines is what the default output of the bundled program holds, a
// table or a comparison: the lines that repeat what a column or another
// line says in part (Criterion's outliers sentence, the pointer to
// profile) give way first, where that keeps an output within it.
const maxLines = 24

// note is a line under a table, shown by default when it matters (see
// above), and with --verbose always: in its long form, if it has one.
type note struct {
	text    string
	long    string
	matters bool
	// givesWay marks a line a default output drops first to keep within
	// maxLines.
	givesWay bool
}

// mattering and method make notes.
func mattering(format string, args ...any) note {
	return note{text: fmt.Sprintf(format, args...), matters: true}
}

func method(format string, args ...any) note {
	return note{text: fmt.Sprintf(format, args...)}
}

// lines writes notes under a table: those that matter, or all when
// verbose, each wrapped to maxColumns with its continuation indented.
type lines struct {
	w       io.Writer
	verbose bool
	// short drops the notes that give way.
	short bool
}

// note writes n after indent, if it is to be shown; an empty note is
// none.
func (l lines) note(indent string, n note) {
	if n.text == "" || !n.matters && !l.verbose || n.givesWay && l.short {
		return
	}
	text := n.text
	if l.verbose && n.long != "" {
		text = n.long
	}
	// Names from files in it stay on its line, written as their escapes.
	for _, line := range wrap(printableLine(text), indent, indent+"  ", maxColumns) {
		fmt.Fprintln(l.w, line)
	}
}

// notes writes each of ns after indent.
func (l lines) notes(indent string, ns []note) {
	for _, n := range ns {
		l.note(indent, n)
	}
}

// wrap breaks text at spaces into lines of at most width columns, the
// first after first, the others after rest, never between a figure and
// its "%". A word longer than a line stays whole on a line of its own.
func wrap(text, first, rest string, width int) []string {
	var words []string
	for _, word := range strings.Fields(text) {
		if n := len(words); n > 0 && strings.HasPrefix(word, "%") {
			words[n-1] += " " + word
			continue
		}
		words = append(words, word)
	}
	var out []string
	line, n := first, 0
	for _, word := range words {
		if n > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			out = append(out, line)
			line, n = rest, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	return append(out, line)
}
