package testrun

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// XDP actions, as the kernel numbers them.
const (
	xdpAbortedAction = 0
	xdpDropAction    = 1
	xdpPassAction    = 2
	xdpTXAction      = 3
)

// The reference tells a new flow from a known one: the miss path (hash
// rounds, ring walk, clock, insert) costs several times the hit path.
// Medians of 5 runs, as other work on the host lands in single batches.
func TestFlowtableReference(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, name := range []string{packets.TCPSyn, packets.UDPDNS} {
		cases, err := packets.Select([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		var misses, hits []float64
		for range 5 {
			miss, hit := kerneltest.FlowtableReference(t, cases[0].Frame)
			misses, hits = append(misses, miss), append(hits, hit)
		}
		slices.Sort(misses)
		slices.Sort(hits)
		miss, hit := misses[len(misses)/2], hits[len(hits)/2]
		t.Logf("%s: miss %.1f ns, hit %.1f ns (medians of %.1f and %.1f)", name, miss, hit, misses, hits)
		if !(hit > 0 && miss > 3*hit) {
			t.Errorf("%s: miss %.1f ns, hit %.1f ns; want miss > 3 × hit > 0", name, miss, hit)
		}
	}
}

// The first run of flowtable on a flow misses and inserts it; the second
// hits it; neither changes the frame. Frames it has no flow for pass or
// abort, and leave the table alone.
func TestFlowtableMissThenHit(t *testing.T) {
	kerneltest.RequireBPF(t)
	cases, err := packets.Select([]string{packets.TCPSyn, packets.UDPDNS, packets.NonIPv4, packets.Short})
	if err != nil {
		t.Fatal(err)
	}
	coll := kerneltest.LoadFlowtable(t, kerneltest.FlowtableSpec(t, kerneltest.FlowtableBatch))
	prog, stats := coll.Programs["flowtable"], coll.Variables["stats"]
	run := func(c packets.Case) (uint32, kerneltest.FlowtableStats) {
		t.Helper()
		out := make([]byte, len(c.Frame)+256)
		opts := &ebpf.RunOptions{Data: c.Frame, DataOut: out, Repeat: 1}
		ret, err := prog.Run(opts)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !bytes.Equal(opts.DataOut, c.Frame) {
			t.Errorf("%s: the frame changed", c.Name)
		}
		var s kerneltest.FlowtableStats
		if err := stats.Get(&s); err != nil {
			t.Fatal(err)
		}
		return ret, s
	}

	var want kerneltest.FlowtableStats
	for _, c := range cases[:2] {
		for _, hit := range []bool{false, true} {
			if hit {
				want.Hits++
			} else {
				want.Misses++
			}
			ret, got := run(c)
			if ret != xdpTXAction || got != want {
				t.Errorf("%s, hit %v: returned %d with stats %+v, want XDP_TX (%d) with %+v", c.Name, hit, ret, got, xdpTXAction, want)
			}
		}
	}
	if n := countEntries(t, coll.Maps["flows"]); n != 2 {
		t.Errorf("flows holds %d entries after two flows, want 2", n)
	}

	for _, c := range []struct {
		packets.Case
		want uint32
	}{{cases[2], xdpPassAction}, {cases[3], xdpAbortedAction}} {
		if ret, got := run(c.Case); ret != c.want || got != want {
			t.Errorf("%s: returned %d with stats %+v, want %d with %+v", c.Name, ret, got, c.want, want)
		}
	}
}

// countEntries counts m's keys.
func countEntries(t *testing.T, m *ebpf.Map) int {
	t.Helper()
	var (
		key   [16]byte
		value [24]byte
		n     int
	)
	iter := m.Iterate()
	for iter.Next(&key, &value) {
		n++
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// With no healthy backend, a new flow is dropped, counted, and not added.
func TestFlowtableNoBackend(t *testing.T) {
	kerneltest.RequireBPF(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	spec := kerneltest.FlowtableSpec(t, kerneltest.FlowtableBatch)
	var backends [16]struct{ Addr, Healthy uint32 }
	if err := spec.Variables["backends"].Set(backends); err != nil {
		t.Fatal(err)
	}
	coll := kerneltest.LoadFlowtable(t, spec)
	ret, err := coll.Programs["flowtable"].Run(&ebpf.RunOptions{Data: cases[0].Frame, Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got kerneltest.FlowtableStats
	if err := coll.Variables["stats"].Get(&got); err != nil {
		t.Fatal(err)
	}
	want := kerneltest.FlowtableStats{Misses: 1, Drops: 1}
	if ret != xdpDropAction || got != want {
		t.Errorf("returned %d with stats %+v, want XDP_DROP (%d) with %+v", ret, got, xdpDropAction, want)
	}
	if n := countEntries(t, coll.Maps["flows"]); n != 0 {
		t.Errorf("flows holds %d entries after a dropped flow, want 0", n)
	}
}
