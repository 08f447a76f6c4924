package livenet

import (
	"errors"
	"math"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// repeat is the frames each live run sends.
const repeat = 1000

// xdp loads an XDP program of insns.
func xdp(t *testing.T, insns ...asm.Instruction) *ebpf.Program {
	t.Helper()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "xm_test", Type: ebpf.XDP, Instructions: insns, License: "Dual BSD/GPL",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Close() })
	return prog
}

// returning is a program that returns action.
func returning(t *testing.T, action int32) *ebpf.Program {
	return xdp(t, asm.Mov.Imm(asm.R0, action), asm.Return())
}

// redirecting is a program that redirects to key of m, aborting where the
// key has no entry.
func redirecting(t *testing.T, m *ebpf.Map, key int32) *ebpf.Program {
	return xdp(t,
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Imm(asm.R2, key),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRedirectMap.Call(),
		asm.Return(),
	)
}

func newMap(t *testing.T, typ ebpf.MapType, valueSize, entries uint32) *ebpf.Map {
	t.Helper()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: typ, KeySize: 4, ValueSize: valueSize, MaxEntries: entries})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// live runs prog on n live frames arriving on xm0, from inside the pair's
// namespace, and returns how the counts grew.
func live(t *testing.T, p *Pair, prog *ebpf.Program, n uint32) Counts {
	t.Helper()
	before, err := p.Counts()
	if err != nil {
		t.Fatal(err)
	}
	data := frame()
	inside(t, p, func() {
		_, err := prog.Run(&ebpf.RunOptions{
			Data:      data,
			Repeat:    n,
			Flags:     unix.BPF_F_TEST_XDP_LIVE_FRAMES,
			BatchSize: 64,
			Context:   xdpMD{DataEnd: uint32(len(data)), IngressIfindex: uint32(p.Ingress())},
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	grew, err := p.Settle(before, math.MaxUint64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d live frames: %+v", n, grew)
	return grew
}

func TestLive(t *testing.T) {
	needRoot(t)
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	p := open(t)
	devmap := newMap(t, ebpf.DevMap, 8, 4)
	devmapHash := newMap(t, ebpf.DevMapHash, 4, 4)
	for _, m := range []*ebpf.Map{devmap, devmapHash} {
		if err := p.FillDevmap(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		prog *ebpf.Program
		want Counts
	}{
		{"XDP_TX", returning(t, 3), Counts{Transmitted: repeat}},
		{"XDP_PASS", returning(t, 2), Counts{Passed: repeat}},
		{"XDP_DROP", returning(t, 1), Counts{}},
		{"devmap", redirecting(t, devmap, 3), Counts{Transmitted: repeat}},
		{"devmap_hash", redirecting(t, devmapHash, 3), Counts{Transmitted: repeat}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := live(t, p, c.prog, repeat); got != c.want {
				t.Errorf("counts grew by %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestLiveCpumap(t *testing.T) {
	needRoot(t)
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	p := open(t)
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	cpumap := newMap(t, ebpf.CPUMap, 8, uint32(cpus))
	if err := FillCpumap(cpumap); err != nil {
		t.Fatal(err)
	}
	// To the last CPU's queue. A run's frames come faster than its kthread
	// takes them off, so only those that fit its queue are sure to arrive:
	// as many frames as that exactly, more at least a queue's worth.
	prog := redirecting(t, cpumap, int32(cpus-1))
	for _, n := range []uint32{cpumapQueue * 2 / 3, repeat} {
		got := live(t, p, prog, n)
		low := min(uint64(n), cpumapQueue)
		if got.Transmitted != 0 || got.Passed < low || got.Passed > uint64(n) {
			t.Errorf("%d frames: counts grew by %+v, want Passed in %d..%d", n, got, low, n)
		}
	}
}

// The kernel recycles a live call's pages with what the program wrote in
// them: flip_proto (bpf/testdata/rewrite.c) turns an IPv4 frame into an
// IPv6 one and sends it with XDP_TX, and passes any other frame; on
// recycled pages it meets its own output and passes it to the stack.
// What xdpmicro's restorer is there for (testrun.checkLiveRestored).
func TestLivePagesKeepWrites(t *testing.T) {
	needRoot(t)
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	coll, err := ebpf.LoadCollection("../../bpf/testdata/rewrite.o")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coll.Close() })
	p := open(t)
	if got := live(t, p, coll.Programs["flip_proto"], 64); got != (Counts{Transmitted: 64}) {
		t.Errorf("one batch of fresh pages: counts grew by %+v, want all 64 sent", got)
	}
	if got := live(t, p, coll.Programs["flip_proto"], repeat); got.Passed == 0 || got.Transmitted+got.Passed != repeat {
		t.Errorf("%d frames over recycled pages: counts grew by %+v, want some passed, as IPv6", repeat, got)
	}
}

// A redirect into an xskmap delivers live frames to the pair's AF_XDP
// socket, call after call, as long as Drain gives its chunks back between
// them; a call of more than its rings hold drops the rest, and Drain says so.
func TestLiveXskmap(t *testing.T) {
	needRoot(t)
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	p := open(t)
	xskmap := newMap(t, ebpf.XSKMap, 4, 4)
	if err := p.FillXskmap(xskmap); err != nil {
		t.Fatal(err)
	}
	prog := redirecting(t, xskmap, 0)
	for range 3 {
		if got := live(t, p, prog, SocketFrames); got != (Counts{Received: SocketFrames}) {
			t.Fatalf("counts grew by %+v, want all %d received", got, SocketFrames)
		}
		if err := p.Drain(); err != nil {
			t.Fatal(err)
		}
	}
	if got := live(t, p, prog, SocketFrames+64); got.Received != SocketFrames {
		t.Errorf("%d frames into rings of %d: counts grew by %+v", SocketFrames+64, SocketFrames, got)
	}
	if err := p.Drain(); !errors.Is(err, ErrSocketDrops) {
		t.Errorf("after an overflow, Drain says %v, want ErrSocketDrops", err)
	}
}
