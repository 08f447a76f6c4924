package worst

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/xdpmicro/xdpmicro/packets"
)

// maxHeaderGrowth bounds what mutations add to a frame beyond its
// payload and size: two VLAN tags (8), an encapsulation (outer IPv6,
// UDP, VXLAN and an inner Ethernet header: 70), IPv6 extension headers
// (maxExtensions of at most 16 bytes: 512) or IPv4 options (40), TCP
// options (40), and the transport headers a mutation brings in.
const maxHeaderGrowth = 8 + 70 + 16*maxExtensions + 40 + 60 + 40

// fuzzDictionary is the dictionary a map's keys would give: data cut
// into keys, each as long as its first byte says.
func fuzzDictionary(data []byte) *dictionary {
	d := newDictionary()
	for len(data) > 0 {
		n := min(int(data[0]), len(data)-1)
		d.addKey(data[1 : 1+n])
		data = data[1+n:]
	}
	return d
}

// FuzzMutate: worst's search from any seed frame (a --packets file's,
// a capture's), with any dictionary of map keys, through generations of
// mutation: a frame the model reads builds; a child never
// changes its parent's frame; a packet carries at most maxPatches
// patches, and its frame stays within a frame's size, headers added,
// or the seed's; never a panic. The seeds are the built-in cases.
func FuzzMutate(f *testing.F) {
	cases, err := packets.Select(packets.Names())
	if err != nil {
		f.Fatal(err)
	}
	for i, c := range cases {
		f.Add(c.Frame, uint64(i), []byte("\x02\x00\x50\x04\xc0\x00\x02\x01\x10\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01"))
	}
	f.Add([]byte{}, uint64(0), []byte{})
	f.Add(make([]byte, 14), uint64(1), []byte{0xff})
	f.Fuzz(func(t *testing.T, frame []byte, seed uint64, dict []byte) {
		if len(frame) > 1<<16 {
			return // no test run takes a larger frame
		}
		m := &mutator{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
		if d := fuzzDictionary(dict); !d.empty() {
			m.dicts = append(m.dicts, d)
		}
		b := newBuilder()
		limit := max(len(frame), maxFrame) + maxHeaderGrowth
		pkts := []*packet{{raw: frame}}
		if s, ok := shapeOf(frame); ok {
			if _, err := b.build(s.clone()); err != nil {
				t.Fatalf("a frame read as a shape does not build: %v", err)
			}
			pkts = append(pkts, &packet{shape: s})
		}
		for _, p := range pkts {
			for range 24 {
				before, err := p.build(b)
				if err != nil {
					break // the search drops a shape gopacket cannot serialize
				}
				if len(before) > limit || len(p.patches) > maxPatches {
					t.Fatalf("a frame of %d bytes, %d patches, from a seed of %d", len(before), len(p.patches), len(frame))
				}
				c := m.child(p, len(before))
				if after, err := p.build(b); err != nil || !bytes.Equal(after, before) {
					t.Fatalf("mutating a child changed its parent's frame:\n%x\n%x", before, after)
				}
				p = c
			}
		}
	})
}
