package insncount

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/cilium/ebpf/asm"
)

// A loop with a call in it: the blocks, where they lead, and which
// registers are read before written and which certainly set at their
// starts.
//
//	0: r6 = r1            block 0 (entry): R1 set, read
//	1: r2 = 0             block 1 (loop head)
//	2: call 7             ends block 1
//	3: r7 = r0            block 2: after the call R1-R5 are gone
//	4: if r7 > 3 goto 1   ends block 2: back to the loop or on
//	5: r0 = r6            block 3
//	6: exit
func TestAnalyze(t *testing.T) {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.JGT.Imm(asm.R7, 3, "").WithMetadata(asm.Metadata{}),
		asm.Mov.Reg(asm.R0, asm.R6),
		asm.Return(),
	}
	insns[4].Offset = -4 // to instruction 1
	p, err := analyze(insns)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		start, end int
		succ       []int
		live, init regs
	}
	r := func(rs ...asm.Register) regs {
		var s regs
		for _, x := range rs {
			s |= reg(x)
		}
		return s
	}
	// The call reads R1-R5, as far as anyone can tell without its
	// prototype, so they are live wherever the loop may lead to it; R6 is
	// read after the loop. Only R6 is set on both ways into the loop.
	wants := []want{
		{0, 1, []int{1}, r(asm.R1, asm.R3, asm.R4, asm.R5), r(asm.R1)},
		{1, 3, []int{2}, r(asm.R1, asm.R3, asm.R4, asm.R5, asm.R6), r(asm.R6)},
		{3, 5, []int{1, 3}, r(asm.R0, asm.R1, asm.R3, asm.R4, asm.R5, asm.R6), r(asm.R0, asm.R6)},
		{5, 7, nil, r(asm.R6), r(asm.R0, asm.R6, asm.R7)},
	}
	if len(p.blocks) != len(wants) {
		t.Fatalf("%d blocks, want %d: %+v", len(p.blocks), len(wants), p.blocks)
	}
	for i, w := range wants {
		b := p.blocks[i]
		if b.start != w.start || b.end != w.end || !slices.Equal(b.succ, w.succ) {
			t.Errorf("block %d: %d-%d → %v, want %d-%d → %v", i, b.start, b.end, b.succ, w.start, w.end, w.succ)
		}
		if b.liveIn != w.live {
			t.Errorf("block %d: live %010b, want %010b", i, b.liveIn, w.live)
		}
		if b.initIn != w.init {
			t.Errorf("block %d: set %010b, want %010b", i, b.initIn, w.init)
		}
	}
	if !slices.Equal(p.entries, []int{0}) {
		t.Errorf("entries %v", p.entries)
	}
}

// Where no two registers are free or certainly set, the block cannot be
// counted: R0-R9 all read at the entry, where only R1 is set.
func TestNoScratchRegisters(t *testing.T) {
	var insns asm.Instructions
	for r := asm.R0; r <= asm.R9; r++ {
		insns = append(insns, asm.Add.Reg(asm.R1, r))
	}
	insns = append(insns, asm.Mov.Reg(asm.R0, asm.R1), asm.Return())
	if _, err := instrument(insns, CounterMap, options{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
}

// Every block begins with its update, jumps land on it, and the function
// entry's metadata moves to it.
func TestInstrumentShape(t *testing.T) {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R0, 0).WithSymbol("main"),
		asm.JEq.Imm(asm.R1, 0, "").WithMetadata(asm.Metadata{}),
		asm.Mov.Imm(asm.R0, 1),
		asm.Return(),
	}
	insns[1].Offset = 1 // to the exit
	rw, err := instrument(insns, CounterMap, options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Block{{0, 2}, {2, 3}, {3, 4}}; !slices.Equal(rw.Blocks, want) || rw.Added != 9 || rw.Saves != 0 {
		t.Errorf("blocks %v, %d added, %d saves; want %v, 9, 0", rw.Blocks, rw.Added, rw.Saves, want)
	}
	got := rw.Insns
	if got[0].Symbol() != "main" || !got[0].IsLoadFromMap() || got[0].Reference() != CounterMap {
		t.Errorf("first instruction %v: want the counter's address, with the symbol main", got[0])
	}
	if got[0].Constant>>32 != 0 || got[1].Constant != 1 || got[2].OpCode != asm.StoreXAddOp(asm.DWord) {
		t.Errorf("the entry block's update %v %v %v: want 1 added to the first counter", got[0], got[1], got[2])
	}
	jump := got[4]
	if jump.Offset != -1 || jump.Reference() == "" {
		t.Fatalf("jump %v: want a symbolic target", jump)
	}
	i := slices.IndexFunc(got, func(ins asm.Instruction) bool { return ins.Symbol() == jump.Reference() })
	if i < 0 || !got[i].IsLoadFromMap() || got[i].Constant>>32 != 16 || got[i+1].Constant != 1 || got[i+3].OpCode.JumpOp() != asm.Exit {
		t.Errorf("the jump lands on %d: want the exit block's update of its counter, the third", i)
	}
	if err := got.Marshal(discard{}, binary.LittleEndian); err != nil {
		t.Errorf("marshal: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestParseStackDepths(t *testing.T) {
	log := "processed 62 insns (limit 1000000) max_states_per_insn 0 total_states 4 peak_states 4 mark_read 2\nstack depth 8+0+24\n"
	got, err := ParseStackDepths(log)
	if err != nil || !slices.Equal(got, []int{8, 0, 24}) {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ParseStackDepths("processed 2 insns"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("no depths: got %v", err)
	}
	if scratchSlot(12, 0) != -24 || scratchSlot(16, 1) != -32 {
		t.Errorf("slots %d %d: want below the depth rounded up to 8", scratchSlot(12, 0), scratchSlot(16, 1))
	}
}

// A jump that reaches its target in the program but not over the counter
// updates put between them is refused, not wrapped around.
func TestJumpOutOfReach(t *testing.T) {
	const pairs = 8000 // 16 000 slots; with updates, 5 slots more a block
	insns := asm.Instructions{asm.Mov.Imm(asm.R0, 0).WithSymbol("main"), asm.Ja.Label("")}
	insns[1].Metadata, insns[1].Offset = asm.Metadata{}, 2*pairs
	for i := range pairs {
		j := asm.JEq.Imm(asm.R1, int32(i), "")
		j.Metadata, j.Offset = asm.Metadata{}, 1
		insns = append(insns, j, asm.Add.Imm(asm.R0, 1))
	}
	insns = append(insns, asm.Return())
	if _, err := instrument(insns, CounterMap, options{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
	// A tenth as long fits.
	short := append(append(asm.Instructions{}, insns[:2+2*pairs/10]...), asm.Return())
	short[1].Offset = 2 * pairs / 10
	if _, err := instrument(short, CounterMap, options{}); err != nil {
		t.Fatal(err)
	}
}
