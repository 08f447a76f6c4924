package worst

import "slices"

// packet is a candidate: a shape with raw patches over its frame, or a
// raw frame (a seed the shapes cannot say) with patches.
type packet struct {
	shape   *shape // nil: raw
	raw     []byte
	patches []patch
	seed    int // the index of the seed it descends from: its context
}

// maxPatches bounds the raw changes a packet carries; older ones go first.
const maxPatches = 16

// build is the packet's frame, a new slice.
func (p *packet) build(b *builder) ([]byte, error) {
	var frame []byte
	if p.shape != nil {
		var err error
		if frame, err = b.build(p.shape); err != nil {
			return nil, err
		}
	} else {
		frame = slices.Clone(p.raw)
	}
	for _, pt := range p.patches {
		frame = pt.apply(frame)
	}
	return frame, nil
}

// child is a mutation of p, whose frame has length bytes: a few changes
// stacked (1, 2, 4 or 8), most of them to the shape's fields when it has
// one, now and then its raw patches dropped.
func (m *mutator) child(p *packet, length int) *packet {
	c := &packet{shape: p.shape, raw: p.raw, patches: slices.Clip(p.patches), seed: p.seed}
	if len(c.patches) > 0 && m.n(8) == 0 {
		c.patches = nil
	}
	cloned := false
	for range 1 << m.n(4) {
		if c.shape != nil && m.n(6) > 0 {
			if !cloned {
				c.shape, cloned = c.shape.clone(), true
			}
			m.structural(c.shape)
			continue
		}
		c.patches = append(c.patches, m.patch(length))
	}
	if len(c.patches) > maxPatches {
		c.patches = slices.Clone(c.patches[len(c.patches)-maxPatches:])
	}
	return c
}
