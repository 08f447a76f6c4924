package profile

import (
	"errors"
	"fmt"
	"github.com/xdpmicro/xdpmicro/results"
	"path"
	"strings"
	"unicode"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/testrun"
)

// ErrCounts: block counts that do not fit the program they claim to count.
var ErrCounts = errors.New("block counts do not fit the program")

// NoLineInfo says why a program is attributed by instruction index.
const NoLineInfo = "the object has no BTF line info (built without -g, or its .BTF.ext stripped): " +
	"instructions are shown by index, as llvm-objdump numbers them"

// Line is a place in the source, as results saves it.
type Line = results.Line

// lineKey identifies a line across builds: a Line, or a line of a
// profile, which holds one.
func lineKey(l fmt.Stringer) string { return l.String() }

// function is a BPF function of the program: the main one, a bpf-to-bpf
// callee or a callback.
type function struct {
	name  string
	entry int   // its first instruction
	sites []int // the instructions that call it or take its address
}

// record is a run of instructions that BTF gives one line: from an
// instruction carrying line info to the next.
type record struct {
	start, end int
	line       int // index in Program.lines
}

// Program is what a program's block counts are attributed to: each
// instruction's line, function and helper, and the JIT's code per record.
type Program struct {
	insns   asm.Instructions
	blocks  []testrun.Block
	blockOf []int // the block of each instruction
	offsets []int // each instruction's raw offset (a 64-bit load takes two)
	lines   []Line
	lineOf  []int // the index in lines of each instruction's line
	funcs   []function
	funcOf  []int
	helper  []string // the helper or kfunc each instruction calls, or ""
	records []record
	// NoLines is NoLineInfo when the program has none, else empty.
	NoLines string
	// NoMachine says why the JIT's code is not given per line.
	NoMachine string
	jit       *machineCode
	layout    *results.ProfileLayout
}

// NewProgram maps the program's instructions, as loaded, to their lines
// and functions; blocks are the basic blocks its counts are of.
func NewProgram(insns asm.Instructions, blocks []testrun.Block) (*Program, error) {
	p := &Program{insns: insns, blocks: blocks}
	p.blockOf = make([]int, len(insns))
	next := 0
	for b, bl := range blocks {
		if bl.Start != next || bl.End <= bl.Start || bl.End > len(insns) {
			return nil, fmt.Errorf("%w: block %d is %d-%d, after %d of %d instructions", ErrCounts, b, bl.Start, bl.End, next, len(insns))
		}
		for i := bl.Start; i < bl.End; i++ {
			p.blockOf[i] = b
		}
		next = bl.End
	}
	if next != len(insns) {
		return nil, fmt.Errorf("%w: the blocks end at %d of %d instructions", ErrCounts, next, len(insns))
	}
	p.mapLines()
	if err := p.mapFunctions(); err != nil {
		return nil, err
	}
	p.mapHelpers()
	p.layout = p.newLayout()
	return p, nil
}

// mapLines gives each instruction the line of the last instruction at or
// before it that carries one: cilium/ebpf puts line info only where a
// line starts.
func (p *Program) mapLines() {
	p.lineOf = make([]int, len(p.insns))
	p.offsets = make([]int, len(p.insns))
	index := map[string]int{}
	add := func(l Line) int {
		k := lineKey(l)
		if l.File == "" && l.Number < 0 {
			k = "?" + l.Text
		}
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(p.lines)
		p.lines = append(p.lines, l)
		return len(p.lines) - 1
	}
	hasLines := false
	for i := range p.insns {
		if p.insns[i].Source() != nil {
			hasLines = true
			break
		}
	}
	cur, off := -1, 0
	for i := range p.insns {
		ins := &p.insns[i]
		p.offsets[i] = off
		off += int(ins.Size() / asm.InstructionSize)
		if !hasLines {
			p.lineOf[i] = add(Line{Number: p.offsets[i], Text: fmt.Sprint(*ins)})
			continue
		}
		if src := ins.Source(); src != nil {
			cur = add(lineOf(src))
			if n := len(p.records); n > 0 {
				p.records[n-1].end = i
			}
			p.records = append(p.records, record{start: i, end: len(p.insns), line: cur})
		}
		if cur < 0 { // instructions before the first line: no program has them, but say so
			cur = add(Line{Number: -1, Text: "(no line info)"})
		}
		p.lineOf[i] = cur
	}
	if !hasLines {
		p.NoLines = NoLineInfo
	}
}

// noSourceLine is the text of line 0: code the compiler tied to no line
// (merged tails, spills).
const noSourceLine = "(line 0: code the compiler tied to no source line)"

// lineOf reads a line from an instruction's source metadata.
func lineOf(src fmt.Stringer) Line {
	if l, ok := src.(*btf.Line); ok {
		line := Line{File: cleanFile(l.FileName()), Number: int(l.LineNumber()), Text: strings.TrimSpace(l.Line())}
		if line.Number == 0 && line.Text == "" {
			line.Text = noSourceLine
		}
		return line
	}
	return Line{File: "?", Text: strings.TrimSpace(src.String())}
}

// cleanFile is a source file's name without the "./" that a build's
// -fdebug-prefix-map leaves: as pprof and callgrind_annotate look it up.
func cleanFile(name string) string {
	if name == "" {
		return name
	}
	return path.Clean(name)
}

// mapFunctions finds the functions, by BTF func info or else by symbol,
// and the instructions that call each or take its address.
func (p *Program) mapFunctions() error {
	byName := map[string]int{}
	useBTF := false
	for i := range p.insns {
		if btf.FuncMetadata(&p.insns[i]) != nil {
			useBTF = true
			break
		}
	}
	for i := range p.insns {
		ins := &p.insns[i]
		name := ins.Symbol()
		if useBTF {
			name = ""
			if fn := btf.FuncMetadata(ins); fn != nil {
				name = fn.Name
			}
		}
		if name == "" && i > 0 {
			continue
		}
		if name == "" {
			name = "(main)"
		}
		byName[name] = len(p.funcs)
		if sym := ins.Symbol(); sym != "" {
			byName[sym] = len(p.funcs)
		}
		p.funcs = append(p.funcs, function{name: name, entry: i})
	}
	p.funcOf = make([]int, len(p.insns))
	for f := range p.funcs {
		end := len(p.insns)
		if f+1 < len(p.funcs) {
			end = p.funcs[f+1].entry
		}
		for i := p.funcs[f].entry; i < end; i++ {
			p.funcOf[i] = f
		}
	}
	return p.findCallSites(byName)
}

// findCallSites links each bpf-to-bpf call and function address (a
// callback's) to the function it names.
func (p *Program) findCallSites(byName map[string]int) error {
	entryAt := map[int]int{}
	for f, fn := range p.funcs {
		entryAt[p.offsets[fn.entry]] = f
	}
	for i := range p.insns {
		ins := &p.insns[i]
		if !ins.IsFunctionReference() {
			continue
		}
		f, ok := byName[ins.Reference()]
		if !ok {
			f, ok = entryAt[p.offsets[i]+int(ins.Constant)+1]
		}
		if !ok {
			return fmt.Errorf("%w: instruction %d refers to a function the program does not hold", ErrCounts, i)
		}
		p.funcs[f].sites = append(p.funcs[f].sites, i)
	}
	return nil
}

// mapHelpers names the helper or kfunc each call instruction calls.
func (p *Program) mapHelpers() {
	p.helper = make([]string, len(p.insns))
	for i := range p.insns {
		ins := &p.insns[i]
		switch {
		case ins.IsBuiltinCall():
			p.helper[i] = helperName(asm.BuiltinFunc(ins.Constant))
		case ins.IsKfuncCall():
			p.helper[i] = ins.Reference()
			if p.helper[i] == "" {
				p.helper[i] = fmt.Sprintf("kfunc %d", ins.Constant)
			}
		}
	}
}

// helperName is a helper's name as C calls it: FnMapLookupElem is
// bpf_map_lookup_elem.
func helperName(fn asm.BuiltinFunc) string {
	s := fn.String()
	camel, ok := strings.CutPrefix(s, "Fn")
	if !ok {
		return fmt.Sprintf("helper %d", int32(fn))
	}
	var b strings.Builder
	b.WriteString("bpf")
	for i, r := range camel {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		} else if i == 0 {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// newLayout is the program's layout, as its profile carries it for the
// formats that need more than the figures.
func (p *Program) newLayout() *results.ProfileLayout {
	l := &results.ProfileLayout{Lines: p.lines, Insns: make([]results.LaidInsn, len(p.insns))}
	for i := range p.insns {
		l.Insns[i] = results.LaidInsn{Offset: p.offsets[i], Line: p.lineOf[i], Func: p.funcOf[i]}
	}
	for _, fn := range p.funcs {
		l.Funcs = append(l.Funcs, results.LaidFunc{Name: fn.name, Entry: fn.entry, Sites: fn.sites})
	}
	if n := len(p.insns); n > 0 {
		l.Slots = p.offsets[n-1] + int(p.insns[n-1].Size()/asm.InstructionSize)
	}
	return l
}

// sourceLine is an instruction's BTF line, when it carries one.
func sourceLine(ins *asm.Instruction) (*btf.Line, bool) {
	l, ok := ins.Source().(*btf.Line)
	return l, ok
}
