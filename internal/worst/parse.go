package worst

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// shapeOf reads a seed frame into a shape, so that the search can change
// its fields; false for a frame the model cannot say (cut short, a
// protocol it does not know, GUE, which only a port tells). Such a frame
// is still a seed, changed byte by byte.
func shapeOf(frame []byte) (*shape, bool) {
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	if pkt.ErrorLayer() != nil {
		return nil, false
	}
	ls := pkt.Layers()
	eth, ok := ls[0].(*layers.Ethernet)
	if !ok || len(eth.SrcMAC) != 6 || len(eth.DstMAC) != 6 {
		return nil, false
	}
	s := &shape{size: len(frame)}
	copy(s.src[:], eth.SrcMAC)
	copy(s.dst[:], eth.DstMAC)
	r := reader{s: s, layers: ls[1:]}
	r.tags()
	if !r.network(eth) {
		return nil, false
	}
	return s, true
}

// reader walks a decoded frame's layers into a shape.
type reader struct {
	s      *shape
	layers []gopacket.Layer
}

func (r *reader) next() gopacket.Layer {
	if len(r.layers) == 0 {
		return nil
	}
	l := r.layers[0]
	r.layers = r.layers[1:]
	return l
}

func (r *reader) peek() gopacket.Layer {
	if len(r.layers) == 0 {
		return nil
	}
	return r.layers[0]
}

func (r *reader) tags() {
	for {
		tag, ok := r.peek().(*layers.Dot1Q)
		if !ok || len(r.s.vlans) == 2 {
			return
		}
		r.s.vlans = append(r.s.vlans, tag.VLANIdentifier|uint16(tag.Priority)<<13)
		r.next()
	}
}

// network reads what the Ethernet header carries.
func (r *reader) network(eth *layers.Ethernet) bool {
	s := r.s
	switch l := r.next().(type) {
	case nil:
		s.net, s.etherType = netOther, uint16(eth.EthernetType)
		if len(s.vlans) > 0 {
			return false // the tags' EtherType is the one that counts
		}
		s.payload = append([]byte(nil), eth.Payload...)
		return true
	case *layers.ARP:
		if len(l.SourceHwAddress) != 6 || len(l.SourceProtAddress) != 4 || len(l.DstHwAddress) != 6 || len(l.DstProtAddress) != 4 {
			return false
		}
		s.net, s.arp.op = netARP, l.Operation
		copy(s.arp.senderMAC[:], l.SourceHwAddress)
		copy(s.arp.senderIP[:], l.SourceProtAddress)
		copy(s.arp.targetMAC[:], l.DstHwAddress)
		copy(s.arp.targetIP[:], l.DstProtAddress)
		return r.next() == nil || isPadding(r.peek())
	case *layers.IPv4, *layers.IPv6:
		return r.ip(l)
	}
	return false
}

// ip reads an IP header and what it carries: another IP header (IPIP),
// VXLAN, or a transport.
func (r *reader) ip(l gopacket.Layer) bool {
	r.readIP(l)
	switch inner := r.peek().(type) {
	case *layers.IPv4, *layers.IPv6:
		r.next()
		r.outer(encapIPIP)
		r.readIP(inner)
	case *layers.UDP:
		if len(r.layers) < 4 {
			break
		}
		vx, ok := r.layers[1].(*layers.VXLAN)
		if !ok {
			break
		}
		if _, ok := r.layers[2].(*layers.Ethernet); !ok {
			return false
		}
		l := r.layers[3]
		if _, ok := l.(*layers.IPv4); !ok {
			if _, ok := l.(*layers.IPv6); !ok {
				return false
			}
		}
		r.layers = r.layers[4:]
		r.outer(encapVXLAN)
		r.s.encap.sport, r.s.encap.dport, r.s.encap.vni = uint16(inner.SrcPort), uint16(inner.DstPort), vx.VNI
		r.readIP(l)
	}
	r.extensions()
	return r.transport()
}

// readIP sets the shape's IP header from l, an IPv4 or IPv6 layer.
func (r *reader) readIP(l gopacket.Layer) {
	s := r.s
	s.l4, s.payload = l4None, nil
	switch ip := l.(type) {
	case *layers.IPv4:
		s.net = netIPv4
		h := ipv4Header{tos: ip.TOS, id: ip.Id, flags: uint8(ip.Flags), fragOff: ip.FragOffset, ttl: ip.TTL}
		copy(h.src[:], ip.SrcIP.To4())
		copy(h.dst[:], ip.DstIP.To4())
		for _, o := range ip.Options {
			if o.OptionType == 0 && o.OptionLength == 0 {
				continue // gopacket's reading of the padding
			}
			h.options = append(h.options, option{o.OptionType, append([]byte(nil), o.OptionData...)})
		}
		s.ip4, s.proto = h, uint8(ip.Protocol)
	case *layers.IPv6:
		s.net = netIPv6
		h := ipv6Header{class: ip.TrafficClass, flow: ip.FlowLabel, hop: ip.HopLimit}
		copy(h.src[:], ip.SrcIP)
		copy(h.dst[:], ip.DstIP)
		s.ip6, s.proto = h, uint8(ip.NextHeader)
	}
	s.payload = append([]byte(nil), l.LayerPayload()...)
}

// outer makes the IP header read so far the outer one of kind.
func (r *reader) outer(kind encapsulation) {
	s := r.s
	e := outer{kind: kind, v6: s.net == netIPv6}
	if e.v6 {
		e.src, e.dst, e.ttl = s.ip6.src, s.ip6.dst, s.ip6.hop
	} else {
		copy(e.src[:], s.ip4.src[:])
		copy(e.dst[:], s.ip4.dst[:])
		e.ttl = s.ip4.ttl
	}
	s.encap = e
}

// extensions reads IPv6 extension headers, as bytes.
func (r *reader) extensions() {
	for {
		l := r.peek()
		if l == nil {
			return
		}
		var proto layers.IPProtocol
		switch l.LayerType() {
		case layers.LayerTypeIPv6HopByHop:
			proto = layers.IPProtocolIPv6HopByHop
		case layers.LayerTypeIPv6Routing:
			proto = layers.IPProtocolIPv6Routing
		case layers.LayerTypeIPv6Fragment:
			proto = layers.IPProtocolIPv6Fragment
		case layers.LayerTypeIPv6Destination:
			proto = layers.IPProtocolIPv6Destination
		default:
			return
		}
		r.next()
		head := l.LayerContents()
		if len(head) < 2 {
			return
		}
		r.s.ip6.ext = append(r.s.ip6.ext, extension{uint8(proto), append([]byte(nil), head[2:]...)})
		r.s.proto = head[0]
		r.s.payload = append([]byte(nil), l.LayerPayload()...)
	}
}

// transport reads the transport header; its payload is the rest.
func (r *reader) transport() bool {
	s := r.s
	l := r.next()
	switch t := l.(type) {
	case nil:
		s.l4 = l4Other
		if s.proto == uint8(layers.IPProtocolNoNextHeader) {
			s.l4 = l4None
		}
		return true
	case *layers.TCP:
		s.l4 = l4TCP
		s.tcp = tcpHeader{sport: uint16(t.SrcPort), dport: uint16(t.DstPort), seq: t.Seq, ack: t.Ack, window: t.Window, urgent: t.Urgent,
			flags: binary.BigEndian.Uint16(t.Contents[12:14]) & 0x1ff}
		for _, o := range t.Options {
			if o.OptionType == 0 && len(o.OptionData) == 0 && o.OptionLength == 0 {
				continue // padding
			}
			s.tcp.options = append(s.tcp.options, option{uint8(o.OptionType), append([]byte(nil), o.OptionData...)})
		}
	case *layers.UDP:
		s.l4, s.udp = l4UDP, udpHeader{uint16(t.SrcPort), uint16(t.DstPort)}
	case *layers.ICMPv4:
		s.l4 = l4ICMP
		s.icmp = icmpHeader{kind: t.TypeCode.Type(), code: t.TypeCode.Code(), id: t.Id, seq: t.Seq}
	case *layers.ICMPv6:
		s.l4 = l4ICMP
		s.icmp = icmpHeader{kind: t.TypeCode.Type(), code: t.TypeCode.Code()}
		if p := t.LayerPayload(); len(p) >= 4 {
			s.icmp.id, s.icmp.seq = binary.BigEndian.Uint16(p), binary.BigEndian.Uint16(p[2:])
			s.payload = append([]byte(nil), p[4:]...)
		}
		return true
	default:
		// Another protocol, or a fragment: its bytes are the payload.
		s.l4 = l4Other
		return true
	}
	s.payload = append([]byte(nil), l.LayerPayload()...)
	return true
}

func isPadding(l gopacket.Layer) bool {
	_, ok := l.(*gopacket.Payload)
	return l == nil || ok
}
