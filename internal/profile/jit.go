package profile

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/arch/x86/x86asm"
)

// machineCode is what the JIT emitted for each line record of the
// program, from the kernel's record of the loaded program.
type machineCode struct {
	arch string
	// code is, per record (Program.records), its machine instructions;
	// nil where the kernel kept no record of it (code the verifier
	// removed as dead).
	code [][]machineInsn
	// straight says, per record, that its machine code passes control
	// only by its last instruction: no branch inside it (the verifier's
	// inlined helpers, bounds checks, atomics' retry loops).
	straight []bool
}

// jitRecord is one of the kernel's line records: its line and the address
// of the machine code the JIT emitted for it.
type jitRecord struct {
	file, text string
	line, col  uint32
	addr       uint64
}

// AddJIT reads the machine code the JIT emitted for each line from the
// kernel's record of the loaded program. The kernel keeps one line record
// per record the object gave (those of code the verifier removed are
// dropped), each with the machine address where its code starts, the
// line's code running to the next record's address or the function's
// end. It returns why it cannot, for the profile to say.
func (p *Program) AddJIT(info *ebpf.ProgramInfo, lines btf.LineOffsets) error {
	err := p.addJIT(info, lines)
	if err != nil {
		p.NoMachine = err.Error()
	}
	return err
}

func (p *Program) addJIT(info *ebpf.ProgramInfo, lines btf.LineOffsets) error {
	if p.NoLines != "" {
		return fmt.Errorf("the machine code cannot be given by line: the object has no line info")
	}
	if runtime.GOARCH != "amd64" {
		return fmt.Errorf("the machine code is disassembled on x86-64 only, not %s", runtime.GOARCH)
	}
	var names []string
	for _, f := range p.funcs {
		names = append(names, f.name)
	}
	kernel, image, err := jitRecords(info, lines, names)
	if err != nil {
		return err
	}
	mc := &machineCode{arch: "x86-64", code: make([][]machineInsn, len(p.records)), straight: make([]bool, len(p.records))}
	r := 0
	for _, k := range kernel {
		// The kernel's records are the object's, in order, less the dead:
		// the next of the object's with the same line is this one.
		for r < len(p.records) && !p.sameRecord(r, k) {
			r++
		}
		if r == len(p.records) {
			return fmt.Errorf("the kernel's line record %s:%d matches none of the object's", k.file, k.line)
		}
		mc.code[r], mc.straight[r] = image.disassemble(k.addr, image.end(k.addr, kernel))
		r++
	}
	p.jit = mc
	return nil
}

// sameRecord says record r of the object is the kernel's record k.
func (p *Program) sameRecord(r int, k jitRecord) bool {
	bl, ok := sourceLine(&p.insns[p.records[r].start])
	if !ok {
		return false
	}
	return cleanFile(bl.FileName()) == k.file && bl.LineNumber() == k.line && bl.LineColumn() == k.col &&
		strings.TrimSpace(bl.Line()) == strings.TrimSpace(k.text)
}

// jitImage is the JIT's code of every function of a program, as the
// kernel gives it: the images one after another, and each one's address.
type jitImage struct {
	bytes  []byte
	starts []uint64 // each function's address
	lens   []uint32
	names  []string // the program's functions, in the JIT's order when as many
}

// text is an instruction at addr of function f in the GNU assembler's
// syntax: a jump within the function to its offset there, as bpftool
// shows it, a call of another of the program's functions by its name.
func (img *jitImage) text(inst x86asm.Inst, addr uint64, f int) string {
	rel, ok := inst.Args[0].(x86asm.Rel)
	if !ok {
		return x86asm.GNUSyntax(inst, addr, nil)
	}
	target := addr + uint64(inst.Len) + uint64(int64(rel))
	if g := img.function(target); g == f {
		return x86asm.GNUSyntax(inst, addr-img.starts[f], nil)
	} else if g >= 0 && len(img.names) == len(img.starts) {
		return x86asm.GNUSyntax(inst, addr, func(uint64) (string, uint64) { return img.names[g], target })
	}
	return x86asm.GNUSyntax(inst, addr, nil)
}

// jitRecords pairs the kernel's line records with their machine
// addresses, and reads the JIT's image.
func jitRecords(info *ebpf.ProgramInfo, lines btf.LineOffsets, names []string) ([]jitRecord, *jitImage, error) {
	addrs, ok := info.JitedLineInfos()
	if !ok || len(addrs) != len(lines) {
		return nil, nil, fmt.Errorf("the kernel gave no machine address for its %d line records (JIT off, or kernel addresses restricted)", len(lines))
	}
	insns, ok := info.JitedInsns()
	if !ok {
		return nil, nil, fmt.Errorf("the kernel gave no JIT code")
	}
	ksyms, ok1 := info.JitedKsymAddrs()
	lens, ok2 := info.JitedFuncLens()
	if !ok1 || !ok2 || len(ksyms) != len(lens) {
		return nil, nil, fmt.Errorf("the kernel gave no addresses of the JIT's functions")
	}
	img := &jitImage{bytes: insns, lens: lens, names: names}
	for _, a := range ksyms {
		img.starts = append(img.starts, uint64(a))
	}
	out := make([]jitRecord, len(lines))
	for i, l := range lines {
		out[i] = jitRecord{file: cleanFile(l.Line.FileName()), text: l.Line.Line(), line: l.Line.LineNumber(), col: l.Line.LineColumn(), addr: addrs[i]}
	}
	return out, img, nil
}

// function is the index of the function whose code holds addr, or -1.
func (img *jitImage) function(addr uint64) int {
	for f, s := range img.starts {
		if addr >= s && addr < s+uint64(img.lens[f]) {
			return f
		}
	}
	return -1
}

// end is where the code of the record at addr ends: at the next record's
// address in the same function, or the function's end.
func (img *jitImage) end(addr uint64, records []jitRecord) uint64 {
	f := img.function(addr)
	if f < 0 {
		return addr
	}
	end := img.starts[f] + uint64(img.lens[f])
	for _, r := range records {
		if r.addr > addr && r.addr < end {
			end = r.addr
		}
	}
	return end
}

// disassemble decodes the code from addr to end, and says whether it
// passes control only by its last instruction.
func (img *jitImage) disassemble(addr, end uint64) ([]machineInsn, bool) {
	f := img.function(addr)
	if f < 0 || end <= addr {
		return []machineInsn{}, true
	}
	off := uint64(0)
	for g := range f {
		off += uint64(img.lens[g])
	}
	from, to := off+addr-img.starts[f], off+end-img.starts[f]
	if to > uint64(len(img.bytes)) {
		return []machineInsn{}, false
	}
	code := img.bytes[from:to]
	var out []machineInsn
	straight := true
	for pc := 0; pc < len(code); {
		inst, err := x86asm.Decode(code[pc:], 64)
		if err != nil || inst.Len == 0 {
			out = append(out, machineInsn{Offset: addr - img.starts[f] + uint64(pc), Text: fmt.Sprintf("(.byte %#x)", code[pc])})
			pc, straight = pc+1, false
			continue
		}
		if branches(inst.Op) && pc+inst.Len < len(code) {
			straight = false
		}
		at := addr + uint64(pc)
		out = append(out, machineInsn{Offset: at - img.starts[f], Text: img.text(inst, at, f)})
		pc += inst.Len
	}
	return out, straight
}

// branches says the instruction may pass control elsewhere than to the
// next, and not come back as a call does.
func branches(op x86asm.Op) bool {
	s := op.String()
	return strings.HasPrefix(s, "J") || strings.HasPrefix(s, "LOOP") || strings.HasSuffix(s, "RET") || op == x86asm.UD2
}
