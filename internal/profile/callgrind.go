package profile

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteCallgrind writes the report in Callgrind's format (events: Ir), as
// callgrind_annotate and KCachegrind read it: each function's lines with
// the instructions they executed, summed over the cases (select one case
// with the case flags to see it alone), and the calls of each callee or
// callback that has a single call site, with its inclusive cost. A callee
// with several call sites has its own cost but no call record: its cost
// per site is not known.
func WriteCallgrind(w io.Writer, rep *Report) error {
	bw := bufio.NewWriter(w)
	cw := &callgrindWriter{w: bw, files: map[string]int{}, fns: map[string]int{}}
	var cmd []string
	var total uint64
	for _, prof := range rep.Profiles {
		if programOf(prof) == nil {
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
	fmt.Fprintf(bw, "cmd: xdpmicro profile: %s\n", strings.Join(cmd, "; "))
	fmt.Fprintf(bw, "positions: line\nevents: Ir\nsummary: %d\n", total)
	for _, prof := range rep.Profiles {
		cw.profile(prof)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write the callgrind profile: %w", err)
	}
	return nil
}

// programOf is the program prof was attributed over; nil for a profile
// read back from a file.
func programOf(prof *Profile) *Program {
	p, _ := prof.Attributed.(*Program)
	return p
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
	return fmt.Sprintf("(%d) %s", table[s], s)
}

// profile writes one program's functions: their lines' counts, then their
// calls.
func (cw *callgrindWriter) profile(prof *Profile) {
	p := programOf(prof)
	perInsn := make([]uint64, len(p.insns))
	for _, c := range prof.Cases {
		for i, n := range c.PerInsn {
			perInsn[i] += n
		}
	}
	fileOf := func(l Line) string {
		if l.File == "" {
			return prof.Object + " (no line info: lines are instruction indexes)"
		}
		return l.File
	}
	inclusive := p.inclusive(perInsn)
	for f, fn := range p.funcs {
		cost := map[int]uint64{} // line index -> instructions
		for i := range p.insns {
			if p.funcOf[i] == f && perInsn[i] > 0 {
				cost[p.lineOf[i]] += perInsn[i]
			}
		}
		if len(cost) == 0 {
			continue
		}
		lines := make([]int, 0, len(cost))
		for l := range cost {
			lines = append(lines, l)
		}
		slices.SortFunc(lines, func(a, b int) int { return compareLines(p.lines[a], p.lines[b]) })
		file := fileOf(p.lines[p.lineOf[fn.entry]])
		fmt.Fprintf(cw.w, "\nfl=%s\nfn=%s\n", cw.name(cw.files, file), cw.fnName(prof, fn.name))
		current := file
		for _, l := range lines {
			if lf := fileOf(p.lines[l]); lf != current {
				fmt.Fprintf(cw.w, "fi=%s\n", cw.name(cw.files, lf))
				current = lf
			}
			fmt.Fprintf(cw.w, "%d %d\n", p.lines[l].Number, cost[l])
		}
		cw.calls(prof, f, perInsn, inclusive, fileOf, current)
	}
}

// fnName is a function's compressed name; the program's name qualifies
// it when two builds are written together.
func (cw *callgrindWriter) fnName(prof *Profile, name string) string {
	if prof.Label != "" {
		name = prof.Label + ": " + name
	}
	return cw.name(cw.fns, name)
}

// calls writes the calls function f makes of callees whose only call
// site is in f: their entries and inclusive cost, at the call site's line.
func (cw *callgrindWriter) calls(prof *Profile, f int, perInsn, inclusive []uint64, fileOf func(Line) string, current string) {
	p := programOf(prof)
	for g, callee := range p.funcs {
		site := p.caller(g)
		if site < 0 || p.funcOf[site] != f || perInsn[callee.entry] == 0 {
			continue
		}
		siteLine, entryLine := p.lines[p.lineOf[site]], p.lines[p.lineOf[callee.entry]]
		if lf := fileOf(siteLine); lf != current {
			fmt.Fprintf(cw.w, "fi=%s\n", cw.name(cw.files, lf))
			current = lf
		}
		fmt.Fprintf(cw.w, "cfi=%s\ncfn=%s\ncalls=%d %d\n%d %d\n", cw.name(cw.files, fileOf(entryLine)), cw.fnName(prof, callee.name),
			perInsn[callee.entry], entryLine.Number, siteLine.Number, inclusive[g])
	}
}

// inclusive is each function's instructions with those of the callees
// whose chain of single callers leads to it.
func (p *Program) inclusive(perInsn []uint64) []uint64 {
	self := make([]uint64, len(p.funcs))
	for i, n := range perInsn {
		self[p.funcOf[i]] += n
	}
	out := slices.Clone(self)
	for f := range p.funcs {
		for g, depth := p.callerFunc(f), 0; g >= 0 && depth <= len(p.funcs); g, depth = p.callerFunc(g), depth+1 {
			out[g] += self[f]
		}
	}
	return out
}
