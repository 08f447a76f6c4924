package replay

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

func flowtable(t *testing.T) testrun.Program {
	return testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "flowtable.o"), Program: "flowtable"}
}

func options(t *testing.T, capture string, progs ...testrun.Program) Options {
	return Options{Capture: capture, Programs: progs, Floor: testrun.Object{Name: "floor", ELF: bpf.Floor()},
		CPU: testrun.AnyCPU, Replays: 3, Keep: 100}
}

// pathWith is the path group whose name holds what, and how many hold it.
func pathWith(paths []results.ReplayPath, what string) (results.ReplayPath, int) {
	var found results.ReplayPath
	n := 0
	for _, p := range paths {
		if strings.Contains(p.Name, what) {
			found, n = p, n+1
		}
	}
	return found, n
}

// A capture of flows through the connection tracker: each flow's first
// packet misses and inserts, every later one hits, and a short frame
// aborts. The path groups and their counts are what the capture implies.
func TestFlowtablePaths(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const flows, perFlow = 300, 7
	short := flowFrame(t, 0)[:20] // Ethernet and 6 bytes of IPv4: aborted
	path := writeCapture(t, flowOrder(flows, perFlow, 1), short)
	rep, err := Run(context.Background(), options(t, path, flowtable(t)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Packets != flows*perFlow+1 {
		t.Fatalf("%d packets replayed, want %d", rep.Packets, flows*perFlow+1)
	}
	kinds := map[string]int{}
	for _, k := range rep.Kinds {
		kinds[k.Name] = k.Packets
	}
	// A new flow probes the ring 1 to 8 positions: several paths, one kind.
	want := map[string]int{
		"XDP_TX: .bss: updated; flows: miss + insert": flows,
		"XDP_TX: .bss: updated; flows: hit, updated":  flows * (perFlow - 1),
		"XDP_ABORTED: no map change":                  1,
	}
	if !maps.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	hit, n := pathWith(rep.Paths, "flows: hit, updated")
	if n != 1 || hit.Packets != flows*(perFlow-1) {
		t.Errorf("hit paths %d, %+v; want one of %d packets", n, hit, flows*(perFlow-1))
	}
	for _, p := range rep.Paths {
		if strings.Contains(p.Name, "miss + insert") && p.Instructions <= hit.Instructions {
			t.Errorf("a miss runs %d instructions, a hit %d: the miss hashes 48 rounds", p.Instructions, hit.Instructions)
		}
		if strings.Contains(p.Name, "miss + insert") && p.First == 0 && p.Packets < 1 {
			t.Errorf("the first packet's path holds no packet")
		}
	}
	if aborted, _ := pathWith(rep.Paths, "XDP_ABORTED"); aborted.First != flows*perFlow {
		t.Errorf("the aborted packet is at %d, want %d, the last", aborted.First, flows*perFlow)
	}
	if rep.ActionMismatches != 0 {
		t.Errorf("%d timed runs took another action than counted", rep.ActionMismatches)
	}
	checkFigures(t, rep)
}

// checkFigures holds the figures to what they must be whatever the host:
// the shares add up, the interval holds the mean, the percentiles are in
// order, every packet listed.
func checkFigures(t *testing.T, rep *results.Replay) {
	t.Helper()
	var packets, share float64
	for _, p := range rep.Paths {
		packets += p.PacketShare
		share += p.TimeShare
	}
	if packets < 0.999 || packets > 1.001 || share < 0.999 || share > 1.001 {
		t.Errorf("the path groups' shares add to %.4f of the packets and %.4f of the time, want 1", packets, share)
	}
	if len(rep.ReplayMeans) != rep.Replays || rep.Mean.Lower > rep.Mean.Point || rep.Mean.Upper < rep.Mean.Point {
		t.Errorf("mean %+v over replays %v", rep.Mean, rep.ReplayMeans)
	}
	if rep.P50 > rep.P90 || rep.P90 > rep.P99 {
		t.Errorf("p50 %.1f, p90 %.1f, p99 %.1f: out of order", rep.P50, rep.P90, rep.P99)
	}
	if len(rep.PacketList) != min(rep.Packets, 100) || rep.PacketsLeftOut != rep.Packets-len(rep.PacketList) {
		t.Errorf("%d packets listed, %d left out, of %d", len(rep.PacketList), rep.PacketsLeftOut, rep.Packets)
	}
	t.Logf("mean %.1f [%.1f %.1f] ns over %v; floor %.1f; p50 %.0f p90 %.0f p99 %.0f", rep.Mean.Point, rep.Mean.Lower, rep.Mean.Upper,
		rep.ReplayMeans, rep.Floor, rep.P50, rep.P90, rep.P99)
	for _, p := range rep.Paths {
		t.Logf("  %-60s %6d packets (%.1f %%), %.1f %% of the time, %.1f ns", p.Name, p.Packets, 100*p.PacketShare, 100*p.TimeShare, p.Mean.Point)
	}
}

// Bad input is refused as such, before anything is loaded.
func TestBadInput(t *testing.T) {
	bad := writeBytes(t, []byte("not a capture at all"))
	for name, o := range map[string]Options{
		"no capture":   {Programs: []testrun.Program{{}}},
		"one replay":   {Capture: bad, Programs: []testrun.Program{{}}, Replays: 1},
		"not pcap":     {Capture: bad, Programs: []testrun.Program{{}}},
		"missing file": {Capture: bad + ".gone", Programs: []testrun.Program{{}}},
		"no program":   {Capture: bad},
	} {
		if _, err := Run(context.Background(), o); !errors.Is(err, badinput.Err) {
			t.Errorf("%s: %v, want bad input", name, err)
		}
	}
}
