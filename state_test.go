package xdpmicro_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// flowtableTolerance is how far, as a fraction, a state's net time may
// lie from the in-BPF reference, beyond both one's interval and the
// other's spread.
const flowtableTolerance = 0.15

// The project's LRU flow table, a new flow and a known one: --state first
// times the miss path and counts its instructions, --state steady the hit
// path, each agreeing with the program's own in-BPF timing of a batch
// that resets the flow the way the kernel's load-balancer benchmark does;
// and the miss is told from the hit.
func TestStatesAgainstInBPFReference(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	claim := kerneltest.ClaimCPU(t)
	cpu := claim.CPU
	prog := xdpmicro.File("bpf/testdata/flowtable.o", "flowtable")
	claim.Release() // the run takes it again
	rep, err := xdpmicro.Measure(context.Background(), prog, &xdpmicro.Options{
		Cases: cases, States: []string{packets.StateFirst, packets.StateSteady}, CPU: &cpu, Budget: 4 * time.Second,
		// One load, one group: its figures are as the kernel read them,
		// not scaled to the fastest of several groups' phases, which the
		// reference's loads are not either.
		Placements: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	first, steady := stateCase(t, rep, "tcp-syn@first"), stateCase(t, rep, "tcp-syn@steady")
	switch {
	case first.State != packets.StateFirst || steady.State != packets.StateSteady:
		t.Fatalf("states %q and %q", first.State, steady.State)
	case !first.PathChanges() || !steady.PathChanges() || first.FirstInstructions <= first.LaterInstructions:
		t.Fatalf("first %d then %d instructions: want a longer first path, said on both rows", first.FirstInstructions, first.LaterInstructions)
	case first.Instructions != first.FirstInstructions || steady.Instructions != steady.LaterInstructions:
		t.Fatalf("instructions shown %d (first) and %d (steady), want the first path's %d and the later one's %d",
			first.Instructions, steady.Instructions, first.FirstInstructions, steady.LaterInstructions)
	case first.Net == nil || steady.Net == nil:
		t.Fatal("no net of floor")
	case first.Net.Lower <= steady.Net.Upper:
		t.Errorf("miss %v ns not told from hit %v ns", *first.Net, *steady.Net)
	}

	// The reference's loads differ by more than a run's interval says
	// (other work, the machine's phases, which last up to a second, and
	// which the run gives at its fastest): fifteen of them over three
	// seconds, the outermost two left out.
	var misses, hits []float64
	pinned(t, cpu, func() {
		for range 15 {
			miss, hit := kerneltest.FlowtableReference(t, cases[0].Frame)
			misses, hits = append(misses, miss), append(hits, hit)
			time.Sleep(200 * time.Millisecond)
		}
	})
	floor := floorOf(t, rep, "tcp-syn@steady")
	t.Logf("first: net %.1f [%.1f, %.1f] ns, %d insns; in-BPF miss %.1f", first.Net.Point, first.Net.Lower, first.Net.Upper, first.Instructions, misses)
	t.Logf("steady: net %.2f [%.2f, %.2f] ns, %d insns; in-BPF hit %.2f; floor %.2f ns", steady.Net.Point, steady.Net.Lower, steady.Net.Upper, steady.Instructions, hits, floor)
	agrees(t, "first", *first.Net, floor, misses)
	agrees(t, "steady", *steady.Net, floor, hits)
}

// agrees fails unless the reference's loads, less the outermost on
// each side, meet the net's interval widened by flowtableTolerance of its
// estimate, and above by the floor: a test run's work per run overlaps
// the program's on an out-of-order core, so the net of floor may hide up
// to the floor's own time of a program that work does not wait on
// (DESIGN.md, fact 9), where the reference's loop has next to none.
func agrees(t *testing.T, state string, net results.Estimate, floor float64, reference []float64) {
	t.Helper()
	sorted := slices.Sorted(slices.Values(reference))
	lo, hi := sorted[1], sorted[len(sorted)-2]
	slack := flowtableTolerance * net.Point
	if hi < net.Lower-slack || lo > net.Upper+slack+floor {
		t.Errorf("%s: net %.2f [%.2f, %.2f] ns, the in-BPF reference %.2f to %.2f ns: further apart than %.0f %% and the floor's %.2f ns",
			state, net.Point, net.Lower, net.Upper, lo, hi, 100*flowtableTolerance, floor)
	}
}

// floorOf is the floor's estimate of a case, in ns.
func floorOf(t *testing.T, rep *results.Report, name string) float64 {
	t.Helper()
	if rep.Floor == nil {
		t.Fatal("no floor")
	}
	for _, c := range rep.Floor.Results {
		if c.Name == name && c.Stats != nil {
			return c.Stats.Of(rep.Settings.ChosenEstimator()).Point
		}
	}
	t.Fatalf("no floor for %s", name)
	return 0
}

func stateCase(t *testing.T, rep *results.Report, name string) results.Case {
	t.Helper()
	for _, c := range rep.Measured().Results {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return results.Case{}
}

// pinned runs f on an OS thread of its own, on cpu.
func pinned(t *testing.T, cpu int, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			t.Error(err)
			return
		}
		f()
	}()
	<-done
}
