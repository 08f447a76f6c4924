package worst

import (
	"encoding/binary"
	"fmt"
	"net"
	"slices"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro/packets"
)

// The packets the search builds: a frame described by its fields, layer by
// layer, which mutations change one field at a time and gopacket
// serializes with valid lengths and checksums, so that a program which
// checks them takes the paths a real packet takes.

// network is what the Ethernet header carries.
type network uint8

const (
	netIPv4 network = iota
	netIPv6
	netARP
	netOther // EtherType and payload only
)

// transport is what the (inner) IP header carries.
type transport uint8

const (
	l4None transport = iota // protocol 59, no next header
	l4TCP
	l4UDP
	l4ICMP
	l4Other // shape.proto, payload only
)

// encapsulation carries the IP packet in an outer one.
type encapsulation uint8

const (
	encapNone encapsulation = iota
	encapIPIP
	encapGUE   // the inner IP packet directly in UDP, katran's
	encapVXLAN // an Ethernet frame in UDP behind a VXLAN header
)

// Ports the encapsulations use by default.
const (
	guePort   = 6080
	vxlanPort = 4789
)

// Frame sizes: the Ethernet minimum without FCS (gopacket pads to it),
// and the largest frame a search builds, a 1500-byte MTU with two VLAN
// tags, well within what the kernel's test run takes.
const (
	minFrame = 60
	maxFrame = 1522
)

type option struct {
	kind uint8
	data []byte
}

type ipv4Header struct {
	tos     uint8
	id      uint16
	flags   uint8  // 3 bits: reserved, DF, MF
	fragOff uint16 // 13 bits, in 8-byte units
	ttl     uint8
	src     [4]byte
	dst     [4]byte
	options []option // at most 40 bytes, NOP and EOL one byte each
}

// extension is an IPv6 extension header: its protocol number and the
// bytes after its first two.
type extension struct {
	proto uint8
	data  []byte
}

type ipv6Header struct {
	class uint8
	flow  uint32
	hop   uint8
	src   [16]byte
	dst   [16]byte
	ext   []extension
}

type tcpHeader struct {
	sport, dport uint16
	seq, ack     uint32
	flags        uint16 // FIN 0x001 … CWR 0x080, NS 0x100
	window       uint16
	urgent       uint16
	options      []option
}

type udpHeader struct{ sport, dport uint16 }

type icmpHeader struct {
	kind, code uint8
	id, seq    uint16
}

type arpPacket struct {
	op                   uint16
	senderMAC, targetMAC [6]byte
	senderIP, targetIP   [4]byte
}

// outer is an encapsulation's outer IP header (and UDP ports): IPv4 when
// v6 is false, in the first four bytes of src and dst.
type outer struct {
	kind         encapsulation
	v6           bool
	src, dst     [16]byte
	ttl          uint8
	sport, dport uint16
	vni          uint32
}

// shape is a frame by its fields. For an encapsulated packet, ip4 or ip6
// is the inner header and encap the outer.
type shape struct {
	dst, src  [6]byte
	vlans     []uint16 // outermost first; two is QinQ
	etherType uint16   // netOther's
	net       network
	ip4       ipv4Header
	ip6       ipv6Header
	arp       arpPacket
	l4        transport
	proto     uint8 // l4Other's protocol number
	tcp       tcpHeader
	udp       udpHeader
	icmp      icmpHeader
	encap     outer
	payload   []byte
	// size pads the frame with zeros to that length, an Ethernet
	// trailer the IP length does not count; 0 or less than the frame:
	// none.
	size int
}

// clone copies s, its slices too, so that a mutation of the copy leaves
// s as it was.
func (s *shape) clone() *shape {
	c := *s
	c.vlans = slices.Clone(s.vlans)
	c.ip4.options = cloneOptions(s.ip4.options)
	c.tcp.options = cloneOptions(s.tcp.options)
	c.ip6.ext = make([]extension, len(s.ip6.ext))
	for i, e := range s.ip6.ext {
		c.ip6.ext[i] = extension{e.proto, slices.Clone(e.data)}
	}
	c.payload = slices.Clone(s.payload)
	return &c
}

func cloneOptions(opts []option) []option {
	out := make([]option, len(opts))
	for i, o := range opts {
		out[i] = option{o.kind, slices.Clone(o.data)}
	}
	return out
}

// ipProtocol is the protocol number the IP header (or its last extension
// header) gives the transport.
func (s *shape) ipProtocol() uint8 {
	switch s.l4 {
	case l4TCP:
		return uint8(layers.IPProtocolTCP)
	case l4UDP:
		return uint8(layers.IPProtocolUDP)
	case l4ICMP:
		if s.net == netIPv6 {
			return uint8(layers.IPProtocolICMPv6)
		}
		return uint8(layers.IPProtocolICMPv4)
	case l4Other:
		return s.proto
	}
	return uint8(layers.IPProtocolNoNextHeader)
}

// builder serializes shapes.
type builder struct{}

func newBuilder() *builder { return &builder{} }

// build serializes s with valid lengths and checksums, padded to s.size;
// the bytes are a copy, the caller's to keep.
func (b *builder) build(s *shape) ([]byte, error) {
	stack := s.linkLayers()
	stack = append(stack, s.encapLayers()...)
	stack = append(stack, s.networkLayers()...)
	stack = append(stack, s.transportLayers()...)
	if len(s.payload) > 0 {
		stack = append(stack, gopacket.Payload(s.payload))
	}
	// A new buffer each time: gopacket leaves unwritten bytes (IPv4
	// options' padding) as the buffer held them, and a reused buffer
	// would make one shape two frames.
	buf := gopacket.NewSerializeBuffer()
	var net gopacket.NetworkLayer
	for _, l := range stack {
		if n, ok := l.(gopacket.NetworkLayer); ok {
			net = n
		}
		if t, ok := l.(interface {
			SetNetworkLayerForChecksum(gopacket.NetworkLayer) error
		}); ok && net != nil {
			if err := t.SetNetworkLayerForChecksum(net); err != nil {
				return nil, err
			}
		}
	}
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, stack...); err != nil {
		return nil, fmt.Errorf("build a frame: %w", err)
	}
	frame := buf.Bytes()
	out := make([]byte, max(len(frame), min(s.size, maxFrame)))
	copy(out, frame)
	return out, nil
}

// linkLayers are the Ethernet header and its VLAN tags: one is 802.1Q,
// the outer of two (QinQ) 802.1ad.
func (s *shape) linkLayers() []gopacket.SerializableLayer {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr(s.src[:]), DstMAC: net.HardwareAddr(s.dst[:])}
	next := s.outerEtherType()
	stack := []gopacket.SerializableLayer{eth}
	for i := len(s.vlans) - 1; i >= 0; i-- {
		tag := &layers.Dot1Q{VLANIdentifier: s.vlans[i] & 0xfff, Priority: uint8(s.vlans[i] >> 13), Type: next}
		stack = slices.Insert(stack, 1, gopacket.SerializableLayer(tag))
		next = layers.EthernetTypeDot1Q
		if i == 0 && len(s.vlans) == 2 {
			next = layers.EthernetTypeQinQ
		}
	}
	eth.EthernetType = next
	return stack
}

// outerEtherType is the EtherType of what follows the tags.
func (s *shape) outerEtherType() layers.EthernetType {
	switch {
	case s.net == netOther:
		return layers.EthernetType(s.etherType)
	case s.net == netARP:
		return layers.EthernetTypeARP
	case s.encap.kind != encapNone && s.encap.v6, s.encap.kind == encapNone && s.net == netIPv6:
		return layers.EthernetTypeIPv6
	}
	return layers.EthernetTypeIPv4
}

// encapLayers are the outer IP header and, for GUE and VXLAN, its UDP
// header (and VXLAN's own and the inner Ethernet header).
func (s *shape) encapLayers() []gopacket.SerializableLayer {
	e := s.encap
	if e.kind == encapNone || (s.net != netIPv4 && s.net != netIPv6) {
		return nil
	}
	proto := layers.IPProtocolUDP
	if e.kind == encapIPIP {
		proto = layers.IPProtocolIPv4
		if s.net == netIPv6 {
			proto = layers.IPProtocolIPv6
		}
	}
	var ip gopacket.SerializableLayer = &layers.IPv4{Version: 4, TTL: e.ttl, Protocol: proto, SrcIP: e.src[:4], DstIP: e.dst[:4]}
	if e.v6 {
		ip = &layers.IPv6{Version: 6, HopLimit: e.ttl, NextHeader: proto, SrcIP: e.src[:], DstIP: e.dst[:]}
	}
	stack := []gopacket.SerializableLayer{ip}
	if e.kind == encapIPIP {
		return stack
	}
	stack = append(stack, &layers.UDP{SrcPort: layers.UDPPort(e.sport), DstPort: layers.UDPPort(e.dport)})
	if e.kind == encapVXLAN {
		inner := layers.EthernetTypeIPv4
		if s.net == netIPv6 {
			inner = layers.EthernetTypeIPv6
		}
		stack = append(stack, &layers.VXLAN{ValidIDFlag: true, VNI: e.vni & 0xffffff},
			&packets.InnerEthernet{Src: s.src[:], Dst: s.dst[:], EtherType: inner})
	}
	return stack
}

// networkLayers are the (inner) IP header and its IPv6 extension
// headers, or ARP; nothing for another EtherType.
func (s *shape) networkLayers() []gopacket.SerializableLayer {
	switch s.net {
	case netIPv4:
		h := s.ip4
		ip := &layers.IPv4{Version: 4, TOS: h.tos, Id: h.id, Flags: layers.IPv4Flag(h.flags & 7), FragOffset: h.fragOff & 0x1fff,
			TTL: h.ttl, Protocol: layers.IPProtocol(s.ipProtocol()), SrcIP: h.src[:], DstIP: h.dst[:]}
		for _, o := range h.options {
			ip.Options = append(ip.Options, layers.IPv4Option{OptionType: o.kind, OptionLength: uint8(2 + len(o.data)), OptionData: o.data})
		}
		return []gopacket.SerializableLayer{ip}
	case netIPv6:
		h := s.ip6
		ip := &layers.IPv6{Version: 6, TrafficClass: h.class, FlowLabel: h.flow & 0xfffff, HopLimit: h.hop,
			NextHeader: layers.IPProtocol(s.ipProtocol()), SrcIP: h.src[:], DstIP: h.dst[:]}
		stack := []gopacket.SerializableLayer{ip}
		for i := len(h.ext) - 1; i >= 0; i-- {
			next := s.ipProtocol()
			if i+1 < len(h.ext) {
				next = h.ext[i+1].proto
			}
			stack = slices.Insert(stack, 1, gopacket.SerializableLayer(&extensionLayer{ext: h.ext[i], next: next}))
		}
		if len(h.ext) > 0 {
			ip.NextHeader = layers.IPProtocol(h.ext[0].proto)
		}
		return stack
	case netARP:
		a := s.arp
		return []gopacket.SerializableLayer{&layers.ARP{
			AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: a.op, SourceHwAddress: a.senderMAC[:], SourceProtAddress: a.senderIP[:],
			DstHwAddress: a.targetMAC[:], DstProtAddress: a.targetIP[:],
		}}
	}
	return nil
}

// transportLayers are the TCP, UDP or ICMP header over IP.
func (s *shape) transportLayers() []gopacket.SerializableLayer {
	if s.net != netIPv4 && s.net != netIPv6 {
		return nil
	}
	switch s.l4 {
	case l4TCP:
		t := s.tcp
		tcp := &layers.TCP{SrcPort: layers.TCPPort(t.sport), DstPort: layers.TCPPort(t.dport), Seq: t.seq, Ack: t.ack,
			Window: t.window, Urgent: t.urgent,
			FIN: t.flags&0x001 != 0, SYN: t.flags&0x002 != 0, RST: t.flags&0x004 != 0, PSH: t.flags&0x008 != 0,
			ACK: t.flags&0x010 != 0, URG: t.flags&0x020 != 0, ECE: t.flags&0x040 != 0, CWR: t.flags&0x080 != 0, NS: t.flags&0x100 != 0}
		for _, o := range t.options {
			tcp.Options = append(tcp.Options, layers.TCPOption{OptionType: layers.TCPOptionKind(o.kind), OptionLength: uint8(2 + len(o.data)), OptionData: o.data})
		}
		return []gopacket.SerializableLayer{tcp}
	case l4UDP:
		return []gopacket.SerializableLayer{&layers.UDP{SrcPort: layers.UDPPort(s.udp.sport), DstPort: layers.UDPPort(s.udp.dport)}}
	case l4ICMP:
		i := s.icmp
		if s.net == netIPv6 {
			rest := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, i.id), i.seq)
			return []gopacket.SerializableLayer{&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(i.kind, i.code)}, gopacket.Payload(rest)}
		}
		return []gopacket.SerializableLayer{&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(i.kind, i.code), Id: i.id, Seq: i.seq}}
	}
	return nil
}

// extensionLayer serializes an IPv6 extension header: a fragment header
// is 8 bytes; AH counts its length in 4-byte units less 2; the others in
// 8-byte units less 1. Data is zero-padded to the header's length.
type extensionLayer struct {
	ext  extension
	next uint8
}

func (e *extensionLayer) LayerType() gopacket.LayerType { return layers.LayerTypeIPv6Destination }

func (e *extensionLayer) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	size := (2 + len(e.ext.data) + 7) &^ 7
	if e.ext.proto == uint8(layers.IPProtocolIPv6Fragment) {
		size = 8
	}
	h, err := b.PrependBytes(size)
	if err != nil {
		return err
	}
	clear(h)
	h[0] = e.next
	switch e.ext.proto {
	case uint8(layers.IPProtocolIPv6Fragment):
		h[1] = 0
	case uint8(layers.IPProtocolAH):
		h[1] = uint8(size/4 - 2)
	default:
		h[1] = uint8(size/8 - 1)
	}
	copy(h[2:], e.ext.data)
	return nil
}
