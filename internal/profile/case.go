package profile

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/xdpmicro/xdpmicro/results"
)

// The saved profile is results': the names here are its, for brevity.
type (
	Profile       = results.Profile
	SourceLine    = results.ProfileSource
	Case          = results.ProfileCase
	LineCount     = results.LineCount
	HelperCalls   = results.HelperCalls
	FunctionCount = results.FunctionCount
	machineInsn   = results.MachineInsn
)

// Static describes the program's lines, for a Profile.
func (p *Program) Static() []SourceLine {
	out := make([]SourceLine, len(p.lines))
	for i, l := range p.lines {
		out[i].Line = l
	}
	for i := range p.insns {
		s := &out[p.lineOf[i]]
		s.BPF++
		if fn := p.funcs[p.funcOf[i]].name; !slices.Contains(s.Functions, fn) {
			s.Functions = append(s.Functions, fn)
		}
	}
	if p.jit != nil {
		for r, rec := range p.records {
			out[rec.line].Code = append(out[rec.line].Code, p.jit.code[r]...)
		}
	}
	slices.SortStableFunc(out, func(a, b SourceLine) int { return compareLines(a.Line, b.Line) })
	return out
}

// compareLines orders lines by file, then number.
func compareLines(a, b Line) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Number, b.Number))
}

// Case attributes one case's block counts (insncount's, in the order of the
// blocks NewProgram was given) to lines and functions.
func (p *Program) Case(name string, blocks []uint64) (Case, error) {
	if len(blocks) != len(p.blocks) {
		return Case{}, fmt.Errorf("%w: %d counts for %d blocks", ErrCounts, len(blocks), len(p.blocks))
	}
	perInsn := make([]uint64, len(p.insns))
	for b, bl := range p.blocks {
		for i := bl.Start; i < bl.End; i++ {
			perInsn[i] = blocks[b]
		}
	}
	return p.attribute(name, perInsn, true), nil
}

// Verified attributes the verifier's walk of the program (how often it
// processed each instruction, by raw offset: object.VerifierWalk) to
// lines and functions, as a case's executed instructions are.
func (p *Program) Verified(byOffset map[int]uint64) (Case, error) {
	index := make(map[int]int, len(p.offsets))
	for i, off := range p.offsets {
		index[off] = i
	}
	perInsn := make([]uint64, len(p.insns))
	for off, n := range byOffset {
		i, ok := index[off]
		if !ok {
			return Case{}, fmt.Errorf("%w: the verifier processed raw instruction %d, where no instruction of %d starts", ErrCounts, off, len(p.insns))
		}
		perInsn[i] = n
	}
	return p.attribute("verifier", perInsn, false), nil
}

// attribute sums counts per instruction into lines and functions; for
// executed instructions also the helpers called, the tail calls and the
// machine code run.
func (p *Program) attribute(name string, perInsn []uint64, executed bool) Case {
	c := Case{Name: name, PerInsn: perInsn}
	lines := make([]LineCount, len(p.lines))
	self := make([]uint64, len(p.funcs))
	for i, n := range c.PerInsn {
		c.Total += n
		l := &lines[p.lineOf[i]]
		l.Instructions += n
		self[p.funcOf[i]] += n
		if h := p.helper[i]; h != "" && n > 0 && executed {
			l.Helpers = addCalls(l.Helpers, h, n)
		}
	}
	if executed {
		p.machineCounts(c.PerInsn, lines)
		c.TailCalls = p.tailCalls(c.PerInsn)
	}
	for i := range lines {
		lines[i].Line = p.lines[i]
		if lines[i].Instructions > 0 {
			c.Lines = append(c.Lines, lines[i])
		}
	}
	slices.SortStableFunc(c.Lines, func(a, b LineCount) int { return compareLines(a.Line, b.Line) })
	c.Functions = p.functionCounts(c.PerInsn, self)
	return c
}

func addCalls(calls []HelperCalls, name string, n uint64) []HelperCalls {
	for i := range calls {
		if calls[i].Name == name {
			calls[i].Calls += n
			return calls
		}
	}
	return append(calls, HelperCalls{Name: name, Calls: n})
}

// tailCalls counts the tail calls that did not come back: a call of
// bpf_tail_call that ran more often than the instruction after it.
func (p *Program) tailCalls(perInsn []uint64) []HelperCalls {
	var out []HelperCalls
	for i, h := range p.helper {
		if h != "bpf_tail_call" || i+1 >= len(perInsn) || perInsn[i+1] >= perInsn[i] {
			continue
		}
		out = addCalls(out, p.lines[p.lineOf[i]].String(), perInsn[i]-perInsn[i+1])
	}
	return out
}

// functionCounts gives each executed function its own count, its callees'
// with it where it is their only caller, and the times it was entered.
func (p *Program) functionCounts(perInsn, self []uint64) []FunctionCount {
	inclusive := p.layout.Inclusive(perInsn)
	var out []FunctionCount
	for f, fn := range p.funcs {
		if perInsn[fn.entry] == 0 && self[f] == 0 {
			continue
		}
		out = append(out, FunctionCount{Name: fn.name, Self: self[f], Inclusive: inclusive[f], Calls: perInsn[fn.entry]})
	}
	return out
}

// machineCounts sets each line's executed machine instructions, where the
// mapping from its BPF instructions is exact, and says where it is not.
func (p *Program) machineCounts(perInsn []uint64, lines []LineCount) {
	if p.jit == nil {
		return
	}
	for i := range lines {
		lines[i].Exact = true
	}
	for r, rec := range p.records {
		l := &lines[rec.line]
		if !slices.ContainsFunc(perInsn[rec.start:rec.end], func(n uint64) bool { return n > 0 }) {
			continue
		}
		switch {
		case p.blockOf[rec.start] != p.blockOf[rec.end-1]:
			l.Exact, l.NotExact = false, fmt.Sprintf("instructions %d-%d span basic blocks", rec.start, rec.end-1)
		case !p.jit.straight[r]:
			l.Exact, l.NotExact = false, fmt.Sprintf("the JIT's code for instructions %d-%d branches inside", rec.start, rec.end-1)
		default:
			l.Machine += perInsn[rec.start] * uint64(len(p.jit.code[r]))
		}
	}
	for i := range lines {
		if !lines[i].Exact {
			lines[i].Machine = 0
		}
	}
}

// New makes a profile of one program over the cases, each given as its
// block counts.
func New(label, object, program, typ string, p *Program, names []string, blocks [][]uint64) (*Profile, error) {
	prof := &Profile{Label: label, Object: object, Program: program, Type: typ, NoLines: p.NoLines, NoMachine: p.NoMachine,
		Source: p.Static(), Layout: p.layout}
	if p.jit != nil {
		prof.Machine = p.jit.arch
	}
	for i, name := range names {
		c, err := p.Case(name, blocks[i])
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", name, err)
		}
		prof.Cases = append(prof.Cases, c)
	}
	return prof, nil
}
