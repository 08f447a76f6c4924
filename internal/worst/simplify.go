package worst

import (
	"errors"
	"slices"

	"github.com/xdpmicro/xdpmicro/testrun"
)

// A packet the search found carries every change that led to it, most of
// them beside the point (a source port that no branch looks at). Before
// it is shown, each changed field is put back as its seed had it, one at
// a time, and each raw patch dropped, wherever the packet still takes
// the same path: what is left is what the path needs.

// revert puts one field of o back into d.
type revert func(d, o *shape)

// reverts are the fields put back, those of the link layer and the
// network first; addresses octet by octet, so that an address keeps only
// the octets its path needs.
var reverts = func() []revert {
	rs := []revert{
		func(d, o *shape) { d.net, d.etherType = o.net, o.etherType },
		func(d, o *shape) { d.l4, d.proto = o.l4, o.proto },
		func(d, o *shape) { d.dst = o.dst },
		func(d, o *shape) { d.src = o.src },
		func(d, o *shape) { d.vlans = slices.Clone(o.vlans) },
		func(d, o *shape) { d.encap = o.encap },
		func(d, o *shape) { d.ip4.tos, d.ip6.class = o.ip4.tos, o.ip6.class },
		func(d, o *shape) { d.ip4.id, d.ip6.flow = o.ip4.id, o.ip6.flow },
		func(d, o *shape) { d.ip4.flags, d.ip4.fragOff = o.ip4.flags, o.ip4.fragOff },
		func(d, o *shape) { d.ip4.ttl, d.ip6.hop = o.ip4.ttl, o.ip6.hop },
		func(d, o *shape) { d.ip4.options = cloneOptions(o.ip4.options) },
		func(d, o *shape) { d.tcp.sport, d.udp.sport = o.tcp.sport, o.udp.sport },
		func(d, o *shape) { d.tcp.dport, d.udp.dport = o.tcp.dport, o.udp.dport },
		func(d, o *shape) { d.tcp.seq, d.tcp.ack = o.tcp.seq, o.tcp.ack },
		func(d, o *shape) { d.tcp.flags = o.tcp.flags },
		func(d, o *shape) { d.tcp.window, d.tcp.urgent = o.tcp.window, o.tcp.urgent },
		func(d, o *shape) { d.tcp.options = cloneOptions(o.tcp.options) },
		func(d, o *shape) { d.icmp = o.icmp },
		func(d, o *shape) { d.arp = o.arp },
		func(d, o *shape) { d.payload = slices.Clone(o.payload) },
		func(d, o *shape) { d.size = o.size },
	}
	for i := range 4 {
		rs = append(rs, func(d, o *shape) { d.ip4.src[i] = o.ip4.src[i] }, func(d, o *shape) { d.ip4.dst[i] = o.ip4.dst[i] })
	}
	for i := range 16 {
		rs = append(rs, func(d, o *shape) { d.ip6.src[i] = o.ip6.src[i] }, func(d, o *shape) { d.ip6.dst[i] = o.ip6.dst[i] })
	}
	return rs
}()

// simplify puts back what e's path does not need, keeping its frame and
// path; e's counts do not change.
func (s *searcher) simplify(e *entry) error {
	p := e.pkt
	if seed := s.seedShapes[p.seed]; p.shape != nil && seed != nil {
		for _, r := range reverts {
			c := &packet{shape: p.shape.clone(), patches: p.patches, seed: p.seed}
			r(c.shape, seed)
			ok, err := s.samePath(c, e)
			if err != nil {
				return err
			}
			if ok {
				p = c
			}
		}
	}
	for i := len(p.patches) - 1; i >= 0; i-- {
		c := &packet{shape: p.shape, raw: p.raw, patches: slices.Delete(slices.Clone(p.patches), i, i+1), seed: p.seed}
		ok, err := s.samePath(c, e)
		if err != nil {
			return err
		}
		if ok {
			p = c
		}
	}
	frame, err := p.build(s.b)
	if err != nil {
		return err
	}
	e.pkt, e.frame, e.length = p, frame, len(frame)
	return nil
}

// samePath says whether p takes e's path, to the same action.
func (s *searcher) samePath(p *packet, e *entry) (bool, error) {
	frame, err := p.build(s.b)
	if err != nil {
		return false, nil
	}
	ret, counts, err := s.c.Run(frame, s.c.Contexts[p.seed])
	if errors.Is(err, testrun.ErrFrameRefused) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return ret == e.ret && pathHash(counts) == e.hash, nil
}
