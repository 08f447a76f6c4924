package testrun

import (
	"context"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// checked loads the programs of cfg and runs its checking phase alone, as
// Run does before it measures: the instruction counts come from here.
func checked(t *testing.T, cfg Config) Result {
	t.Helper()
	if cfg.Samples == 0 {
		cfg.Samples = MinSamples
	}
	cfg.CPU = -1
	p, err := prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.releaseCPU() // the check is over when this returns: a next one may take the CPU
	progs, err := p.load(context.Background())
	t.Cleanup(func() {
		for _, l := range progs {
			l.Close()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.check(context.Background(), progs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// counts returns a program's instruction count by case name, failing the
// test for a case not counted.
func counts(t *testing.T, pr ProgramResult) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, c := range pr.Cases {
		if c.Instructions == 0 {
			t.Fatalf("%s, case %s: not counted: %s", pr.Info.Name, c.Case.Name, c.NoCount)
		}
		out[c.Case.Name] = c.Instructions
	}
	return out
}

// The bundled builds' counts, derived by hand from fizzbuzz.c and
// `llvm-objdump -d` of the committed objects (bpf/fizzbuzzv*_bpfel.o).
// Ranges are the listing's slot numbers, both ends included; the one
// 64-bit load of each build ("r1 = 0 ll", the queue's address) takes two
// slots and counts as one instruction. The addresses, in host byte order:
// .4 is divisible by 3, .6 by 5, .16 by 15; .233, .9 and .255 by neither.
func TestInstructionsOfBundledBuilds(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const (
		// Every build starts alike: 0-15 check the Ethernet header's
		// bounds and EtherType and the IPv4 header's bounds; the last
		// instructions set R0 and exit (2).
		parse   = 16
		ret     = 2
		nonIPv4 = 12 + ret // 0-11: leaves at the EtherType test
		short   = 16 + ret // 0-15: leaves at the IPv4 bounds test
	)
	// v1: 16-25 store the address, load the queue (two slots) and push: 9.
	v1 := parse + 9 + ret
	// v2: 16-23 load the address, compute address % 15 and test it: 8.
	// FizzBuzz 24-29 (6); else 30-35 test % 3 (6): Fizz 36-41 (6); else
	// 42-47 test % 5 (6): Buzz 48-51 (4), the push 52-55 (3 of 4 slots).
	const v2head, push2 = parse + 8, 3
	v2 := map[string]int{
		packets.FizzBuzz: v2head + 6 + push2 + ret,
		packets.Fizz:     v2head + 6 + 6 + push2 + ret,
		packets.Buzz:     v2head + 6 + 6 + 4 + push2 + ret,
		"neither":        v2head + 6 + 6 + ret, // none, and .233 and .255
	}
	// v3: 16-22 load the address, take n = octet and test 1 < n (7);
	// 23-26 set the loop up (4); each of the loop's iterations 27-38 (12),
	// as many as the Fibonacci numbers it walks until b >= n: 4 for 4, 5
	// for 6, 7 for 16, 12 for 233, 6 for 9, 13 for 255 (b: 1 2 3 5 8 13 21
	// 34 55 89 144 233 377); then 39-41 test b == n (3). Fibonacci: 42-43
	// (2), 59-62 store (4), 63-66 push (3). Else 44-49 test % 15 (6):
	// FizzBuzz 50-51 (2), 59-62, 63-66; else 52-57 test % 3 (6): Fizz 58
	// (1), 59-62, 63-66; else 69-74 test % 5 (6): Buzz 75-79 (5), 63-66;
	// neither: straight to 67-68.
	const v3head, loop, v3test = parse + 7 + 4, 12, 3
	v3 := func(iterations int) int { return v3head + iterations*loop + v3test }
	// v4: 16-20 load the address, take the octet and test > 88 (5). Up to
	// 88: 21 tests > 55 (1), 22-27 test the bit mask of the Fibonacci
	// numbers below 56 (5, with a 64-bit load); above 88: 36-38 compare
	// with 89, 233, 144 (3, or 2 when 233 matches). Fibonacci: 39 (1),
	// 40-43 store (4), 44-47 push (3). Else 28-33 test % 15 (6): FizzBuzz
	// 34-35 (2), 40-43, 44-47; else 50-55 test % 3 (6): Fizz 56-57 (2),
	// 40-43, 44-47; else 58-63 test % 5 (6): Buzz 64-68 (5), 44-47;
	// neither: 48-49.
	const v4head, small = parse + 5, 1 + 5
	want := map[string]map[string]int{
		"v1": {packets.Fizz: v1, packets.Buzz: v1, packets.FizzBuzz: v1, packets.Fibonacci: v1, packets.None: v1, packets.High: v1},
		"v2": {packets.Fizz: v2[packets.Fizz], packets.Buzz: v2[packets.Buzz], packets.FizzBuzz: v2[packets.FizzBuzz],
			packets.Fibonacci: v2["neither"], packets.None: v2["neither"], packets.High: v2["neither"]},
		"v3": {
			packets.Fizz:      v3(4) + 6 + 6 + 1 + 4 + 3 + ret,
			packets.Buzz:      v3(5) + 6 + 6 + 6 + 5 + 3 + ret,
			packets.FizzBuzz:  v3(7) + 6 + 2 + 4 + 3 + ret,
			packets.Fibonacci: v3(12) + 2 + 4 + 3 + ret,
			packets.None:      v3(6) + 6 + 6 + 6 + ret,
			packets.High:      v3(13) + 6 + 6 + 6 + ret,
		},
		"v4": {
			packets.Fizz:      v4head + small + 6 + 6 + 2 + 4 + 3 + ret,
			packets.Buzz:      v4head + small + 6 + 6 + 6 + 5 + 3 + ret,
			packets.FizzBuzz:  v4head + small + 6 + 2 + 4 + 3 + ret,
			packets.Fibonacci: v4head + 2 + 1 + 4 + 3 + ret,
			packets.None:      v4head + small + 6 + 6 + 6 + ret,
			packets.High:      v4head + 3 + 6 + 6 + 6 + ret,
		},
	}
	for _, b := range bpf.Builds() {
		res := checked(t, Config{Programs: []Program{{Object: bundled(t, b.Name)}}, Cases: allCases(t)})
		got := counts(t, res.Programs[0])
		want[b.Name][packets.NonIPv4], want[b.Name][packets.Short] = nonIPv4, short
		for name, n := range want[b.Name] {
			if got[name] != uint64(n) {
				t.Errorf("%s, case %s: counted %d instructions, the listing says %d", b.Name, name, got[name], n)
			}
		}
		t.Logf("%s: %v", b.Name, got)
	}
}

// The ladder's programs are straight-line code: ladder_N is ladder_0 and N
// steps of two instructions (a multiply and an add), fine_N is ladder_64
// and N fine steps of one (a shift).
func TestInstructionsOfLadder(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := Object{Name: "ladder", ELF: bpf.Ladder()}
	count := func(program string) uint64 {
		t.Helper()
		res := checked(t, Config{Programs: []Program{{Object: obj, Program: program}}, Cases: packets.Default()[:1]})
		return counts(t, res.Programs[0])[packets.Default()[0].Name]
	}
	const perStep, perFineStep = 2, 1
	base := count(bpf.LadderProgram(0))
	for _, n := range bpf.LadderSteps {
		if got := count(bpf.LadderProgram(n)); got != base+uint64(n*perStep) {
			t.Errorf("%s: %d instructions, want %d + %d × %d", bpf.LadderProgram(n), got, base, n, perStep)
		}
	}
	fineBase := count(bpf.LadderProgram(bpf.FineBase))
	for _, r := range bpf.Rungs() {
		var n int
		for _, s := range bpf.FineSteps {
			if bpf.FineProgram(s) == r.Program {
				n = s
			}
		}
		if got := count(r.Program); got != fineBase+uint64(n*perFineStep) {
			t.Errorf("%s (%s): %d instructions, want %d + %d", r.Name, r.Program, got, fineBase, n)
		}
	}
}

// bpf-to-bpf calls, a global function, a callback run by a helper, a
// legacy packet load, and every measured program type, counted as the
// listing of testdata/calls.o says: each function is straight-line code.
func TestInstructionsOfCalls(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := kerneltest.ReadTestObject[Object](t, "calls.o")
	// From llvm-objdump -d testdata/calls.o: twice_global 3, mix 4,
	// count_down 8; xdp_calls 23 (24 slots, one 64-bit load), tc_calls 8
	// (9 slots, the global's address), socket_calls 4, socket_ldabs 4.
	const twiceGlobal, mix, countDown = 3, 4, 8
	frame := packets.Default()[0]
	frame.Expect = "" // XDP's actions; these programs are of several types
	// A frame the legacy load of byte 40 cannot reach: it ends the
	// program after 2 instructions (r6 = r1, the load).
	tiny := packets.Case{Name: "tiny", Frame: append(append([]byte{}, frame.Frame[:12]...), 0x88, 0xb5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)}
	for _, tt := range []struct {
		program string
		cases   []packets.Case
		want    []int
	}{
		{"xdp_calls", []packets.Case{frame}, []int{23 + 2*mix + twiceGlobal + 3*countDown}},
		{"tc_calls", []packets.Case{frame}, []int{8 + 2*mix}},
		{"socket_calls", []packets.Case{frame}, []int{4 + mix}},
		{"socket_ldabs", []packets.Case{frame, tiny}, []int{4, 2}},
	} {
		res := checked(t, Config{Programs: []Program{{Object: obj, Program: tt.program}}, Cases: tt.cases})
		for i, c := range res.Programs[0].Cases {
			if c.Instructions != uint64(tt.want[i]) {
				t.Errorf("%s, case %s: %d instructions (%s), want %d", tt.program, c.Case.Name, c.Instructions, c.NoCount, tt.want[i])
			}
		}
	}
}

// A count is a property of the program and the packet: the same in every
// run, on every CPU, whatever the repeat, and in every placement.
func TestInstructionsStable(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases := allCases(t)
	var first map[string]uint64
	for _, run := range []struct {
		cpu        int
		repeat     uint32
		placements int
	}{{0, 1, 1}, {1, 1000, 2}, {-1, 10, 1}} {
		res, err := Run(context.Background(), Config{
			Programs: []Program{{Object: bundled(t, "v3")}}, Cases: cases,
			CPU: run.cpu, Samples: MinSamples, Repeat: run.repeat, Placements: run.placements,
			Sampling: SamplingFlat,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range append([]ProgramResult{res.Programs[0]}, res.Programs[0].Placements...) {
			got := counts(t, pr)
			if first == nil {
				first = got
			}
			for name, n := range got {
				if n != first[name] {
					t.Errorf("CPU %d, repeat %d: case %s counted %d, first %d", run.cpu, run.repeat, name, n, first[name])
				}
			}
		}
	}
}

// A program whose instrumented copy the verifier rejects is measured by
// time alone, with the reason in every case.
func TestUncountedProgramIsTimed(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	defer func(orig func(*ebpf.CollectionSpec, string, map[string]*ebpf.Map) (*insncount.Program, error)) {
		loadCounted = orig
	}(loadCounted)
	loadCounted = func(spec *ebpf.CollectionSpec, program string, _ map[string]*ebpf.Map) (*insncount.Program, error) {
		// A copy that reads R5 before writing it: the verifier's refusal
		// of a real instrumented copy.
		broken := spec.Copy()
		insns := broken.Programs[program].Instructions
		first := asm.Mov.Reg(asm.R0, asm.R5).WithMetadata(insns[0].Metadata)
		insns[0] = btf.WithFuncMetadata(insns[0].WithSymbol(""), nil)
		broken.Programs[program].Instructions = append(asm.Instructions{first}, insns...)
		return insncount.Load(broken, program)
	}
	res, err := Run(context.Background(), Config{
		Programs: []Program{{Object: bundled(t, "v4")}}, Cases: packets.Default()[:2],
		CPU: -1, Samples: MinSamples, Repeat: 100, Sampling: SamplingFlat,
	})
	if err != nil {
		t.Fatalf("a program that cannot be counted failed the run: %v", err)
	}
	for _, c := range res.Programs[0].Cases {
		t.Logf("%s: %s", c.Case.Name, c.NoCount)
		if c.Instructions != 0 || !strings.Contains(c.NoCount, "not counted") || strings.Contains(c.NoCount, "\n") {
			t.Errorf("case %s: %d instructions, reason %q: want none and a one-line reason", c.Case.Name, c.Instructions, c.NoCount)
		}
		if len(c.Samples) != MinSamples {
			t.Errorf("case %s: %d samples", c.Case.Name, len(c.Samples))
		}
	}
}

// A later group given the first one's counts (Config.Counts) takes them:
// it instruments no copy, and its loads carry the same counts.
func TestCountsCarriedToLaterRuns(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cfg := Config{
		Programs: []Program{{Object: bundled(t, "v3")}, {Object: bundled(t, "v4")}}, Cases: allCases(t),
		CPU: -1, Samples: MinSamples, Repeat: 100, Sampling: SamplingFlat, Placements: 2,
	}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Counts == nil {
		t.Fatal("a run returned no counts for the next")
	}
	defer func(orig func(*ebpf.CollectionSpec, string, map[string]*ebpf.Map) (*insncount.Program, error)) {
		loadCounted = orig
	}(loadCounted)
	instrumented := 0
	loadCounted = func(spec *ebpf.CollectionSpec, program string, _ map[string]*ebpf.Map) (*insncount.Program, error) {
		instrumented++
		return insncount.Load(spec, program)
	}
	cfg.Counts = first.Counts
	later, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if instrumented != 0 {
		t.Errorf("a run given the counts instrumented %d copies", instrumented)
	}
	for i := range cfg.Programs {
		want := counts(t, first.Programs[i])
		for _, pr := range append([]ProgramResult{later.Programs[i]}, later.Programs[i].Placements...) {
			for name, n := range counts(t, pr) {
				if n != want[name] {
					t.Errorf("%s, case %s: %d instructions carried, %d counted", pr.Info.Name, name, n, want[name])
				}
			}
		}
	}
	if counts(t, first.Programs[0])["fibonacci"] == counts(t, first.Programs[1])["fibonacci"] {
		t.Error("v3 and v4 carried one count: the programs' counts were mixed")
	}
	// Without them, the copy is instrumented again.
	cfg.Counts = nil
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if instrumented != len(cfg.Programs) {
		t.Errorf("a run without counts instrumented %d copies, want %d", instrumented, len(cfg.Programs))
	}
}
