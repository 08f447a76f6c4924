package testrun

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// balancerObject has a load balancer's maps in katran's shapes (two
// consistent-hash rings of 65,537 slots, a hash of VIPs, an array of
// reals, a control array) and a program that returns ring_b's last slot:
// the action a map-init file put there.
func balancerObject() Object {
	u32 := &btf.Int{Name: "__u32", Size: 4}
	vip := &btf.Struct{Name: "vip_definition", Size: 8, Members: []btf.Member{
		{Name: "vip", Type: &btf.Typedef{Name: "__be32", Type: u32}},
		{Name: "port", Type: &btf.Typedef{Name: "__be16", Type: &btf.Int{Name: "__u16", Size: 2}}, Offset: 32},
		{Name: "proto", Type: &btf.Int{Name: "__u8", Size: 1}, Offset: 48},
	}}
	meta := &btf.Struct{Name: "vip_meta", Size: 8, Members: []btf.Member{{Name: "flags", Type: u32}, {Name: "vip_num", Type: u32, Offset: 32}}}
	real := &btf.Struct{Name: "real_definition", Size: 4, Members: []btf.Member{{Name: "dst", Type: &btf.Typedef{Name: "__be32", Type: u32}}}}
	const slots = 65537
	return Object{Name: "balancer.o", Spec: &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"ring_a":    {Name: "ring_a", Type: ebpf.Array, KeySize: 4, Key: u32, ValueSize: 4, Value: u32, MaxEntries: slots},
			"ring_b":    {Name: "ring_b", Type: ebpf.Array, KeySize: 4, Key: u32, ValueSize: 4, Value: u32, MaxEntries: slots},
			"vip_map":   {Name: "vip_map", Type: ebpf.Hash, KeySize: 8, Key: vip, ValueSize: 8, Value: meta, MaxEntries: 512},
			"reals":     {Name: "reals", Type: ebpf.Array, KeySize: 4, Key: u32, ValueSize: 4, Value: real, MaxEntries: 4096},
			"ctl_array": {Name: "ctl_array", Type: ebpf.Array, KeySize: 4, Key: u32, ValueSize: 8, MaxEntries: 16},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"balancer": {Name: "balancer", Type: ebpf.XDP, SectionName: "xdp", License: "GPL", Instructions: asm.Instructions{
				asm.StoreImm(asm.RFP, -4, slots-1, asm.Word),
				asm.LoadMapPtr(asm.R1, 0).WithReference("ring_b"),
				asm.Mov.Reg(asm.R2, asm.RFP),
				asm.Add.Imm(asm.R2, -4),
				asm.FnMapLookupElem.Call(),
				asm.JEq.Imm(asm.R0, 0, "pass"),
				asm.LoadMem(asm.R0, asm.R0, 0, asm.Word),
				asm.Return(),
				asm.Mov.Imm(asm.R0, 2).WithSymbol("pass"), // XDP_PASS
				asm.Return(),
			}},
		},
	}}
}

// A map-init of a load balancer's 131,080 entries, both rings a line an
// entry as a script writes them, loads and runs (issue 59, item 10: it
// was refused for its YAML nodes).
func TestBalancerMapInitRuns(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	var doc strings.Builder
	doc.WriteString("maps:\n  ctl_array:\n    - {key: 0, value_hex: \"0200000000010000\"}\n  vip_map:\n")
	for i, addr := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		fmt.Fprintf(&doc, "    - {key: {vip: %s, port: htons(80), proto: 6}, value: {flags: 0, vip_num: %d}}\n", addr, i)
	}
	doc.WriteString("  reals:\n    - {key: 1, value: {dst: 10.0.0.2}}\n    - {key: 2, value: {dst: 10.0.0.3}}\n")
	entries := 1 + 3 + 2
	for _, ring := range []string{"ring_a", "ring_b"} {
		fmt.Fprintf(&doc, "  %s:\n", ring)
		for slot := range 65537 {
			action := 1 + slot%2 // XDP_DROP, XDP_PASS
			if ring == "ring_b" && slot == 65536 {
				action = 3 // XDP_TX: the slot the program reads
			}
			fmt.Fprintf(&doc, "    - {key: %d, value: %d}\n", slot, action)
		}
		entries += 65537
	}
	if entries != 131080 {
		t.Fatalf("%d entries", entries)
	}
	mi, err := ParseMapInit("balancer.yaml", []byte(doc.String()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{
		Programs: []Program{{Object: balancerObject()}}, Cases: packets.Default()[:1], MapInit: mi,
		CPU: AnyCPU, Samples: MinSamples, Repeat: 100, Sampling: SamplingFlat, Placements: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range append([]ProgramResult{res.Programs[0]}, res.Programs[0].Placements...) {
		if c := pr.Cases[0]; c.Action != "XDP_TX" || len(c.Samples) != MinSamples {
			t.Errorf("a load: %s with %d samples; want XDP_TX, ring_b's last slot as the file filled it", c.Action, len(c.Samples))
		}
	}
}
