package insncount

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// maxFuzzInsns bounds the instructions a fuzzed program has: enough for
// every shape of control flow, few enough that an input runs in
// milliseconds.
const maxFuzzInsns = 4096

// decodeFuzzProgram reads raw little-endian instructions, as an object's
// section holds them, and marks those entries names as functions' first
// instructions (BTF func info and a symbol), as an object's programs
// carry them. false for bytes that are no instructions.
func decodeFuzzProgram(raw, entries []byte) (asm.Instructions, bool) {
	var insns asm.Instructions
	r := bytes.NewReader(raw)
	for r.Len() > 0 && len(insns) < maxFuzzInsns {
		var ins asm.Instruction
		if err := ins.Unmarshal(r, binary.LittleEndian, "linux"); err != nil {
			return nil, false
		}
		insns = append(insns, ins)
	}
	if len(insns) == 0 {
		return nil, false
	}
	for _, e := range entries {
		i := int(e) % len(insns)
		if btf.FuncMetadata(&insns[i]) != nil {
			continue
		}
		fn := &btf.Func{Name: fmt.Sprintf("f%d", i), Type: &btf.FuncProto{Return: &btf.Void{}}}
		insns[i] = btf.WithFuncMetadata(insns[i].WithSymbol(fn.Name), fn)
	}
	return insns, true
}

// FuzzInstrument: any instructions, as an untrusted object holds them,
// through the control-flow graph and the rewriting that counts them. The
// rewriting either refuses them (ErrUnsupported, or asks for the stack
// depths) or gives a copy that encodes, holds every original instruction
// in order, each block after its counter update, and every jump and
// function reference landing on the counter update of the block it
// named. Seeded with the programs of the repository's objects.
func FuzzInstrument(f *testing.F) {
	paths, err := filepath.Glob("../../bpf/testdata/*.o")
	if err != nil {
		f.Fatal(err)
	}
	bundled, _ := filepath.Glob("../../bpf/*_bpfel.o")
	for _, path := range append(paths, bundled...) {
		spec, err := ebpf.LoadCollectionSpec(path)
		if err != nil {
			continue // a test object that is meant not to parse
		}
		for _, name := range sortedNames(spec.Programs) {
			insns := slices.Clone(spec.Programs[name].Instructions)
			var entries []byte
			for i := range insns {
				if btf.FuncMetadata(&insns[i]) != nil && i < 256 {
					entries = append(entries, byte(i))
				}
			}
			var raw bytes.Buffer
			if err := insns.Marshal(&raw, binary.LittleEndian); err != nil || raw.Len() > 8*maxFuzzInsns {
				continue
			}
			f.Add(raw.Bytes(), entries, []byte{0, 8, 16}, false)
		}
	}
	if _, err := os.Stat("../../bpf/testdata/calls.o"); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0x95, 0, 0, 0, 0, 0, 0, 0}, []byte{}, []byte{}, true)
	f.Fuzz(func(t *testing.T, raw, entries, depthBytes []byte, save bool) {
		insns, ok := decodeFuzzProgram(raw, entries)
		if !ok {
			return
		}
		// What cilium/ebpf cannot encode (a helper call's placeholder) it
		// does not load either: the copy need not encode where the
		// program does not.
		encodes := slices.Clone(insns).Marshal(new(bytes.Buffer), binary.LittleEndian) == nil
		depths := []int{} // the verifier's answer, which may name fewer functions than there are
		for _, d := range depthBytes {
			depths = append(depths, 8*int(d)) // as the verifier reports them: 0 to 512 and beyond
		}
		opt := options{save: save}
		rw, err := instrument(insns, CounterMap, opt)
		if errors.Is(err, errNeedStackDepths) {
			opt.depths = depths
			rw, err = instrument(insns, CounterMap, opt)
		}
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %q is not ErrUnsupported: the run would fail where it goes on without counts", err)
			}
			return
		}
		checkRewrite(t, insns, rw, opt, encodes)
	})
}

func sortedNames(m map[string]*ebpf.ProgramSpec) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// checkRewrite checks rw, the rewriting of insns, against the blocks
// analyze finds and the counter updates prologue makes for them.
func checkRewrite(t *testing.T, insns asm.Instructions, rw Rewrite, opt options, encodes bool) {
	t.Helper()
	p, err := analyze(insns)
	if err != nil {
		t.Fatalf("instrumented, but the analysis fails: %v", err)
	}
	if len(rw.Blocks) != len(p.blocks) {
		t.Fatalf("%d counters for %d blocks", len(rw.Blocks), len(p.blocks))
	}
	ones := make([]uint64, len(rw.Blocks))
	for i := range ones {
		ones[i] = 1
	}
	if got := rw.Total(ones); got != uint64(len(insns)) {
		t.Fatalf("every block once counts %d instructions, the program has %d", got, len(insns))
	}
	// The encoded copy: references resolved to offsets, as the kernel
	// gets them. Marshal writes them into the copy it is given.
	enc := slices.Clone(rw.Insns)
	if err := enc.Marshal(new(bytes.Buffer), binary.LittleEndian); err != nil {
		if encodes {
			t.Fatalf("the program encodes, its instrumented copy not: %v", err)
		}
		return
	}
	raw := make([]int, len(enc)+1)
	for i := range enc {
		raw[i+1] = raw[i] + int(enc[i].Size()/asm.InstructionSize)
	}
	// Where each block's counter update starts in the copy, and where
	// each original instruction is.
	at, proStart := 0, make(map[int]int, len(p.blocks))
	moved := make([]int, len(insns))
	for n, b := range p.blocks {
		if rw.Blocks[n].Start != b.start || rw.Blocks[n].End != b.end {
			t.Fatalf("block %d is %+v, the analysis says %d-%d", n, rw.Blocks[n], b.start, b.end)
		}
		pro, _, err := prologue(b, n, CounterMap, opt)
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		proStart[b.start] = at
		if enc[at].Symbol() == "" {
			t.Fatalf("block %d's counter update has no symbol to jump to", n)
		}
		// A register saved around the update goes below everything its
		// function uses of the stack, never into the function's own
		// slots.
		for _, ins := range pro {
			if ins.OpCode.Class() == asm.StXClass && ins.Dst == asm.RFP || ins.OpCode.Class() == asm.LdXClass && ins.Src == asm.RFP {
				depth := (opt.depths[b.fn] + 7) &^ 7
				if off := int(ins.Offset); off > -(depth+8) || off < -(depth+16) {
					t.Fatalf("block %d saves a register at fp%+d, in a function whose stack is %d bytes", n, off, depth)
				}
			}
		}
		at += len(pro)
		for i := b.start; i < b.end; i++ {
			got, want := enc[at], insns[i]
			if got.OpCode != want.OpCode || got.Dst != want.Dst || got.Src != want.Src {
				t.Fatalf("instruction %d is %v in the copy, %v in the program", i, got, want)
			}
			moved[i] = at
			at++
		}
	}
	if at != len(enc) {
		t.Fatalf("the copy has %d instructions, the blocks and their updates %d", len(enc), at)
	}
	// Every jump and function reference lands on the update of the
	// block it named.
	for i, target := range p.target {
		if target < 0 {
			continue
		}
		from := moved[i]
		ins := enc[from]
		delta := int64(ins.Offset)
		if ins.IsFunctionReference() || ins.OpCode.Class() == asm.Jump32Class && ins.OpCode.JumpOp() == asm.Ja {
			delta = ins.Constant
		}
		start, ok := proStart[target]
		if !ok {
			t.Fatalf("instruction %d names %d, which starts no block", i, target)
		}
		if got := raw[from] + int(delta) + 1; got != raw[start] {
			t.Fatalf("instruction %d (%v) lands at raw %d in the copy; block %d's update is at raw %d", i, ins, got, target, raw[start])
		}
	}
}

// A chain of backward jumps, each block's successor the block before it,
// is analysed in time near linear: the fuzzer's programs are too short
// to show a fixpoint that passes over every block until none changes
// (16,000 instructions took 9 s so), and an object's may have a million.
func TestAnalyzeBackwardChain(t *testing.T) {
	const n = 30_000
	// 0: goto the last; 1: r0 = r6; 2: exit; 3: goto 1; k > 3: goto k-1.
	insns := asm.Instructions{{OpCode: asm.Ja.Op(asm.ImmSource)}, asm.Mov.Reg(asm.R0, asm.R6), asm.Return()}
	for range n {
		insns = append(insns, asm.Instruction{OpCode: asm.Ja.Op(asm.ImmSource), Offset: -2})
	}
	insns[0].Offset = int16(len(insns) - 2)
	insns[3].Offset = -3
	start := time.Now()
	p, err := analyze(insns)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%d instructions analysed in %v", len(insns), d)
	}
	// R6 is read at the end of the chain, and so live all along it.
	for _, b := range p.blocks[1:] {
		if !b.liveIn.has(asm.R6) {
			t.Fatalf("block %d-%d: R6 not live", b.start, b.end)
		}
	}
}
