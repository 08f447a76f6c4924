// An external test package, so that it may skip the kernel test the way
// the rest of the repository does (host.CheckPrivileges) without bpf
// importing measure.
package bpf_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// What ladder.c computes: the multiplier and increment of one step, and the
// global that carries the chain from run to run.
const (
	stepMul  = 0x5bd1e995
	stepAdd  = 1
	carryVar = "carry"
	xdpPass  = 2
)

func ladderSpec(t *testing.T) *ebpf.CollectionSpec {
	t.Helper()
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(bpf.Ladder()))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// op is an instruction without its registers, which clang may allocate
// differently from one program to the next at no cost.
type op struct {
	code     asm.OpCode
	offset   int16
	constant int64
}

func ops(insns asm.Instructions) []op {
	out := make([]op, len(insns))
	for i, ins := range insns {
		out[i] = op{ins.OpCode, ins.Offset, ins.Constant}
	}
	return out
}

// Each ladder program must be the empty one plus exactly its steps: the
// same per-step instructions, repeated, with nothing folded away or
// hoisted out of the steps.
func TestLadderGrowsByWholeSteps(t *testing.T) {
	spec := ladderSpec(t)
	if !slices.IsSorted(bpf.LadderSteps) || bpf.LadderSteps[0] != 0 || bpf.LadderSteps[1] != 1 {
		t.Fatalf("LadderSteps %v: want ascending from 0, 1", bpf.LadderSteps)
	}
	prog := func(steps int) []op {
		t.Helper()
		p, ok := spec.Programs[bpf.LadderProgram(steps)]
		if !ok {
			t.Fatalf("no program %s", bpf.LadderProgram(steps))
		}
		if p.Type != ebpf.XDP {
			t.Fatalf("%s is %s, want XDP", bpf.LadderProgram(steps), p.Type)
		}
		return ops(p.Instructions)
	}
	for _, steps := range bpf.LadderSteps {
		prog(steps)
	}

	zero, one := prog(0), prog(1)
	perStep := len(one) - len(zero)
	if perStep <= 0 {
		t.Fatalf("a step adds %d instructions", perStep)
	}
	// The step is where ladder_1 departs from ladder_0.
	at := 0
	for at < len(zero) && zero[at] == one[at] {
		at++
	}
	step := one[at : at+perStep]
	if !slices.Equal(one[at+perStep:], zero[at:]) {
		t.Fatalf("ladder_1 is not ladder_0 with %d instructions inserted at %d", perStep, at)
	}
	if !slices.ContainsFunc(step, func(o op) bool { return o.code.ALUOp() == asm.Mul && o.constant == stepMul }) {
		t.Errorf("the step %v has no multiply by %#x", step, stepMul)
	}

	for _, steps := range bpf.LadderSteps {
		got := prog(steps)
		if d := len(got) - len(zero); d != steps*perStep {
			t.Errorf("%s: %d instructions more than ladder_0, want %d × %d", bpf.LadderProgram(steps), d, steps, perStep)
			continue
		}
		want := slices.Concat(zero[:at], slices.Repeat(step, steps), zero[at:])
		if !slices.Equal(got, want) {
			t.Errorf("%s is not ladder_0 with %d copies of the step", bpf.LadderProgram(steps), steps)
		}
	}
}

// Each fine rung must be the fine base plus exactly its fine steps, each a
// single instruction.
func TestFineRungsGrowByOneInstruction(t *testing.T) {
	spec := ladderSpec(t)
	base, ok := spec.Programs[bpf.LadderProgram(bpf.FineBase)]
	if !ok {
		t.Fatalf("no program %s", bpf.LadderProgram(bpf.FineBase))
	}
	baseOps := ops(base.Instructions)
	// The fine steps go in just before the chain is stored back.
	store := slices.IndexFunc(baseOps, func(o op) bool { return o.code.Class() == asm.StXClass })
	if store < 0 {
		t.Fatalf("%s stores no carry", bpf.LadderProgram(bpf.FineBase))
	}
	var fineStep op
	for _, steps := range bpf.FineSteps {
		name := bpf.FineProgram(steps)
		p, ok := spec.Programs[name]
		if !ok {
			t.Fatalf("no program %s", name)
		}
		got := ops(p.Instructions)
		if len(got) != len(baseOps)+steps {
			t.Errorf("%s: %d instructions, want %d + %d", name, len(got), len(baseOps), steps)
			continue
		}
		if steps > 0 && fineStep == (op{}) {
			fineStep = got[store]
			if !fineStep.code.Class().IsALU() || fineStep.code.ALUOp() == asm.Mul {
				t.Fatalf("%s: the fine step %v is not a single cheap ALU instruction", name, fineStep)
			}
		}
		want := slices.Concat(baseOps[:store], slices.Repeat([]op{fineStep}, steps), baseOps[store:])
		if !slices.Equal(got, want) {
			t.Errorf("%s is not %s with %d fine steps before the store", name, bpf.LadderProgram(bpf.FineBase), steps)
		}
	}
}

// Every ladder program passes the kernel's verifier, returns XDP_PASS for a
// frame, and does its steps at run time: the carried value comes out as
// computed here.
func TestLadderRuns(t *testing.T) {
	kerneltest.RequireBPF(t)
	coll, err := ebpf.NewCollection(ladderSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	carry, ok := coll.Variables[carryVar]
	if !ok {
		t.Fatalf("no variable %s", carryVar)
	}

	// A minimum-size Ethernet frame (without FCS): broadcast, IPv4, zeros.
	frame := make([]byte, 60)
	copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00})

	var want uint64
	for _, steps := range bpf.LadderSteps {
		name := bpf.LadderProgram(steps)
		prog, ok := coll.Programs[name]
		if !ok {
			t.Fatalf("no program %s", name)
		}
		ret, err := prog.Run(&ebpf.RunOptions{Data: frame})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ret != xdpPass {
			t.Errorf("%s returned %d, want XDP_PASS (%d)", name, ret, xdpPass)
		}

		want += uint64(len(frame))
		for range bpf.LadderBase + steps {
			want = want*stepMul + stepAdd
		}
		var got uint64
		if err := carry.Get(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: carry %#x, want %#x after %d + %d steps", name, got, want, bpf.LadderBase, steps)
		}
	}

	for _, fine := range bpf.FineSteps {
		name := bpf.FineProgram(fine)
		ret, err := coll.Programs[name].Run(&ebpf.RunOptions{Data: frame})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ret != xdpPass {
			t.Errorf("%s returned %d, want XDP_PASS (%d)", name, ret, xdpPass)
		}
		want += uint64(len(frame))
		for range bpf.LadderBase + bpf.FineBase {
			want = want*stepMul + stepAdd
		}
		want <<= fine
		var got uint64
		if err := carry.Get(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: carry %#x, want %#x", name, got, want)
		}
	}
}
