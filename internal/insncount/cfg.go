package insncount

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// ErrUnsupported reports a program the rewriting cannot handle.
var ErrUnsupported = errors.New("cannot instrument")

// block is a basic block: instructions start..end-1 of the program, entered
// only at start and left only after end-1.
type block struct {
	start, end int
	fn         int   // index of the function holding it
	succ       []int // blocks control may pass to
	// liveIn are the registers the program may read from the block's start
	// before writing them; initIn those certainly written on every path
	// from the function's entry to it.
	liveIn, initIn regs
}

// program is the control-flow graph of a flattened program.
type program struct {
	insns   asm.Instructions
	entries []int // the first instruction of each function, ascending
	// target is, for each branch and function reference, the index of
	// the instruction it names; -1 for other instructions.
	target  []int
	blocks  []block
	blockAt map[int]int // instruction index of a leader -> block index
}

// analyze splits insns into functions and basic blocks and finds, at the
// start of every block, the registers the program may read and those it
// has certainly written.
func analyze(insns asm.Instructions) (*program, error) {
	p := &program{insns: insns, blockAt: map[int]int{}}
	if len(insns) == 0 {
		return nil, fmt.Errorf("%w: no instructions", ErrUnsupported)
	}
	entries, leaders, err := p.findTargets(resolver(insns))
	if err != nil {
		return nil, err
	}
	p.entries = sortedKeys(entries)
	p.splitBlocks(sortedKeys(leaders))
	if err := p.linkBlocks(); err != nil {
		return nil, err
	}
	p.liveness()
	p.initialised()
	return p, nil
}

// resolver returns what finds the instruction a jump or function reference
// at instruction i names: by its symbol when symbolic, else by delta, in
// raw offsets, where a 64-bit immediate load takes two slots.
func resolver(insns asm.Instructions) func(i int, delta int64, symbolic bool) (int, error) {
	raw := make([]int, len(insns))
	index := map[int]int{}
	symbols := map[string]int{}
	off := 0
	for i := range insns {
		raw[i], index[off] = off, i
		off += int(insns[i].Size() / asm.InstructionSize)
		if s := insns[i].Symbol(); s != "" {
			symbols[s] = i
		}
	}
	return func(i int, delta int64, symbolic bool) (int, error) {
		if ref := insns[i].Reference(); symbolic && ref != "" {
			t, ok := symbols[ref]
			if !ok {
				return 0, fmt.Errorf("%w: instruction %d refers to %q, which the program does not hold", ErrUnsupported, i, ref)
			}
			return t, nil
		}
		t, ok := index[raw[i]+int(delta)+1]
		if !ok {
			return 0, fmt.Errorf("%w: instruction %d jumps outside the program or into an instruction", ErrUnsupported, i)
		}
		return t, nil
	}
}

// findTargets sets p.target, each branch's and function reference's
// target, and returns the functions' entries and the blocks' leaders.
func (p *program) findTargets(resolve func(i int, delta int64, symbolic bool) (int, error)) (entries, leaders map[int]bool, err error) {
	insns := p.insns
	entries = map[int]bool{0: true}
	leaders = map[int]bool{0: true}
	targets := make([]int, len(insns))
	p.target = targets
	for i := range insns {
		ins := &insns[i]
		targets[i] = -1
		if btf.FuncMetadata(ins) != nil {
			entries[i], leaders[i] = true, true
		}
		if ins.IsFunctionReference() {
			t, err := resolve(i, ins.Constant, ins.Constant == -1)
			if err != nil {
				return nil, nil, err
			}
			entries[t], leaders[t] = true, true
			targets[i] = t
		}
		if !ins.OpCode.Class().IsJump() {
			if ins.OpCode.Class() == asm.LdClass && (ins.OpCode.Mode() == asm.AbsMode || ins.OpCode.Mode() == asm.IndMode) {
				// A legacy packet load ends the program when it reads
				// beyond the packet.
				leaders[i+1] = true
			}
			continue
		}
		switch op := ins.OpCode.JumpOp(); op {
		case asm.Call, asm.Exit:
			leaders[i+1] = true
			continue
		case asm.Ja:
			if ins.OpCode.Class() == asm.Jump32Class { // gotol: the offset is the constant
				if ins.OpCode.Source() != asm.ImmSource {
					// The kernel refuses it ("BPF_JA uses reserved
					// fields"), and cilium/ebpf would not encode the
					// rewritten reference of one.
					return nil, nil, fmt.Errorf("%w: instruction %d is a long jump with a register source", ErrUnsupported, i)
				}
				t, err := resolve(i, ins.Constant, ins.Constant == -1)
				if err != nil {
					return nil, nil, err
				}
				targets[i] = t
				leaders[t], leaders[i+1] = true, true
				continue
			}
		}
		t, err := resolve(i, int64(ins.Offset), ins.Offset == -1)
		if err != nil {
			return nil, nil, err
		}
		targets[i] = t
		leaders[t], leaders[i+1] = true, true
	}
	delete(leaders, len(insns))
	return entries, leaders, nil
}

// sortedKeys are the keys of m, ascending.
func sortedKeys(m map[int]bool) []int {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// splitBlocks makes a block from each leader, in starts, to the next, in
// the function whose entry is the last at or before it.
func (p *program) splitBlocks(starts []int) {
	for n, s := range starts {
		end := len(p.insns)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		fn, _ := slices.BinarySearch(p.entries, s+1)
		p.blockAt[s] = len(p.blocks)
		p.blocks = append(p.blocks, block{start: s, end: end, fn: fn - 1})
	}
}

// linkBlocks finds each block's successors, refusing control that passes
// from one function into another other than by a call.
func (p *program) linkBlocks() error {
	insns := p.insns
	for n := range p.blocks {
		b := &p.blocks[n]
		last := &insns[b.end-1]
		fallthrough_, branch := true, last.OpCode.Class().IsJump()
		if branch {
			switch last.OpCode.JumpOp() {
			case asm.Exit, asm.Ja:
				fallthrough_ = false
			case asm.Call:
				branch = false
			}
		}
		if t := p.target[b.end-1]; branch && t >= 0 {
			if p.blocks[p.blockAt[t]].fn != b.fn {
				return fmt.Errorf("%w: instruction %d jumps into another function", ErrUnsupported, b.end-1)
			}
			b.succ = append(b.succ, p.blockAt[t])
		}
		if fallthrough_ && b.end < len(insns) {
			if _, entry := slices.BinarySearch(p.entries, b.end); entry {
				return fmt.Errorf("%w: instruction %d falls through into another function", ErrUnsupported, b.end-1)
			}
			b.succ = append(b.succ, p.blockAt[b.end])
		}
	}
	return nil
}

// predecessors are, for each block, the blocks control may come from.
func (p *program) predecessors() [][]int {
	preds := make([][]int, len(p.blocks))
	for n, b := range p.blocks {
		for _, s := range b.succ {
			preds[s] = append(preds[s], n)
		}
	}
	return preds
}

// worklist holds the blocks whose value may change, each once: a
// fixpoint revisits only what a change reaches. Passes over every block
// until none changed took time quadratic in the blocks where the flow
// runs against the order of the passes (a chain of backward jumps: 16,000
// instructions took 9 s), and an object may hold a million.
type worklist struct {
	stack  []int
	queued []bool
}

// newWorklist holds every block, to pop the first of order first.
func newWorklist(order []int, n int) *worklist {
	w := &worklist{queued: make([]bool, n)}
	for i := len(order) - 1; i >= 0; i-- {
		w.push(order[i])
	}
	return w
}

func (w *worklist) push(n int) {
	if !w.queued[n] {
		w.queued[n] = true
		w.stack = append(w.stack, n)
	}
}

func (w *worklist) pop() (int, bool) {
	if len(w.stack) == 0 {
		return 0, false
	}
	n := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	w.queued[n] = false
	return n, true
}

// blockOrder is 0..n-1, or its reverse.
func blockOrder(n int, reverse bool) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
		if reverse {
			order[i] = n - 1 - i
		}
	}
	return order
}

// liveness finds each block's liveIn by the usual backward fixpoint.
func (p *program) liveness() {
	type transfer struct{ use, kill regs }
	t := make([]transfer, len(p.blocks))
	for n, b := range p.blocks {
		var live, kill regs
		for i := b.end - 1; i >= b.start; i-- {
			e := effectOf(&p.insns[i])
			k := e.def | e.clobber
			live = live&^k | e.use
			kill |= k
		}
		t[n] = transfer{use: live, kill: kill}
	}
	preds := p.predecessors()
	w := newWorklist(blockOrder(len(p.blocks), true), len(p.blocks))
	for n, ok := w.pop(); ok; n, ok = w.pop() {
		b := &p.blocks[n]
		var out regs
		for _, s := range b.succ {
			out |= p.blocks[s].liveIn
		}
		if in := out&^t[n].kill | t[n].use; in != b.liveIn {
			b.liveIn = in
			for _, q := range preds[n] {
				w.push(q)
			}
		}
	}
}

// initialised finds each block's initIn by a forward fixpoint over the
// intersection of its predecessors' outputs. Only the main function's
// context argument is set at an entry: a subprogram's arguments are
// whatever its caller left in R1-R5, set or not.
func (p *program) initialised() {
	const all = regs(1<<10 - 1)
	preds := p.predecessors()
	// A block's effect: what it clobbers, then what it defines after.
	type transfer struct{ clobber, def regs }
	t := make([]transfer, len(p.blocks))
	for n, b := range p.blocks {
		var tr transfer
		for i := b.start; i < b.end; i++ {
			e := effectOf(&p.insns[i])
			tr.clobber |= e.clobber
			tr.def = tr.def&^e.clobber | e.def
		}
		t[n] = tr
	}
	entry := make([]bool, len(p.blocks))
	for _, e := range p.entries {
		entry[p.blockAt[e]] = true
	}
	out := make([]regs, len(p.blocks))
	for n := range p.blocks {
		p.blocks[n].initIn = all
		out[n] = all
	}
	w := newWorklist(blockOrder(len(p.blocks), false), len(p.blocks))
	for n, ok := w.pop(); ok; n, ok = w.pop() {
		b := &p.blocks[n]
		in := all
		if entry[n] {
			in = 0
			if b.start == 0 {
				in = 1 << asm.R1
			}
		}
		for _, q := range preds[n] {
			in &= out[q]
		}
		o := in&^t[n].clobber | t[n].def
		if in != b.initIn || o != out[n] {
			b.initIn, out[n] = in, o
			for _, s := range b.succ {
				w.push(s)
			}
		}
	}
}
