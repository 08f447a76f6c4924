package profile

import (
	"cmp"
	"fmt"
	"slices"
)

// Profile is one program's profile over the cases: what its lines are,
// and what each case executed of them.
type Profile struct {
	Label   string `json:"label,omitempty"` // before or after, in a comparison
	Object  string `json:"object"`
	Program string `json:"program"`
	Type    string `json:"type,omitempty"`
	// NoLines says why lines are instruction indexes, when they are.
	NoLines string `json:"no_lines,omitempty"`
	// Machine is the JIT's architecture, when its code is given per line;
	// NoMachine says why it is not.
	Machine   string       `json:"machine,omitempty"`
	NoMachine string       `json:"no_machine,omitempty"`
	Source    []SourceLine `json:"source"`
	Cases     []Case       `json:"cases"`
	program   *Program
}

// SourceLine is a line of the program's source as the program holds it:
// the functions its instructions are in, how many BPF instructions it has,
// and the machine code the JIT emitted for them.
type SourceLine struct {
	Line
	Functions []string      `json:"functions"`
	BPF       int           `json:"bpf_instructions"`
	Code      []machineInsn `json:"machine_code,omitempty"`
}

// Case is what one case executed: every instruction attributed to one line
// and one function.
type Case struct {
	Name      string          `json:"name"`
	Total     uint64          `json:"instructions"`
	Lines     []LineCount     `json:"lines"`     // the executed lines, in source order
	Functions []FunctionCount `json:"functions"` // the executed functions, in program order
	// TailCalls are the tail calls that left the program, by line: the
	// instructions of the program each entered are not counted.
	TailCalls []HelperCalls `json:"tail_calls,omitempty"`
	perInsn   []uint64
}

// LineCount is what a case executed of a line.
type LineCount struct {
	Line
	Instructions uint64        `json:"instructions"`
	Helpers      []HelperCalls `json:"helpers,omitempty"`
	// Machine is the machine instructions executed, where the mapping is
	// exact: every BPF instruction of each of the line's records in one
	// basic block, and the record's machine code branching only at its
	// end. NotExact says where it is not.
	Machine  uint64 `json:"machine_instructions,omitempty"`
	Exact    bool   `json:"machine_exact,omitempty"`
	NotExact string `json:"machine_not_exact,omitempty"`
}

// HelperCalls is how many times a line called a helper or kfunc.
type HelperCalls struct {
	Name  string `json:"name"`
	Calls uint64 `json:"calls"`
}

// FunctionCount is what a case executed of a function: its own
// instructions and, with them, those of the functions only it calls.
type FunctionCount struct {
	Name      string `json:"name"`
	Self      uint64 `json:"self"`
	Inclusive uint64 `json:"inclusive"`
	Calls     uint64 `json:"calls"` // times it was entered
}

// Share is n as a percentage of the case's total.
func (c Case) Share(n uint64) float64 {
	if c.Total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(c.Total)
}

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
	c := Case{Name: name, perInsn: make([]uint64, len(p.insns))}
	for b, bl := range p.blocks {
		for i := bl.Start; i < bl.End; i++ {
			c.perInsn[i] = blocks[b]
		}
		c.Total += blocks[b] * uint64(bl.End-bl.Start)
	}
	lines := make([]LineCount, len(p.lines))
	self := make([]uint64, len(p.funcs))
	for i, n := range c.perInsn {
		l := &lines[p.lineOf[i]]
		l.Instructions += n
		self[p.funcOf[i]] += n
		if h := p.helper[i]; h != "" && n > 0 {
			l.Helpers = addCalls(l.Helpers, h, n)
		}
	}
	p.machineCounts(c.perInsn, lines)
	c.TailCalls = p.tailCalls(c.perInsn)
	for i := range lines {
		lines[i].Line = p.lines[i]
		if lines[i].Instructions > 0 {
			c.Lines = append(c.Lines, lines[i])
		}
	}
	slices.SortStableFunc(c.Lines, func(a, b LineCount) int { return compareLines(a.Line, b.Line) })
	c.Functions = p.functionCounts(c.perInsn, self)
	return c, nil
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
	inclusive := p.inclusive(perInsn)
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
		Source: p.Static(), program: p}
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
