package testrun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// flowsObject is one XDP program beside a hash map of 2^20 flows (16-byte
// keys, 8-byte values: 88 MiB preallocated) that programs may write, so
// that every load holds its own.
func flowsObject() Object {
	return Object{Name: "flows.o", Spec: &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"flows": {Name: "flows", Type: ebpf.Hash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 20},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"xdp_flows": {Name: "xdp_flows", Type: ebpf.XDP, SectionName: "xdp", License: "GPL", Instructions: asm.Instructions{
				asm.LoadMapPtr(asm.R1, 0).WithReference("flows"),
				asm.Mov.Imm(asm.R0, 2), // XDP_PASS
				asm.Return(),
			}},
		},
	}}
}

// plansFlows is a plan of placements loads of flowsObject, as prepare
// makes it, before the kernel memory is fitted.
func plansFlows(t *testing.T, placements int) *plan {
	t.Helper()
	c, err := object.Choose(object.Object(flowsObject()), "", object.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan{floor: -1}
	for range placements {
		p.picked, p.programOf, p.others = append(p.picked, c), append(p.programOf, 0), append(p.others, nil)
	}
	return p
}

// The extra loads drawn to spread placements go first, then the run is
// refused: 8 loads of 88 MiB and a copy to count instructions take 792
// MiB; with 3 or 2 drawn for each they would take 2.1 or 1.4 GiB.
func TestKernelMemoryFitsCandidates(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		budget     uint64
		candidates int // 0: refused
	}{
		{4096 * mib, 3},
		{1500 * mib, 2},
		{1200 * mib, 1},
		{700 * mib, 0},
	} {
		p := plansFlows(t, 8)
		err := p.fitKernelMemory(tt.budget)
		switch {
		case tt.candidates == 0 && (!errors.Is(err, object.ErrKernelMemory) || !errors.Is(err, badinput.Err)):
			t.Errorf("budget %d MiB: %v, want a refusal as bad input", tt.budget/mib, err)
		case tt.candidates > 0 && (err != nil || p.candidates != tt.candidates):
			t.Errorf("budget %d MiB: %d drawn a load, %v; want %d", tt.budget/mib, p.candidates, err, tt.candidates)
		}
		if tt.candidates == 0 && err != nil {
			t.Log(err)
			// The total moves with the possible CPUs (a hash's spare
			// elements); the rest does not.
			head := "past the kernel memory budget: map flows (Hash, 1048576 entries, 16-byte keys, 8-byte values) takes 88.0 MiB of kernel memory a load; " +
				"8 loads at once (8 of xdp_flows) and a copy to count instructions: 792."
			tail := " MiB in all, past the budget of 700.0 MiB: raise it with --kernel-memory SIZE"
			if msg := err.Error(); !strings.HasPrefix(msg, head) || !strings.HasSuffix(msg, tail) || strings.Contains(msg, "\n") {
				t.Errorf("reads %q\nwant  %q…%q", msg, head, tail)
			}
		}
	}
}

// Run refuses such a run before anything is loaded or any privilege is
// needed: the refusal is the input's.
func TestRunRefusesPastKernelMemory(t *testing.T) {
	_, err := Run(context.Background(), Config{
		Programs: []Program{{Object: flowsObject()}}, Cases: packets.Default()[:1], CPU: AnyCPU,
		Samples: MinSamples, Repeat: 10, Placements: 8, Load: LoadOptions{KernelMemory: "512M"},
	})
	if !errors.Is(err, object.ErrKernelMemory) || !errors.Is(err, badinput.Err) {
		t.Fatalf("8 placements of 88 MiB in 512 MiB: %v, want a refusal as bad input", err)
	}
}
