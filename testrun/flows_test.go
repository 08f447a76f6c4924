package testrun

import (
	"context"
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// flowsCases are frames whose flows the restorer makes: IPv4 TCP and
// UDP, IPv6, a UDP checksum of zero (none, which stays none), a VLAN tag,
// and addresses and ports about to wrap.
func flowsCases(t *testing.T) []packets.Case {
	t.Helper()
	cases, err := packets.Select([]string{packets.TCPSyn, packets.UDPDNS, "ipv6-tcp-syn", "vlan-udp"})
	if err != nil {
		t.Fatal(err)
	}
	file, err := packets.ParseFile("p.yaml", []byte(`cases:
  - name: wrap-tcp
    ipv4: {src: 255.255.255.250, dst: 198.51.100.1}
    tcp: {src: 65530, dst: 80, flags: [ack]}
  - name: wrap-udp6
    ipv6: {src: "2001:db8::ffff:fff0", dst: "2001:db8::1"}
    udp: {src: 65000, dst: 53}
`))
	if err != nil {
		t.Fatal(err)
	}
	zero := cases[1] // the DNS query, its UDP checksum zeroed
	zero.Name, zero.Frame = "udp-zero", slices.Clone(zero.Frame)
	binary.BigEndian.PutUint16(zero.Frame[14+20+6:], 0)
	return append(append(cases, file...), zero)
}

// flowIndexes are the flows checked of a set of 2^24: the first, around
// the port's wraps, large ones, the last, and the first whose checksums
// are a ones' complement zero (0x0000 or 0xffff), where an incremental
// update could part from one made anew.
func flowIndexes(set *packets.FlowSet) []int {
	indexes := []int{0, 1, 255, 65535, 65536, 65537, 131072, 1_000_003, 9_999_999, packets.MaxFlows - 1}
	p := set.Patch()
	seen := map[[2]int]bool{}
	var f []byte
	for i := range 1 << 18 {
		f = set.Into(f, i)
		for k := 2; k < 4; k++ {
			if at := p.At[k]; at != 0 {
				v := int(binary.BigEndian.Uint16(f[at:]))
				if (v == 0 || v == 0xffff) && !seen[[2]int{k, v}] {
					seen[[2]int{k, v}] = true
					indexes = append(indexes, i)
				}
			}
		}
	}
	return indexes
}

// The restorer makes each flow of a flows=2^24 case from its index, in
// the kernel: its frame for flow i is packets.FlowSet's, byte for byte,
// past the port's and the address's wraps and at checksums of zero; after
// the last flow comes the first; and it keeps nothing per flow: its maps
// are a frame per case, whatever N.
func TestRestorerMakesFlows(t *testing.T) {
	kerneltest.RequireBPF(t)
	floor, err := object.Load(object.Object(Object{Name: "floor", ELF: bpf.Floor()}), "empty_xdp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(floor.Close)
	cases := flowsCases(t)
	sets := make([]*packets.FlowSet, len(cases))
	for i, c := range cases {
		if sets[i], err = packets.NewFlowSet(c, packets.MaxFlows); err != nil {
			t.Fatal(err)
		}
	}
	none := make([]bool, len(cases))
	r, err := newRestorer(&program{Loaded: floor}, cases, none, none, sets)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	frames := r.Maps()["frames"]
	if names := slices.Sorted(maps.Keys(r.Maps())); !slices.Equal(names, []string{".bss", ".rodata", "frames", "scratch", "target"}) || frames.MaxEntries() != uint32(len(cases)) ||
		frames.ValueSize() != frameHeader+maxRestoredFrame {
		t.Fatalf("the restorer's maps %v, frames %d of %d bytes: want a frame per case and nothing per flow", names, frames.MaxEntries(), frames.ValueSize())
	}
	for ci, c := range cases {
		if err := r.choose(ci); err != nil {
			t.Fatal(err)
		}
		for _, i := range flowIndexes(sets[ci]) {
			got := runFlow(t, r, ci, c.Frame, i, 1)
			if want := sets[ci].Frame(i); string(got) != string(want) {
				t.Errorf("%s flow %d: the restorer's frame differs from FlowSet's (%s)", c.Name, i, packets.Changes(want, got))
			}
		}
		// Three runs from the last but one: the last run is flow 0's.
		if got := runFlow(t, r, ci, c.Frame, packets.MaxFlows-2, 3); string(got) != string(sets[ci].Frame(0)) {
			t.Errorf("%s: after the last flow, not the first: %s", c.Name, packets.Changes(sets[ci].Frame(0), got))
		}
	}
}

// runFlow sets case ci's next flow to i, runs the restorer repeat times
// and returns the frame its last run left.
func runFlow(t *testing.T, r *restorer, ci int, frame []byte, i, repeat int) []byte {
	t.Helper()
	if err := r.setNextFlow(ci, uint32(i)); err != nil {
		t.Fatal(err)
	}
	ret, out, _, err := r.RunTimes(frame, nil, uint32(repeat))
	if err != nil || ret != 2 { // XDP_PASS
		t.Fatalf("flow %d: %v, return %d", i, err, ret)
	}
	return out
}

// Past the old limit of 2^16: 200,000 flows through the flow table's
// 4,096 entries, each run a miss into a full table that evicts, in both
// passes of the instrumented copy's replay, and the timed runs go through
// the restorer.
func TestManyFlowsMiss(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.UDPDNS})
	if err != nil {
		t.Fatal(err)
	}
	cases = packets.InStates(cases, []string{"flows=200000"})
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: cases,
		CPU: -1, Samples: MinSamples, Repeat: 1000, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Programs[0].Cases[0]
	switch r := c.FlowReplay; {
	case r == nil || c.Single || !c.Restored:
		t.Fatalf("replay %v, single %v, restored %v: want repeats through the restorer, replayed", r, c.Single, c.Restored)
	case r.Flows != 200000 || r.Misses != [2]int{200000, 200000} || r.MissRate(c.Calls) != 1:
		t.Errorf("%d flows, misses %v a pass, rate %g: want every run a miss", r.Flows, r.Misses, r.MissRate(c.Calls))
	}
}
