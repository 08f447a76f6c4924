package replay

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// slowerMiss is flowtable with ten times the new flow's hash rounds: its
// loop counter starts at 480 in place of 48 (`r2 = 48`, the one such
// move). Only the miss path changes. (Twice the rounds read +8 % here:
// a miss's cost is mostly its insert's memory, and a fresh map's first
// insert alone read 8 µs, which a replay of 300 misses cannot average out.)
func slowerMiss(t *testing.T) testrun.Program {
	obj := kerneltest.ReadTestObject[testrun.Object](t, "flowtable.o")
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(obj.ELF))
	if err != nil {
		t.Fatal(err)
	}
	insns := spec.Programs["flowtable"].Instructions
	patched := 0
	for i, ins := range insns {
		if ins.OpCode.ALUOp() == asm.Mov && ins.OpCode.Source() == asm.ImmSource && ins.Dst == asm.R2 && ins.Constant == 48 {
			insns[i].Constant = 480
			patched++
		}
	}
	if patched != 1 {
		t.Fatalf("%d moves of 48 into r2 in flowtable, want the hash loop's one", patched)
	}
	return testrun.Program{Object: testrun.Object{Name: "flowtable, 480 rounds", Spec: spec}, Program: "flowtable"}
}

// A build that slows only the new flows: the new flows' kind regresses,
// with more instructions, and the hits run the same instructions.
func TestSlowerMissShows(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const flows, perFlow = 1000, 5
	path := writeCapture(t, flowOrder(flows, perFlow, 3))
	o := options(t, path, flowtable(t), slowerMiss(t))
	o.Replays = DefaultReplays
	o.Rate = 1e7
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before == nil || rep.Change == nil {
		t.Fatalf("no comparison: %+v", rep)
	}
	var miss, hit *results.ReplayPathChange
	for i, k := range rep.Change.Kinds {
		t.Logf("%-50s %5d packets, insns %d → %d, %.1f → %.1f ns, %+.1f %% [%+.1f %+.1f] %s", k.Name, k.Packets, k.BeforeIn, k.AfterIn,
			k.Before, k.After, k.Change.Point, k.Change.Lower, k.Change.Upper, k.Verdict)
		switch {
		case strings.Contains(k.Name, "miss + insert"):
			miss = &rep.Change.Kinds[i]
		case strings.Contains(k.Name, "hit"):
			hit = &rep.Change.Kinds[i]
		}
	}
	if miss == nil || hit == nil {
		t.Fatalf("kinds %+v: want new flows and hits", rep.Change.Kinds)
	}
	if miss.Packets != flows || miss.AfterIn <= miss.BeforeIn || miss.Verdict != string(results.Regressed) {
		t.Errorf("new flows: %+v; want %d packets, more instructions, regressed", *miss, flows)
	}
	if hit.Packets != flows*(perFlow-1) || hit.AfterIn != hit.BeforeIn {
		t.Errorf("hits: %+v; want %d packets, the same instructions", *hit, flows*(perFlow-1))
	}
	t.Logf("mean %+.1f %% [%+.1f %+.1f] %s; %+.3f cores at 10 Mpps", rep.Change.Mean.Point, rep.Change.Mean.Lower, rep.Change.Mean.Upper,
		rep.Change.Verdict, rep.Change.Cores)
	if (rep.Change.Cores > 0) != (rep.Change.MeanNS > 0) {
		t.Errorf("%+.3f cores for a change of %+.1f ns a packet", rep.Change.Cores, rep.Change.MeanNS)
	}
}
