package bpf

import (
	"bytes"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Each ladder program must be the empty one plus exactly its steps: the
// same per-step instructions, repeated, with nothing folded away.
func TestLadderGrowsByWholeSteps(t *testing.T) {
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(Ladder()))
	if err != nil {
		t.Fatal(err)
	}
	count := func(steps int) int {
		p, ok := spec.Programs[LadderProgram(steps)]
		if !ok {
			t.Fatalf("no program %s", LadderProgram(steps))
		}
		return len(p.Instructions)
	}
	// Steps after the first share its loaded constant.
	perStep := count(2) - count(1)
	if perStep <= 0 {
		t.Fatalf("a step adds %d instructions", perStep)
	}
	for _, steps := range LadderSteps[1:] {
		if got, want := count(steps)-count(1), (steps-1)*perStep; got != want {
			t.Errorf("%s: %d instructions more than ladder_1, want %d", LadderProgram(steps), got, want)
		}
	}
	var muls int
	for _, ins := range spec.Programs[LadderProgram(64)].Instructions {
		if ins.OpCode.ALUOp() == asm.Mul {
			muls++
		}
	}
	if muls != 64 {
		t.Errorf("ladder_64 has %d multiplies, want 64", muls)
	}
}
