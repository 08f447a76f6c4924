package worst

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/xdpmicro/xdpmicro/bpf"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// testBudget is the packets a guided search of the test programs gets:
// well within what DefaultBudget runs at 20,000 packets a second, the
// least this machine must do.
const testBudget = 100_000

// defaultBudgetPackets is what DefaultBudget runs at the least speed the
// search must keep: the budget in which blind mutation must not find
// what the guidance finds.
const defaultBudgetPackets = 20_000 * 10

// hotSource is the key of key_guard's map: 203.0.113.77, as the packet
// holds it.
const hotSource = "cb00714d"

// search runs a search of program in worst.o, from every built-in case.
func search(t *testing.T, program string, candidates uint64, without Guidance) *Result {
	return searchSeed(t, program, candidates, without, 1)
}

func searchSeed(t *testing.T, program string, candidates uint64, without Guidance, seed uint64) *Result {
	t.Helper()
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Object: kerneltest.ReadTestObject[testrun.Object](t, "worst.o"), Program: program, Seeds: seeds, Candidates: candidates, Seed: seed, Without: without}
	if program == "key_guard" {
		if o.MapInit, err = testrun.ParseMapInit("hot.yaml", []byte("maps:\n  hot_sources:\n    - {key_hex: \""+hotSource+"\", value: 1}\n")); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tried != candidates {
		t.Fatalf("%d packets tried, want %d", res.Tried, candidates)
	}
	return res
}

// mostRuns is the most times any block ran in the costliest packet: the
// length of its longest loop.
func mostRuns(r *Result) uint64 {
	return slices.Max(r.Top[0].Counts)
}

// expensiveRuns: the hidden path of const_guard and key_guard is a loop
// of 64 rounds.
const expensiveRuns = 64

// The packet behind dport == 7777 && URG is found, from the constants
// the program's jumps compare against; without them, never in the
// default budget.
func TestConstantGuard(t *testing.T) {
	kerneltest.RequireBPF(t)
	r := search(t, "const_guard", testBudget, 0)
	if mostRuns(r) != expensiveRuns {
		t.Fatalf("the costliest packet, %d instructions, runs the loop %d times, want %d: the guard was not passed",
			r.Top[0].Instructions, mostRuns(r), expensiveRuns)
	}
	tcp, _ := gopacket.NewPacket(r.Top[0].Frame, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeTCP).(*layers.TCP)
	if tcp == nil || tcp.DstPort != 7777 || !tcp.URG {
		t.Errorf("the costliest packet is not to TCP port 7777 with URG: %x", r.Top[0].Frame)
	}
	if r := search(t, "const_guard", defaultBudgetPackets, Constants); mostRuns(r) >= expensiveRuns {
		t.Errorf("without the program's constants the guard was passed after %d packets", r.Top[0].Tried)
	}
}

// The packet from a source address that is a key of hot_sources is
// found, from the map's keys; without them, never in the default budget.
func TestMapKeyGuard(t *testing.T) {
	kerneltest.RequireBPF(t)
	r := search(t, "key_guard", testBudget, 0)
	if mostRuns(r) != expensiveRuns {
		t.Fatalf("the costliest packet runs the loop %d times, want %d: the map's key was not found", mostRuns(r), expensiveRuns)
	}
	ip, _ := gopacket.NewPacket(r.Top[0].Frame, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	if want := netip.MustParseAddr("203.0.113.77"); ip == nil || !ip.SrcIP.Equal(want.AsSlice()) {
		t.Errorf("the costliest packet is not from %s: %x", want, r.Top[0].Frame)
	}
	if r := search(t, "key_guard", defaultBudgetPackets, MapKeys); mostRuns(r) >= expensiveRuns {
		t.Errorf("without the map's keys the guard was passed after %d packets", r.Top[0].Tried)
	}
}

// The longest chain of IPv6 extension headers, 24, is built one header
// at a time, each packet that runs the loop once more kept; with new
// blocks and hit-count ranges alone (AFL's), the search stalls at a
// range's edge.
func TestLoopLength(t *testing.T) {
	kerneltest.RequireBPF(t)
	const longest = 24 // ext_chain's MAX_CHAIN
	r := search(t, "ext_chain", testBudget, 0)
	if mostRuns(r) != longest {
		t.Fatalf("the costliest packet, %d instructions, runs the loop %d times, want %d", r.Top[0].Instructions, mostRuns(r), longest)
	}
	if r := search(t, "ext_chain", defaultBudgetPackets, Cost); mostRuns(r) >= longest {
		t.Errorf("without the cost's guidance the loop ran %d times", mostRuns(r))
	}
}

// Blind mutation, the search without any guidance, finds none of the
// three hidden paths in the default budget.
func TestBlindFindsNone(t *testing.T) {
	kerneltest.RequireBPF(t)
	for program, hidden := range map[string]uint64{"const_guard": expensiveRuns, "key_guard": expensiveRuns, "ext_chain": 24} {
		if r := search(t, program, defaultBudgetPackets, Guided); mostRuns(r) >= hidden {
			t.Errorf("%s: blind mutation found the hidden path (%d runs of its loop)", program, mostRuns(r))
		}
	}
}

// v3's worst packets: the costliest distinct paths the search finds are
// those an exhaustive run of every last octet in every FizzBuzz class
// finds, the costliest first (the longest loop, 13 steps, for octets
// 234 to 255).
func TestV3Worst(t *testing.T) {
	kerneltest.RequireBPF(t)
	v3, err := bpf.Lookup("v3")
	if err != nil {
		t.Fatal(err)
	}
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Object: testrun.Object{Name: "v3", ELF: v3.Object}, Program: v3.Program, Seeds: seeds, Candidates: testBudget, Seed: 1}
	r, err := Search(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := exhaustiveV3(t, o)
	var got []uint64
	for _, f := range r.Top {
		got = append(got, f.Instructions)
	}
	if !slices.Equal(got, want[:len(got)]) {
		t.Errorf("the costliest paths run %v instructions, want %v", got, want[:len(got)])
	}
	// What makes the longest loop costly is said in its source lines: the
	// loop's 13 steps, where the most alike cheaper packet took 12.
	var counts [][]uint64
	for _, f := range r.Top {
		counts = append(counts, f.Counts)
	}
	reasons, _ := r.Explain(counts)
	thirteen := func(rs []Reason) bool {
		return slices.ContainsFunc(rs, func(x Reason) bool { return x.Count == 13 && x.Cheaper == 12 && x.Line > 0 && x.Source != "" })
	}
	if !slices.ContainsFunc(reasons, thirteen) {
		t.Errorf("no packet is said to run a line 13 times where a cheaper one ran it 12: %+v", reasons)
	}
}

// exhaustiveV3 runs v3 on a UDP packet from every address 192.0.0.0 +
// k, k < 256·15 (every last octet with every residue mod 15), and
// returns the instructions of the distinct paths, most first.
func exhaustiveV3(t *testing.T, o Options) []uint64 {
	t.Helper()
	c, err := load(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seed, ok := shapeOf(o.Seeds[0].Frame)
	if !ok || seed.net != netIPv4 {
		t.Fatal("the first seed is no IPv4 packet")
	}
	paths := map[uint64]uint64{}
	for k := range 256 * 15 {
		s := seed.clone()
		s.ip4.src = [4]byte{192, 0, byte(k >> 8), byte(k)}
		frame, err := newBuilder().build(s)
		if err != nil {
			t.Fatal(err)
		}
		_, counts, err := c.Run(frame, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths[pathHash(counts)] = c.Total(counts)
	}
	var insns []uint64
	for _, n := range paths {
		insns = append(insns, n)
	}
	slices.Sort(insns)
	slices.Reverse(insns)
	return insns
}

// The same seed and budget find the same packets.
func TestDeterministic(t *testing.T) {
	kerneltest.RequireBPF(t)
	a, b := search(t, "ext_chain", 20_000, 0), search(t, "ext_chain", 20_000, 0)
	if len(a.Top) != len(b.Top) || a.Paths != b.Paths {
		t.Fatalf("%d and %d packets, %d and %d paths", len(a.Top), len(b.Top), a.Paths, b.Paths)
	}
	for i := range a.Top {
		if !slices.Equal(a.Top[i].Frame, b.Top[i].Frame) || a.Top[i].Instructions != b.Top[i].Instructions {
			t.Errorf("packet %d differs: %x (%d) and %x (%d)", i, a.Top[i].Frame, a.Top[i].Instructions, b.Top[i].Frame, b.Top[i].Instructions)
		}
	}
}

// Cancelled, a search stops at once with what it found, and nothing it
// loaded stays in the kernel.
func TestCancelLeavesNothing(t *testing.T) {
	kerneltest.RequireBPF(t)
	before := kerneltest.Programs(t, "ext_chain")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Object: kerneltest.ReadTestObject[testrun.Object](t, "worst.o"), Program: "ext_chain", Seeds: seeds, Budget: time.Minute, Seed: 1,
		Progress: func(p Progress) {
			if p.Tried > 1000 {
				cancel()
			}
		}}
	start := time.Now()
	r, err := Search(ctx, o)
	if !errors.Is(err, context.Canceled) || r == nil || !r.Partial || len(r.Top) == 0 {
		t.Fatalf("got %v, %+v: want the packets found so far, partial, and context.Canceled", err, r)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("a cancelled search of a minute took %s", time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(before, kerneltest.Programs(t, "ext_chain")) {
		if time.Now().After(deadline) {
			t.Fatalf("programs named ext_chain before: %v, after: %v", before, kerneltest.Programs(t, "ext_chain"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Bad options are refused before anything is loaded, as bad input.
func TestBadOptions(t *testing.T) {
	seeds := packets.Default()
	for name, o := range map[string]Options{
		"no seeds":  {Object: kerneltest.ReadTestObject[testrun.Object](t, "worst.o"), Candidates: 1},
		"no budget": {Object: kerneltest.ReadTestObject[testrun.Object](t, "worst.o"), Seeds: seeds},
		"no object": {Object: testrun.Object{Name: "x", ELF: []byte("not elf")}, Seeds: seeds, Candidates: 1},
		"ambiguous": {Object: kerneltest.ReadTestObject[testrun.Object](t, "worst.o"), Seeds: seeds, Candidates: 1},
	} {
		if _, err := Search(context.Background(), o); !errors.Is(err, badinput.Err) {
			t.Errorf("%s: got %v, want bad input", name, err)
		}
	}
}

// BenchmarkSearch runs v3's search for b.N packets and reports the rate,
// the figure the command prints: at least 20,000 a second is the target.
func BenchmarkSearch(b *testing.B) {
	kerneltest.RequireBPF(b)
	v3, err := bpf.Lookup("v3")
	if err != nil {
		b.Fatal(err)
	}
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		b.Fatal(err)
	}
	o := Options{Object: testrun.Object{Name: "v3", ELF: v3.Object}, Program: v3.Program, Seeds: seeds,
		Candidates: uint64(max(b.N, 100)), Seed: 1}
	b.ResetTimer()
	r, err := Search(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(r.Rate(), "candidates/s")
}
