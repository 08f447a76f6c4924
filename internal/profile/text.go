package profile

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// View is how much the text shows.
type View struct {
	// SourceOrder lists every line in source order, unexecuted ones too,
	// instead of the executed ones hottest first.
	SourceOrder bool
	// Machine adds each line's machine code and the machine instructions
	// it executed.
	Machine bool
}

// sourceWidth bounds a line's text in the table, to keep it in 100 columns.
const sourceWidth = 52

// WriteText writes the report as a person reads it: per case, its total,
// its functions, and its lines with their counts and shares, as
// cg_annotate annotates source; for two builds, their difference.
func WriteText(w io.Writer, rep *Report, v View) error {
	bw := bufio.NewWriter(w)
	if rep.Diff != nil {
		writeDiff(bw, rep)
		return bw.Flush()
	}
	for _, p := range rep.Profiles {
		writeProfile(bw, p, v)
	}
	return bw.Flush()
}

func writeProfile(w *bufio.Writer, p *Profile, v View) {
	fmt.Fprintf(w, "%s in %s, %s\n", p.Program, p.Object, p.Type)
	if p.NoLines != "" {
		fmt.Fprintf(w, "note: %s\n", p.NoLines)
	}
	if v.Machine && p.NoMachine != "" {
		fmt.Fprintf(w, "note: no machine code by line: %s\n", p.NoMachine)
	}
	source := map[string]SourceLine{}
	for _, s := range p.Source {
		source[lineKey(s)] = s
	}
	for _, c := range p.Cases {
		fmt.Fprintf(w, "\n── case %s: %d instructions ──\n", c.Name, c.Total)
		for _, t := range c.TailCalls {
			fmt.Fprintf(w, "note: %d tail call(s) at %s entered another program, whose instructions are not counted\n", t.Calls, t.Name)
		}
		writeFunctions(w, c)
		if v.SourceOrder {
			writeSourceOrder(w, p, c, v, source)
		} else {
			writeHottest(w, c, v, source, p.Machine != "")
		}
	}
	fmt.Fprintln(w)
	writeLegend(w, p, v)
}

func writeFunctions(w *bufio.Writer, c Case) {
	fmt.Fprintf(w, "  %10s %7s %10s %6s  %s\n", "self", "share", "inclusive", "calls", "function")
	for _, f := range c.Functions {
		fmt.Fprintf(w, "  %10d %6.1f%% %10d %6d  %s\n", f.Self, c.Share(f.Self), f.Inclusive, f.Calls, f.Name)
	}
}

// writeHottest lists the executed lines, the most instructions first.
func writeHottest(w *bufio.Writer, c Case, v View, source map[string]SourceLine, machine bool) {
	lines := slices.Clone(c.Lines)
	slices.SortStableFunc(lines, func(a, b LineCount) int { return cmp.Compare(b.Instructions, a.Instructions) })
	writeLineHeader(w, v, machine)
	for _, l := range lines {
		writeLine(w, c, l, v, source[lineKey(l)], machine)
	}
}

// writeSourceOrder lists every line of the program in source order, a dot
// for those the case did not execute.
func writeSourceOrder(w *bufio.Writer, p *Profile, c Case, v View, source map[string]SourceLine) {
	counts := map[string]LineCount{}
	for _, l := range c.Lines {
		counts[lineKey(l)] = l
	}
	writeLineHeader(w, v, p.Machine != "")
	for _, s := range p.Source {
		l, ok := counts[lineKey(s)]
		if !ok {
			l = LineCount{Line: s.Line}
		}
		writeLine(w, c, l, v, s, p.Machine != "")
	}
}

func writeLineHeader(w *bufio.Writer, v View, machine bool) {
	if v.Machine && machine {
		fmt.Fprintf(w, "  %10s %7s %8s  %-24s %s\n", "Ir", "share", "machine", "line", "source")
		return
	}
	fmt.Fprintf(w, "  %10s %7s  %-24s %s\n", "Ir", "share", "line", "source")
}

// writeLine is one line of the annotated source: its count, share, place
// and text, the helpers it called, and with View.Machine its machine code.
func writeLine(w *bufio.Writer, c Case, l LineCount, v View, s SourceLine, machine bool) {
	count, share := ".", ""
	if l.Instructions > 0 {
		count, share = fmt.Sprint(l.Instructions), fmt.Sprintf("%.1f%%", c.Share(l.Instructions))
	}
	text := clip(l.Text, sourceWidth)
	if len(l.Helpers) > 0 {
		var calls []string
		for _, h := range l.Helpers {
			calls = append(calls, fmt.Sprintf("%s ×%d", h.Name, h.Calls))
		}
		text += "  → " + strings.Join(calls, ", ")
	}
	if !v.Machine || !machine {
		fmt.Fprintf(w, "  %10s %7s  %-24s %s\n", count, share, l.String(), text)
		return
	}
	executed := "."
	switch {
	case l.Instructions > 0 && l.Exact:
		executed = fmt.Sprint(l.Machine)
	case l.Instructions > 0:
		executed = "~"
	}
	fmt.Fprintf(w, "  %10s %7s %8s  %-24s %s\n", count, share, executed, l.String(), text)
	if l.NotExact != "" {
		fmt.Fprintf(w, "  %27s  (~: not exact: %s)\n", "", l.NotExact)
	}
	for _, m := range s.Code {
		fmt.Fprintf(w, "  %27s    %4x: %s\n", "", m.Offset, m.Text)
	}
}

// writeLegend says what the counts are, once under the cases.
func writeLegend(w *bufio.Writer, p *Profile, v View) {
	fmt.Fprintln(w, "Ir: BPF instructions executed (a helper call counts one; what a tail call enters is not counted);")
	fmt.Fprintln(w, "inclusive: with the callees and callbacks called from this function alone; → helper calls")
	if v.Machine && p.Machine != "" {
		fmt.Fprintf(w, "machine: %s instructions executed where exact (the line's BPF instructions in one basic block,\n", p.Machine)
		fmt.Fprintln(w, "its JIT code branching only at its end), ~ where not; offsets are in the function's code")
	}
}

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeDiff lists, per case, the functions and lines whose counts changed,
// the largest change first.
func writeDiff(w *bufio.Writer, rep *Report) {
	d := rep.Diff
	fmt.Fprintf(w, "before: %s in %s\nafter:  %s in %s\n", rep.Profiles[0].Program, d.Before, rep.Profiles[1].Program, d.After)
	for _, c := range d.Cases {
		fmt.Fprintf(w, "\n── case %s: %d → %d instructions (%+d) ──\n", c.Name, c.Before, c.After, int64(c.After)-int64(c.Before))
		if len(c.Lines) == 0 && len(c.Functions) == 0 {
			fmt.Fprintln(w, "  no line or function changed")
			continue
		}
		fmt.Fprintf(w, "  %8s %8s %8s  %s\n", "before", "after", "change", "function")
		for _, f := range c.Functions {
			fmt.Fprintf(w, "  %8d %8d %+8d  %s\n", f.Before, f.After, f.Delta(), f.Name)
		}
		fmt.Fprintf(w, "  %8s %8s %8s  %-24s %s\n", "before", "after", "change", "line", "source")
		for _, l := range c.Lines {
			fmt.Fprintf(w, "  %8d %8d %+8d  %-24s %s\n", l.Before, l.After, l.Delta(), l.Name, clip(l.Source, sourceWidth))
		}
	}
	fmt.Fprintln(w, "\nlines are matched by file and line number, functions by name; counts are BPF instructions executed")
}
