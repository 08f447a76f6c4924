package object

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// bigArraySpec is an object of one XDP program that reads an array of
// entries 4-byte values: built here, so that no object of 2^28 entries
// need be committed.
func bigArraySpec(entries uint32) *ebpf.CollectionSpec {
	return &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"big": {Name: "big", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: entries},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"xdp_big": {Name: "xdp_big", Type: ebpf.XDP, SectionName: "xdp", License: "GPL", Instructions: asm.Instructions{
				asm.StoreImm(asm.RFP, -4, 0, asm.Word),
				asm.LoadMapPtr(asm.R1, 0).WithReference("big"),
				asm.Mov.Reg(asm.R2, asm.RFP),
				asm.Add.Imm(asm.R2, -4),
				asm.FnMapLookupElem.Call(),
				asm.Mov.Imm(asm.R0, 2), // XDP_PASS
				asm.Return(),
			}},
		},
	}
}

// An object whose one map is past the budget is refused as bad input, in
// one line that names the map, its size, the budget and the flag, before
// anything is created in the kernel (issue 59, item 1): 2^28 entries of
// 4 bytes take 2 GiB (the kernel rounds an array's values to 8 bytes).
func TestKernelMemoryRefusesBigArray(t *testing.T) {
	s, err := NewSettings(LoadOptions{KernelMemory: "1G"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var before []ebpf.MapID
	root := os.Geteuid() == 0 // only root may list the kernel's maps
	if root {
		before = kerneltest.Maps(t, "big")
	}
	_, err = Choose(Object{Name: "big.o", Spec: bigArraySpec(1 << 28)}, "", s)
	want := "past the kernel memory budget: map big (Array, 268435456 entries, 4-byte keys, 4-byte values) takes 2.0 GiB of kernel memory; " +
		"a load of xdp_big: 2.0 GiB in all, past the budget of 1.0 GiB: raise it with --kernel-memory SIZE"
	if !errors.Is(err, ErrKernelMemory) || !errors.Is(err, badinput.Err) || err.Error() != want {
		t.Fatalf("got %v\nwant %s (bad input)", err, want)
	}
	if root {
		if after := kerneltest.Maps(t, "big"); len(after) != len(before) {
			t.Errorf("maps named big: %v before, %v after a refusal", before, after)
		}
	}
	// The same object fits a larger budget: the estimate, not the
	// object, refused it.
	s, _ = NewSettings(LoadOptions{KernelMemory: "3G"}, nil)
	if err := s.checkOneLoad(Chosen{Object: Object{Name: "big.o"}, Info: ProgramInfo{Name: "xdp_big"}, Spec: bigArraySpec(1 << 28)}); err != nil {
		t.Errorf("3 GiB: %v", err)
	}
	if _, err := NewSettings(LoadOptions{KernelMemory: "lots"}, nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--kernel-memory") {
		t.Errorf("--kernel-memory lots: %v, want a bad configuration naming the flag", err)
	}
}

// Loads of one program share the maps no program can write, fill them
// once, and keep their own of the rest; the shared map lives while any
// load does.
func TestLoadsShareReadOnlyMaps(t *testing.T) {
	kerneltest.RequireBPF(t)
	c, err := Choose(kerneltest.ReadTestObject[Object](t, "largearrays.o"), "count", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	f := c.Footprint()
	if f.Shared() == 0 || f.PerLoad() == 0 {
		t.Fatalf("footprint %+v: want the ring shared and the counters each load's", f)
	}
	a, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id := func(l *Loaded, name string) ebpf.MapID {
		info, err := l.Maps()[name].Info()
		if err != nil {
			t.Fatal(err)
		}
		mid, _ := info.ID()
		return mid
	}
	ring := id(a, "ring")
	if id(b, "ring") != ring {
		t.Errorf("ring: map %d and %d, want one map for both loads", ring, id(b, "ring"))
	}
	if id(a, "counters") == id(b, "counters") {
		t.Error("counters: one map for both loads, which a program writes")
	}
	mi, err := ParseMapInit("init.yaml", []byte("maps:\n  ring:\n    - {key: 7, value: 1}\n  counters:\n    - {key: 7, value: 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	updates, _, err := mi.Resolve(c.Spec, c.Programs, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Apply(updates); err != nil {
		t.Fatal(err)
	}
	// Changed behind the file's back: a second fill would put 1 back.
	if err := a.Maps()["ring"].Put(uint32(7), uint32(9)); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(updates); err != nil {
		t.Fatal(err)
	}
	var got uint32
	var counted uint64
	if err := b.Maps()["ring"].Lookup(uint32(7), &got); err != nil || got != 9 {
		t.Errorf("ring[7] after the second load's fill: %d, %v; want 9, the map filled once", got, err)
	}
	if err := b.Maps()["counters"].Lookup(uint32(7), &counted); err != nil || counted != 5 {
		t.Errorf("counters[7] of the second load: %d, %v; want 5, its own map filled", counted, err)
	}
	if shared := b.WithoutShared(updates); len(shared) != 1 || shared[0].Map() != "counters" {
		t.Errorf("updates without the shared maps: %v, want the counters' alone", shared)
	}
	a.Close()
	if err := b.Maps()["ring"].Lookup(uint32(7), &got); err != nil || got != 9 {
		t.Errorf("ring[7] once the first load is closed: %d, %v", got, err)
	}
	b.Close()
	deadline := time.Now().Add(2 * time.Second)
	for slices.Contains(kerneltest.Maps(t, "ring"), ring) {
		if time.Now().After(deadline) {
			t.Fatalf("map %d (ring) still in the kernel after every load closed", ring)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A load waits until the large maps of the loads closed before it are
// freed, which the kernel does only after an RCU grace period: else a
// comparison's next loads were created beside the last ones' maps, past
// the budget the run was fitted to.
func TestLoadAwaitsClosedMaps(t *testing.T) {
	kerneltest.RequireBPF(t)
	c, err := Choose(Object{Name: "big.o", Spec: bigArraySpec(1 << 22)}, "", Settings{}) // 32 MiB
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	info, err := first.Maps()["big"].Info()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := info.ID()
	first.Close()
	second, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if next, err := ebpf.MapGetNextID(id - 1); err == nil && next == id {
		t.Errorf("map %d of the closed load still there when the next was loaded", id)
	}
}
