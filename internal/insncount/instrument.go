package insncount

import (
	"errors"
	"fmt"
	"math"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// CounterMap is the name of the map the instrumented copy counts in: an
// array of one entry whose value holds a 64-bit execution count for each
// basic block, in block order.
const CounterMap = "xdpmicro_insns"

// errNeedStackDepths: some block has fewer than two free registers, and
// saving registers needs each function's stack depth.
var errNeedStackDepths = errors.New("stack depths needed to save registers")

// options steer the rewriting.
type options struct {
	// depths are the verifier's stack depths of the functions, in the
	// order of their first instructions; nil when not known.
	depths []int
	// save takes registers to save, live or free, before free ones: to
	// test saving.
	save bool
	// shared are maps the copy takes in place of its own (LoadSharing).
	shared map[string]*ebpf.Map
}

// Rewrite is an instrumented copy of a program's instructions, and what
// the rewriting added.
type Rewrite struct {
	Insns asm.Instructions
	// Blocks are the original program's basic blocks, each of which got
	// a counter of its own, in the order of the counters.
	Blocks []Block
	Saves  int // blocks that save registers to the stack around it
	Added  int // instructions added, counting a 64-bit load as one
}

// Block is a basic block of the original program: its instructions
// Start..End-1, as indexes of the program's asm.Instructions (a 64-bit
// load is one).
type Block struct {
	Start, End int
}

// Len is the number of instructions the block executes each time.
func (b Block) Len() int { return b.End - b.Start }

// Total is the number of instructions executed, given each block's
// execution count.
func (rw Rewrite) Total(counts []uint64) uint64 {
	var n uint64
	for i, c := range counts {
		n += c * uint64(rw.Blocks[i].Len())
	}
	return n
}

// PerInstruction spreads each block's execution count over its
// instructions: how many times each instruction of the original program
// ran.
func (rw Rewrite) PerInstruction(counts []uint64) []uint64 {
	if len(rw.Blocks) == 0 {
		return nil
	}
	out := make([]uint64, rw.Blocks[len(rw.Blocks)-1].End)
	for i, c := range counts {
		for j := rw.Blocks[i].Start; j < rw.Blocks[i].End; j++ {
			out[j] = c
		}
	}
	return out
}

// scratchSlot is where the n-th saved register of a function of the given
// stack depth goes: below everything the function itself uses.
func scratchSlot(depth, n int) int16 {
	depth = (depth + 7) &^ 7
	return int16(-(depth + 8*(n+1)))
}

// instrument returns a copy of insns in which every basic block begins by
// adding one to its own slot of the counter map's value.
func instrument(insns asm.Instructions, counter string, opt options) (Rewrite, error) {
	p, err := analyze(insns)
	if err != nil {
		return Rewrite{}, err
	}
	// Every leader gets a symbol, so that jumps can name it and land on
	// the counter update the rewriting puts before it.
	taken := map[string]bool{}
	for _, ins := range insns {
		if s := ins.Symbol(); s != "" {
			taken[s] = true
		}
	}
	symbol := make(map[int]string, len(p.blocks))
	for _, b := range p.blocks {
		s := insns[b.start].Symbol()
		for n := 0; s == ""; n++ {
			s = fmt.Sprintf("xdpmicro_bb%d", b.start)
			if n > 0 {
				s = fmt.Sprintf("xdpmicro_bb%d_%d", b.start, n)
			}
			if taken[s] {
				s = ""
			}
		}
		taken[s] = true
		symbol[b.start] = s
	}
	rw := Rewrite{Blocks: make([]Block, len(p.blocks))}
	out := make(asm.Instructions, 0, len(insns)+8*len(p.blocks))
	for n, b := range p.blocks {
		rw.Blocks[n] = Block{Start: b.start, End: b.end}
		pro, saves, err := prologue(b, n, counter, opt)
		if err != nil {
			return Rewrite{}, fmt.Errorf("instruction %d: %w", b.start, err)
		}
		if saves > 0 {
			rw.Saves++
		}
		rw.Added += len(pro)
		first := insns[b.start]
		pro[0] = pro[0].WithSymbol(symbol[b.start])
		if fn := btf.FuncMetadata(&first); fn != nil {
			pro[0] = btf.WithFuncMetadata(pro[0], fn)
			// The kernel wants a line at the start of every function.
			pro[0] = pro[0].WithSource(first.Source())
		}
		out = append(out, pro...)
		for i := b.start; i < b.end; i++ {
			ins := insns[i]
			if i == b.start {
				ins = btf.WithFuncMetadata(ins.WithSymbol(""), nil)
			}
			if t := p.target[i]; t >= 0 {
				ins = ins.WithReference(symbol[t])
				if ins.IsFunctionReference() || ins.OpCode.Class() == asm.Jump32Class && ins.OpCode.JumpOp() == asm.Ja {
					ins.Constant = -1
				} else {
					ins.Offset = -1
				}
			}
			out = append(out, ins)
		}
	}
	if err := checkReach(out); err != nil {
		return Rewrite{}, err
	}
	rw.Insns = out
	return rw, nil
}

// prologue is the counter update at the start of block b, the n-th: two
// scratch registers, saved first if the program may read them later, take
// the address of the block's counter and one, and add the one to the other.
func prologue(b block, n int, counter string, opt options) (asm.Instructions, int, error) {
	free := allRegs &^ b.liveIn
	savable := b.initIn & b.liveIn
	var scratch []asm.Register
	var save []bool
	var taken regs
	pick := func(set regs, saved bool) {
		for r := asm.R0; r <= asm.R9 && len(scratch) < 2; r++ {
			if set.has(r) && !taken.has(r) {
				scratch, save = append(scratch, r), append(save, saved)
				taken |= reg(r)
			}
		}
	}
	if opt.save {
		pick(b.initIn, true) // free or not
		pick(free, false)
	} else {
		pick(free, false)
		pick(savable, true)
	}
	if len(scratch) < 2 {
		return nil, 0, fmt.Errorf("%w: fewer than two registers are free or certainly set", ErrUnsupported)
	}
	saves := 0
	for _, s := range save {
		if s {
			saves++
		}
	}
	if saves > 0 && opt.depths == nil {
		return nil, saves, errNeedStackDepths
	}
	if saves > 0 && b.fn >= len(opt.depths) {
		return nil, saves, fmt.Errorf("%w: the verifier reported %d functions' stack depths, the program has more", ErrUnsupported, len(opt.depths))
	}
	var pre, post asm.Instructions
	saved := 0
	for i, r := range scratch {
		if save[i] {
			slot := scratchSlot(opt.depths[b.fn], saved)
			saved++
			pre = append(pre, asm.StoreMem(asm.RFP, slot, r, asm.DWord))
			post = append(post, asm.LoadMem(r, asm.RFP, slot, asm.DWord))
		}
	}
	if 8*n > math.MaxInt32 {
		return nil, 0, fmt.Errorf("%w: %d blocks", ErrUnsupported, n)
	}
	update := asm.Instructions{
		asm.LoadMapValue(scratch[0], 0, uint32(8*n)).WithReference(counter),
		asm.Mov.Imm(scratch[1], 1),
		asm.StoreXAdd(scratch[0], scratch[1], asm.DWord),
	}
	return append(append(pre, update...), post...), saves, nil
}

// checkReach refuses a rewritten program whose jumps no longer reach:
// a jump's offset is 16 bits.
func checkReach(insns asm.Instructions) error {
	offsets := map[string]int{} // raw, as jumps count
	iter := insns.Iterate()
	for iter.Next() {
		if s := iter.Ins.Symbol(); s != "" {
			offsets[s] = int(iter.Offset)
		}
	}
	iter = insns.Iterate()
	for iter.Next() {
		ins := iter.Ins
		if ins.Reference() == "" || !ins.OpCode.Class().IsJump() || ins.Offset != -1 || ins.OpCode.JumpOp() == asm.Call {
			continue
		}
		t, ok := offsets[ins.Reference()]
		if !ok {
			continue
		}
		if d := t - int(iter.Offset) - 1; d < math.MinInt16 || d > math.MaxInt16 {
			return fmt.Errorf("%w: with counter updates, the jump at instruction %d would span %d instructions, beyond a jump's reach", ErrUnsupported, iter.Index, d)
		}
	}
	return nil
}
