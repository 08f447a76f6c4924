package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	pprof "github.com/google/pprof/profile"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// The formats of a profile: text (for people), pprof, callgrind, JSON.

// writeProfileJSON writes v, a profile or one across kernels, as indented JSON.
func writeProfileJSON(w io.Writer, v any) error {
	if err := indentedJSON(w, v); err != nil {
		return fmt.Errorf("write the profile as JSON: %w", err)
	}
	return nil
}

// lineKey identifies a line across builds and kernels: a Line, or a line
// of a profile, which holds one.
func lineKey(l fmt.Stringer) string { return l.String() }

// compareLines orders lines by file, then number.
func compareLines(a, b results.Line) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Number, b.Number))
}

// sourceWidth bounds a line's text in the table, to keep it in 100 columns.
const sourceWidth = 52

// writeProfileText writes the report as a person reads it: per case, its total,
// its functions, and its lines with their counts and shares, as
// cg_annotate annotates source; for two builds, their difference.
func writeProfileText(w io.Writer, rep *results.ProfileReport, v View) error {
	bw := bufio.NewWriter(w)
	if rep.Diff != nil {
		if len(rep.Profiles) != 2 { // results.ProfileReport.Check refuses it; never index past
			return fmt.Errorf("a profile's difference of %d profile(s): want the two builds it compares", len(rep.Profiles))
		}
		writeProfileDiff(bw, rep)
		return bw.Flush()
	}
	for _, p := range rep.Profiles {
		writeProfile(bw, p, v)
	}
	return bw.Flush()
}

func writeProfile(w *bufio.Writer, p *results.Profile, v View) {
	fmt.Fprintf(w, "%s in %s, %s\n", printable.Line(p.Program), printable.Line(p.Object), printable.Line(p.Type))
	if p.NoLines != "" {
		fmt.Fprintf(w, "note: %s\n", printable.Line(p.NoLines))
	}
	if v.Machine && p.NoMachine != "" {
		fmt.Fprintf(w, "note: no machine code by line: %s\n", printable.Line(p.NoMachine))
	}
	source := map[string]results.ProfileSource{}
	for _, s := range p.Source {
		source[lineKey(s)] = s
	}
	for _, c := range p.Cases {
		fmt.Fprintf(w, "\n── case %s: %d instructions ──\n", printable.Line(c.Name), c.Total)
		for _, t := range c.TailCalls {
			fmt.Fprintf(w, "note: %d tail call(s) at %s entered another program, whose instructions are not counted\n", t.Calls, printable.Line(t.Name))
		}
		writeFunctions(w, c)
		if v.SourceOrder {
			writeSourceOrder(w, p, c, v, source)
		} else {
			writeHottest(w, c, v, source, p.Machine != "")
		}
	}
	writeVerifierWalk(w, p, source)
	fmt.Fprintln(w)
	writeLegend(w, p, v)
}

// writeVerifierWalk shows where the verifier spent its effort loading
// the program, by function and line, the most first; or why not.
func writeVerifierWalk(w *bufio.Writer, p *results.Profile, source map[string]results.ProfileSource) {
	c := p.Verifier
	if c == nil {
		if p.NoVerifier != "" {
			fmt.Fprintf(w, "\nnote: where the verifier spent its effort is not given: %s\n", printable.Line(p.NoVerifier))
		}
		return
	}
	fmt.Fprintf(w, "\n── the verifier: %d instructions processed ──\n", c.Total)
	fmt.Fprintf(w, "  %10s %7s %10s %6s  %s\n", "self", "share", "inclusive", "entries", "function")
	for _, f := range c.Functions {
		fmt.Fprintf(w, "  %10d %6.1f%% %10d %6d  %s\n", f.Self, c.Share(f.Self), f.Inclusive, f.Calls, printable.Line(f.Name))
	}
	lines := slices.Clone(c.Lines)
	slices.SortStableFunc(lines, func(a, b results.LineCount) int { return cmp.Compare(b.Instructions, a.Instructions) })
	fmt.Fprintf(w, "  %10s %7s  %-24s %s\n", "processed", "share", "line", "source")
	for _, l := range lines {
		writeLine(w, *c, l, View{}, source[lineKey(l)], false)
	}
}

func writeFunctions(w *bufio.Writer, c results.ProfileCase) {
	fmt.Fprintf(w, "  %10s %7s %10s %6s  %s\n", "self", "share", "inclusive", "calls", "function")
	for _, f := range c.Functions {
		fmt.Fprintf(w, "  %10d %6.1f%% %10d %6d  %s\n", f.Self, c.Share(f.Self), f.Inclusive, f.Calls, printable.Line(f.Name))
	}
}

// writeHottest lists the executed lines, the most instructions first.
func writeHottest(w *bufio.Writer, c results.ProfileCase, v View, source map[string]results.ProfileSource, machine bool) {
	lines := slices.Clone(c.Lines)
	slices.SortStableFunc(lines, func(a, b results.LineCount) int { return cmp.Compare(b.Instructions, a.Instructions) })
	writeLineHeader(w, v, machine)
	for _, l := range lines {
		writeLine(w, c, l, v, source[lineKey(l)], machine)
	}
}

// writeSourceOrder lists every line of the program in source order, a dot
// for those the case did not execute.
func writeSourceOrder(w *bufio.Writer, p *results.Profile, c results.ProfileCase, v View, source map[string]results.ProfileSource) {
	counts := map[string]results.LineCount{}
	for _, l := range c.Lines {
		counts[lineKey(l)] = l
	}
	writeLineHeader(w, v, p.Machine != "")
	for _, s := range p.Source {
		l, ok := counts[lineKey(s)]
		if !ok {
			l = results.LineCount{Line: s.Line}
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
func writeLine(w *bufio.Writer, c results.ProfileCase, l results.LineCount, v View, s results.ProfileSource, machine bool) {
	count, share := ".", ""
	if l.Instructions > 0 {
		count, share = fmt.Sprint(l.Instructions), fmt.Sprintf("%.1f%%", c.Share(l.Instructions))
	}
	text := sourceText(clip(l.Text, sourceWidth))
	if len(l.Helpers) > 0 {
		var calls []string
		for _, h := range l.Helpers {
			calls = append(calls, fmt.Sprintf("%s ×%d", printable.Line(h.Name), h.Calls))
		}
		text += "  → " + strings.Join(calls, ", ")
	}
	place := printable.Line(l.String())
	if !v.Machine || !machine {
		fmt.Fprintf(w, "  %10s %7s  %-24s %s\n", count, share, place, text)
		return
	}
	executed := "."
	switch {
	case l.Instructions > 0 && l.Exact:
		executed = fmt.Sprint(l.Machine)
	case l.Instructions > 0:
		executed = "~"
	}
	fmt.Fprintf(w, "  %10s %7s %8s  %-24s %s\n", count, share, executed, place, text)
	if l.NotExact != "" {
		fmt.Fprintf(w, "  %27s  (~: not exact: %s)\n", "", printable.Line(l.NotExact))
	}
	for _, m := range s.Code {
		fmt.Fprintf(w, "  %27s    %4x: %s\n", "", m.Offset, sourceText(m.Text))
	}
}

// writeLegend says what the counts are, once under the cases.
func writeLegend(w *bufio.Writer, p *results.Profile, v View) {
	fmt.Fprintln(w, "Ir: BPF instructions executed (a helper call counts one; what a tail call enters is not counted);")
	fmt.Fprintln(w, "inclusive: with the callees and callbacks called from this function alone; → helper calls")
	if p.Verifier != nil {
		fmt.Fprintln(w, "processed: how often the verifier processed the line's instructions loading the program, each path")
		fmt.Fprintln(w, "and state apart (its log at level 2; the total is its \"processed N insns\"); entries: walks into the function")
	}
	if v.Machine && p.Machine != "" {
		fmt.Fprintf(w, "machine: %s instructions executed where exact (the line's BPF instructions in one basic block,\n", p.Machine)
		fmt.Fprintln(w, "its JIT code branching only at its end), ~ where not; offsets are in the function's code")
	}
}

// writeProfileDiff lists, per case, the functions and lines whose counts changed,
// the largest change first.
func writeProfileDiff(w *bufio.Writer, rep *results.ProfileReport) {
	d := rep.Diff
	fmt.Fprintf(w, "before: %s in %s\nafter:  %s in %s\n", printable.Line(rep.Profiles[0].Program), printable.Line(d.Before),
		printable.Line(rep.Profiles[1].Program), printable.Line(d.After))
	for _, c := range d.Cases {
		fmt.Fprintf(w, "\n── case %s: %d → %d instructions (%+d) ──\n", printable.Line(c.Name), c.Before, c.After, int64(c.After)-int64(c.Before))
		if len(c.Lines) == 0 && len(c.Functions) == 0 {
			fmt.Fprintln(w, "  no line or function changed")
			continue
		}
		writeChanges(w, c)
	}
	if c := d.Verifier; c != nil {
		fmt.Fprintf(w, "\n── the verifier: %d → %d instructions processed (%+d) ──\n", c.Before, c.After, int64(c.After)-int64(c.Before))
		writeChanges(w, *c)
	}
	fmt.Fprintln(w, "\nlines are matched by file and line number, functions by name; counts are BPF instructions executed,")
	fmt.Fprintln(w, "and under the verifier instructions it processed loading the program")
}

// writeChanges lists a case's functions and lines whose counts changed.
func writeChanges(w *bufio.Writer, c results.ProfileCaseDiff) {
	fmt.Fprintf(w, "  %8s %8s %8s  %s\n", "before", "after", "change", "function")
	for _, f := range c.Functions {
		fmt.Fprintf(w, "  %8d %8d %+8d  %s\n", f.Before, f.After, f.Delta(), printable.Line(f.Name))
	}
	fmt.Fprintf(w, "  %8s %8s %8s  %-24s %s\n", "before", "after", "change", "line", "source")
	for _, l := range c.Lines {
		fmt.Fprintf(w, "  %8d %8d %+8d  %-24s %s\n", l.Before, l.After, l.Delta(), printable.Line(l.Name), sourceText(clip(l.Source, sourceWidth)))
	}
}

// writeCallgrind writes the report in Callgrind's format (events: Ir), as
// callgrind_annotate and KCachegrind read it: each function's lines with
// the instructions they executed, summed over the cases (select one case
// with the case flags to see it alone), and the calls of each callee or
// callback that has a single call site, with its inclusive cost. A callee
// with several call sites has its own cost but no call record: its cost
// per site is not known.
func writeCallgrind(w io.Writer, rep *results.ProfileReport) error {
	bw := bufio.NewWriter(w)
	cw := &callgrindWriter{w: bw, files: map[string]int{}, fns: map[string]int{}}
	var cmd []string
	var total uint64
	for _, prof := range rep.Profiles {
		if prof.Layout == nil {
			return fmt.Errorf("callgrind: the profile of %s was read back, without its program's calls", prof.Program)
		}
		var names []string
		for _, c := range prof.Cases {
			names = append(names, c.Name)
			total += c.Total
		}
		cmd = append(cmd, fmt.Sprintf("%s in %s, cases %s", prof.Program, prof.Object, strings.Join(names, ", ")))
	}
	fmt.Fprintf(bw, "# callgrind format\nversion: 1\ncreator: xdpmicro\n")
	// Names from files on one line: a case named "a\nfl=..." started lines
	// of the format's own.
	fmt.Fprintf(bw, "cmd: xdpmicro profile: %s\n", printable.Line(strings.Join(cmd, "; ")))
	fmt.Fprintf(bw, "positions: line\nevents: Ir\nsummary: %d\n", total)
	for _, prof := range rep.Profiles {
		cw.profile(prof)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write the callgrind profile: %w", err)
	}
	return nil
}

type callgrindWriter struct {
	w          *bufio.Writer
	files, fns map[string]int // compressed names
}

// name is a compressed name: "(n) name" the first time, "(n)" after.
func (cw *callgrindWriter) name(table map[string]int, s string) string {
	if id, ok := table[s]; ok {
		return fmt.Sprintf("(%d)", id)
	}
	table[s] = len(table) + 1
	return fmt.Sprintf("(%d) %s", table[s], printable.Line(s)) // a name's line feed would start a line of the format
}

// profile writes one program's functions: their lines' counts, then their
// calls.
func (cw *callgrindWriter) profile(prof *results.Profile) {
	p := prof.Layout
	perInsn := make([]uint64, len(p.Insns))
	for _, c := range prof.Cases {
		for i, n := range c.PerInsn {
			perInsn[i] += n
		}
	}
	fileOf := func(l results.Line) string {
		if l.File == "" {
			return prof.Object + " (no line info: lines are instruction indexes)"
		}
		return l.File
	}
	inclusive := p.Inclusive(perInsn)
	for f, fn := range p.Funcs {
		cost := map[int]uint64{} // line index -> instructions
		for i, insn := range p.Insns {
			if insn.Func == f && perInsn[i] > 0 {
				cost[insn.Line] += perInsn[i]
			}
		}
		if len(cost) == 0 {
			continue
		}
		lines := make([]int, 0, len(cost))
		for l := range cost {
			lines = append(lines, l)
		}
		slices.SortFunc(lines, func(a, b int) int { return compareLines(p.Lines[a], p.Lines[b]) })
		file := fileOf(p.Lines[p.Insns[fn.Entry].Line])
		fmt.Fprintf(cw.w, "\nfl=%s\nfn=%s\n", cw.name(cw.files, file), cw.fnName(prof, fn.Name))
		current := file
		for _, l := range lines {
			if lf := fileOf(p.Lines[l]); lf != current {
				fmt.Fprintf(cw.w, "fi=%s\n", cw.name(cw.files, lf))
				current = lf
			}
			fmt.Fprintf(cw.w, "%d %d\n", p.Lines[l].Number, cost[l])
		}
		cw.calls(prof, f, perInsn, inclusive, fileOf, current)
	}
}

// fnName is a function's compressed name; the program's name qualifies
// it when two builds are written together.
func (cw *callgrindWriter) fnName(prof *results.Profile, name string) string {
	if prof.Label != "" {
		name = prof.Label + ": " + name
	}
	return cw.name(cw.fns, name)
}

// calls writes the calls function f makes of callees whose only call
// site is in f: their entries and inclusive cost, at the call site's line.
func (cw *callgrindWriter) calls(prof *results.Profile, f int, perInsn, inclusive []uint64, fileOf func(results.Line) string, current string) {
	p := prof.Layout
	for g, callee := range p.Funcs {
		site := p.Caller(g)
		if site < 0 || p.Insns[site].Func != f || perInsn[callee.Entry] == 0 {
			continue
		}
		siteLine, entryLine := p.Lines[p.Insns[site].Line], p.Lines[p.Insns[callee.Entry].Line]
		if lf := fileOf(siteLine); lf != current {
			fmt.Fprintf(cw.w, "fi=%s\n", cw.name(cw.files, lf))
			current = lf
		}
		fmt.Fprintf(cw.w, "cfi=%s\ncfn=%s\ncalls=%d %d\n%d %d\n", cw.name(cw.files, fileOf(entryLine)), cw.fnName(prof, callee.Name),
			perInsn[callee.Entry], entryLine.Number, siteLine.Number, inclusive[g])
	}
}

// mappingBase is where the first program's instructions are placed in the
// pprof profile's address space: pprof takes address 0 for none.
const mappingBase = 0x10000

// writePprof writes the report as a gzipped profile.proto, as pprof reads
// it: sample type instructions/count; a location per executed BPF
// instruction, at its byte offset, with its line and function; a sample
// per case and instruction, labelled with the case (and the build, when
// there are two), whose stack holds the call sites of its function's
// chain of single callers, so that the flame graph nests callees.
func writePprof(w io.Writer, rep *results.ProfileReport) error {
	b := &pprofBuilder{
		p: &pprof.Profile{
			SampleType:        []*pprof.ValueType{{Type: "instructions", Unit: "count"}},
			PeriodType:        &pprof.ValueType{Type: "instructions", Unit: "count"},
			Period:            1,
			DefaultSampleType: "instructions",
		},
		functions: map[[2]string]*pprof.Function{},
	}
	base := uint64(mappingBase)
	for _, prof := range rep.Profiles {
		if prof.Layout == nil {
			return fmt.Errorf("pprof: the profile of %s was read back, without its program's instructions", prof.Program)
		}
		base = b.add(prof, base, len(rep.Profiles) > 1)
	}
	if err := b.p.CheckValid(); err != nil {
		return fmt.Errorf("pprof profile: %w", err)
	}
	if err := b.p.Write(w); err != nil {
		return fmt.Errorf("write the pprof profile: %w", err)
	}
	return nil
}

type pprofBuilder struct {
	p         *pprof.Profile
	functions map[[2]string]*pprof.Function // by name and file
}

// add puts one program's cases into the profile, its instructions from
// base on, and returns where the next program's may start.
func (b *pprofBuilder) add(prof *results.Profile, base uint64, labelBuild bool) uint64 {
	p := prof.Layout
	m := &pprof.Mapping{
		ID: uint64(len(b.p.Mapping) + 1), Start: base, File: prof.Program + " in " + prof.Object,
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true,
	}
	size := uint64(p.Slots) * 8
	m.Limit = base + max(size, 8)
	b.p.Mapping = append(b.p.Mapping, m)
	b.p.Comments = append(b.p.Comments, fmt.Sprintf("xdpmicro profile: %s in %s (%s)", prof.Program, prof.Object, prof.Type))
	if prof.NoLines != "" {
		b.p.Comments = append(b.p.Comments, "note: "+prof.NoLines)
	}
	locations := map[int]*pprof.Location{}
	// A location per instruction at its offset; a calling function as a
	// whole (-1-g) at its entry, on no line.
	location := func(i int) *pprof.Location {
		if l, ok := locations[i]; ok {
			return l
		}
		insn, number := i, int64(0)
		if i >= 0 {
			number = int64(p.Lines[p.Insns[i].Line].Number)
		} else {
			insn = p.Funcs[-1-i].Entry
		}
		line := p.Lines[p.Insns[insn].Line]
		l := &pprof.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: base + uint64(p.Insns[insn].Offset)*8,
			Line: []pprof.Line{{Function: b.function(p.Funcs[p.Insns[insn].Func].Name, line.File, prof), Line: number}}}
		b.p.Location = append(b.p.Location, l)
		locations[i] = l
		return l
	}
	for _, c := range prof.Cases {
		labels := map[string][]string{"case": {c.Name}}
		if labelBuild {
			labels["build"] = []string{prof.Label}
		}
		for i, n := range c.PerInsn {
			if n == 0 {
				continue
			}
			stack := []*pprof.Location{location(i)}
			for _, site := range p.Stack(i) {
				stack = append(stack, location(site))
			}
			b.p.Sample = append(b.p.Sample, &pprof.Sample{Location: stack, Value: []int64{int64(n)}, Label: labels})
		}
	}
	return (m.Limit + 0xfff) &^ 0xfff
}

// function is the pprof function of a BPF function's lines in one file:
// pprof lists a function's lines from the function's file, so a function
// with lines from a header is one function per file.
func (b *pprofBuilder) function(name, file string, prof *results.Profile) *pprof.Function {
	if file == "" {
		file = prof.Object + " (no line info: lines are instruction indexes)"
	}
	k := [2]string{name, file}
	if f, ok := b.functions[k]; ok {
		return f
	}
	f := &pprof.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
	b.p.Function = append(b.p.Function, f)
	b.functions[k] = f
	return f
}
