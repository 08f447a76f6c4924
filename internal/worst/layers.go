package worst

import (
	"slices"

	"github.com/google/gopacket/layers"
)

// Structural mutations: each changes one thing of one layer of a shape,
// which the builder then serializes with lengths and checksums to match.

// target is a layer, or a part of one, that a mutation changes.
type target uint8

const (
	targetLink target = iota
	targetVLAN
	targetNetwork // what the Ethernet header carries
	targetIP
	targetIPExtra // IPv4 options, IPv6 extension headers
	targetTransport
	targetL4
	targetTCPOptions
	targetARP
	targetEncap
	targetPayload
	targetSize
	targets
)

// applies says whether t is something s has.
func (s *shape) applies(t target) bool {
	ip := s.net == netIPv4 || s.net == netIPv6
	switch t {
	case targetIP, targetIPExtra, targetTransport, targetEncap:
		return ip
	case targetL4:
		return ip && (s.l4 == l4TCP || s.l4 == l4UDP || s.l4 == l4ICMP)
	case targetTCPOptions:
		return ip && s.l4 == l4TCP
	case targetARP:
		return s.net == netARP
	}
	return true
}

// structural changes one thing of s.
func (m *mutator) structural(s *shape) {
	var choices [targets]target
	n := 0
	for t := range targets {
		if s.applies(t) {
			choices[n] = t
			n++
		}
	}
	switch t := choices[m.n(n)]; t {
	case targetLink:
		m.link(s)
	case targetVLAN:
		m.vlan(s)
	case targetNetwork:
		m.network(s)
	case targetIP:
		if s.net == netIPv4 {
			m.ipv4(&s.ip4)
		} else {
			m.ipv6(&s.ip6)
		}
	case targetIPExtra:
		m.ipExtra(s)
	case targetTransport:
		m.transport(s)
	case targetL4:
		m.l4(s)
	case targetTCPOptions:
		s.tcp.options = m.options(s.tcp.options, tcpOptionKinds, 40)
	case targetARP:
		m.arp(&s.arp)
	case targetEncap:
		m.encap(s)
	case targetPayload:
		m.payload(s)
	case targetSize:
		m.size(s)
	}
}

func (m *mutator) link(s *shape) {
	if m.n(2) == 0 {
		m.mac(&s.dst)
	} else {
		m.mac(&s.src)
	}
}

func (m *mutator) vlan(s *shape) {
	switch {
	case len(s.vlans) < 2 && (len(s.vlans) == 0 || m.n(2) == 0):
		s.vlans = slices.Insert(s.vlans, m.n(len(s.vlans)+1), uint16(m.value(100, 2))&0xefff)
	case m.n(3) == 0:
		i := m.n(len(s.vlans))
		s.vlans = slices.Delete(s.vlans, i, i+1)
	default:
		m.set16(&s.vlans[m.n(len(s.vlans))])
	}
}

// Defaults for a layer a mutation brings in: documentation addresses, as
// the built-in cases use.
var (
	defaultIPv4 = ipv4Header{ttl: 64, src: [4]byte{192, 0, 2, 1}, dst: [4]byte{198, 51, 100, 1}}
	defaultIPv6 = ipv6Header{hop: 64,
		src: [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}, dst: [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 2}}
	defaultTCP = tcpHeader{sport: 40000, dport: 80, flags: 0x002, window: 65535}
	defaultUDP = udpHeader{sport: 40000, dport: 53}
	defaultARP = arpPacket{op: 1, senderMAC: [6]byte{2, 0, 0, 0, 0, 1}, senderIP: [4]byte{192, 0, 2, 10}, targetIP: [4]byte{192, 0, 2, 1}}
)

var etherTypes = []uint16{0x0800, 0x86dd, 0x0806, 0x8100, 0x88a8, 0x88cc, 0x8847, 0x0842, 0x0600}

// network changes what the Ethernet header carries.
func (m *mutator) network(s *shape) {
	switch m.n(4) {
	case 0:
		s.net = netIPv4
		if s.ip4.ttl == 0 && s.ip4.src == [4]byte{} {
			s.ip4 = defaultIPv4
		}
	case 1:
		s.net = netIPv6
		if s.ip6.hop == 0 && s.ip6.src == [16]byte{} {
			s.ip6 = defaultIPv6
		}
	case 2:
		s.net = netARP
		if s.arp.op == 0 {
			s.arp = defaultARP
		}
	default:
		s.net = netOther
		s.etherType = etherTypes[m.n(len(etherTypes))]
		if v, ok := m.fromDict(2); ok && m.n(2) == 0 {
			s.etherType = uint16(v)
		}
	}
}

func (m *mutator) ipv4(h *ipv4Header) {
	switch m.n(8) {
	case 0:
		m.set8(&h.tos)
	case 1:
		m.set16(&h.id)
	case 2:
		h.flags ^= 1 << m.n(3) // reserved, DF, MF
	case 3:
		h.fragOff = uint16(m.value(uint64(h.fragOff), 2)) & 0x1fff
	case 4:
		m.set8(&h.ttl)
	case 5, 6:
		m.addr4(&h.src)
	default:
		m.addr4(&h.dst)
	}
}

func (m *mutator) ipv6(h *ipv6Header) {
	switch m.n(6) {
	case 0:
		m.set8(&h.class)
	case 1:
		h.flow = uint32(m.value(uint64(h.flow), 4)) & 0xfffff
	case 2:
		m.set8(&h.hop)
	case 3, 4:
		m.addr16(&h.src)
	default:
		m.addr16(&h.dst)
	}
}

// IPv4 options: end, no-op, record route, timestamp, loose and strict
// source route, router alert. TCP options: end, no-op, MSS, window scale,
// SACK permitted, SACK, timestamps, MD5, fast open.
var (
	ipv4OptionKinds = []uint8{0, 1, 7, 68, 131, 137, 148}
	tcpOptionKinds  = []uint8{0, 1, 2, 3, 4, 5, 8, 19, 34}
	extensionKinds  = []uint8{
		uint8(layers.IPProtocolIPv6HopByHop), uint8(layers.IPProtocolIPv6Routing), uint8(layers.IPProtocolIPv6Fragment),
		uint8(layers.IPProtocolIPv6Destination), uint8(layers.IPProtocolAH), 135, // mobility
	}
)

// maxExtensions bounds a chain of IPv6 extension headers.
const maxExtensions = 32

// ipExtra changes IPv4's options or IPv6's extension headers.
func (m *mutator) ipExtra(s *shape) {
	if s.net == netIPv4 {
		s.ip4.options = m.options(s.ip4.options, ipv4OptionKinds, 40)
		return
	}
	ext := s.ip6.ext
	switch r := m.n(4); {
	case r == 0 && len(ext) > 0:
		i := m.n(len(ext))
		s.ip6.ext = slices.Delete(ext, i, i+1)
	case r == 1 && len(ext) > 0:
		e := &ext[m.n(len(ext))]
		if m.n(2) == 0 {
			e.proto = extensionKinds[m.n(len(extensionKinds))]
		} else if len(e.data) > 0 {
			m.set8(&e.data[m.n(len(e.data))])
		} else {
			e.data = m.bytes(6)
		}
	case len(ext) < maxExtensions:
		e := extension{proto: extensionKinds[m.n(len(extensionKinds))], data: m.bytes(6 + 8*m.n(2))}
		if v, ok := m.fromDict(1); ok && m.n(3) == 0 {
			e.proto = uint8(v)
		}
		s.ip6.ext = slices.Insert(ext, m.n(len(ext)+1), e)
	}
}

// transport changes what the IP header carries.
func (m *mutator) transport(s *shape) {
	switch m.n(5) {
	case 0:
		s.l4 = l4TCP
		if s.tcp.window == 0 && s.tcp.sport == 0 {
			s.tcp = defaultTCP
		}
	case 1:
		s.l4 = l4UDP
		if s.udp.sport == 0 {
			s.udp = defaultUDP
		}
	case 2:
		s.l4 = l4ICMP
	case 3:
		s.l4 = l4None
	default:
		s.l4 = l4Other
		m.set8(&s.proto)
	}
}

// l4 changes a field of the TCP, UDP or ICMP header.
func (m *mutator) l4(s *shape) {
	switch s.l4 {
	case l4TCP:
		t := &s.tcp
		switch m.n(9) {
		case 0, 1:
			m.set16(&t.sport)
		case 2, 3:
			m.set16(&t.dport)
		case 4:
			m.set32(&t.seq)
		case 5:
			m.set32(&t.ack)
		case 6:
			m.set16(&t.window)
		case 7:
			m.set16(&t.urgent)
		default:
			if v, ok := m.fromDict(2); ok && m.n(4) == 0 {
				t.flags = uint16(v) & 0x1ff
			} else {
				t.flags ^= 1 << m.n(9)
			}
		}
	case l4UDP:
		if m.n(2) == 0 {
			m.set16(&s.udp.sport)
		} else {
			m.set16(&s.udp.dport)
		}
	case l4ICMP:
		i := &s.icmp
		switch m.n(4) {
		case 0:
			m.set8(&i.kind)
		case 1:
			m.set8(&i.code)
		case 2:
			m.set16(&i.id)
		default:
			m.set16(&i.seq)
		}
	}
}

func (m *mutator) arp(a *arpPacket) {
	switch m.n(5) {
	case 0:
		m.set16(&a.op)
	case 1:
		m.addr4(&a.senderIP)
	case 2:
		m.addr4(&a.targetIP)
	case 3:
		m.mac(&a.senderMAC)
	default:
		m.mac(&a.targetMAC)
	}
}

// encap puts the packet in an outer one, changes the outer, or takes it
// out.
func (m *mutator) encap(s *shape) {
	e := &s.encap
	if e.kind == encapNone {
		*e = outer{kind: encapsulation(1 + m.n(3)), v6: m.n(3) == 0, ttl: 64, sport: 40000,
			src: [16]byte{10, 0, 0, 1}, dst: [16]byte{10, 0, 0, 2}}
		if e.v6 {
			e.src, e.dst = defaultIPv6.src, defaultIPv6.dst
		}
		e.dport = guePort
		if e.kind == encapVXLAN {
			e.dport = vxlanPort
		}
		return
	}
	switch m.n(8) {
	case 0:
		e.kind = encapNone
	case 1:
		e.kind = encapsulation(1 + m.n(3))
	case 2:
		m.outerAddress(e, &e.src)
	case 3:
		m.outerAddress(e, &e.dst)
	case 4:
		m.set8(&e.ttl)
	case 5:
		m.set16(&e.sport)
	case 6:
		m.set16(&e.dport)
	default:
		m.set32(&e.vni)
	}
}

func (m *mutator) outerAddress(e *outer, a *[16]byte) {
	if e.v6 {
		m.addr16(a)
		return
	}
	var v4 [4]byte
	copy(v4[:], a[:4])
	m.addr4(&v4)
	copy(a[:4], v4[:])
}

// maxPayload keeps a grown payload within a frame.
const maxPayload = 1400

var payloadSizes = []int{0, 1, 2, 8, 18, 64, 256, 512, 1024, maxPayload}

func (m *mutator) payload(s *shape) {
	p := s.payload
	switch r := m.n(6); {
	case r == 0 && len(p) > 0:
		m.set8(&p[m.n(len(p))])
	case r == 1 && len(p) > 0:
		if b, ok := m.dictString(0); ok {
			at := m.n(len(p))
			s.payload = append(p[:at], append(slices.Clone(b), p[min(at+len(b), len(p)):]...)...)
		}
	case r == 2 && len(p) < maxPayload:
		at := m.n(len(p) + 1)
		s.payload = slices.Insert(p, at, m.bytes(1+m.n(min(32, maxPayload-len(p))))...)
	case r == 3 && len(p) > 0:
		at := m.n(len(p))
		s.payload = slices.Delete(p, at, at+1+m.n(len(p)-at))
	case r == 4:
		size := payloadSizes[m.n(len(payloadSizes))]
		if size <= len(p) {
			s.payload = p[:size]
		} else {
			s.payload = append(p, make([]byte, size-len(p))...)
		}
	default:
		if v, ok := m.fromDict(1 << m.n(3)); ok && len(p) < maxPayload {
			s.payload = append(p, byte(v))
		}
	}
	if len(s.payload) > maxPayload {
		s.payload = s.payload[:maxPayload]
	}
}

var frameSizes = []int{0, 60, 64, 128, 256, 512, 1024, 1500, 1514, maxFrame}

func (m *mutator) size(s *shape) {
	if m.n(4) == 0 {
		s.size = 60 + m.n(maxFrame-59)
		return
	}
	s.size = frameSizes[m.n(len(frameSizes))]
}
