package packets

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"gopkg.in/yaml.v3"
)

// Packet-file frames beyond one IP packet: ARP, and IP packets carried in
// IP (IPIP), in UDP (GUE) or, with an Ethernet header of their own, in
// VXLAN: what a load balancer such as katran decapsulates.

// Encapsulations of a packet file's encap.type.
const (
	EncapIPIP  = "ipip"  // IPv4 or IPv6 in IPv4 or IPv6: protocol 4 or 41, as the inner packet
	EncapGUE   = "gue"   // GUE variant 1: the inner IP packet directly in UDP
	EncapVXLAN = "vxlan" // an Ethernet frame in UDP behind an 8-byte VXLAN header
)

// Default UDP ports of the encapsulations: katran's GUE port, and IANA's
// for VXLAN.
const (
	guePort   = 6080
	vxlanPort = 4789
)

// encap wraps the IP packet read so far in the headers of encap.
func (f *frame) encap(o *object) error {
	e, err := o.object("encap", "type", "src", "dst", "ttl", "sport", "dport", "vni")
	if err != nil || e == nil {
		return err
	}
	if f.ip == nil {
		return o.p.fail(o.fields["encap"], o.at("encap"), "needs an inner ipv4 or ipv6 packet")
	}
	kind, kindNode, err := e.required("type")
	if err != nil {
		return err
	}
	kind = strings.ToLower(kind)
	kinds := []string{EncapIPIP, EncapGUE, EncapVXLAN}
	if !slices.Contains(kinds, kind) {
		return o.p.fail(kindNode, e.at("type"), "%q is not an encapsulation (known: %s)", kind, strings.Join(kinds, ", "))
	}
	for _, key := range []string{"sport", "dport", "vni"} {
		if e.has(key) && (kind == EncapIPIP || key == "vni" && kind != EncapVXLAN) {
			return o.p.fail(e.fields[key], e.at(key), "not a field of %s", kind)
		}
	}
	src, dst, err := e.outerAddresses()
	if err != nil {
		return err
	}
	ttl, err := e.number("ttl", 64, 255)
	if err != nil {
		return err
	}
	var outerIP gopacket.SerializableLayer
	proto := layers.IPProtocolUDP
	if kind == EncapIPIP {
		proto = layers.IPProtocolIPv4
		if f.src.Is6() {
			proto = layers.IPProtocolIPv6
		}
	}
	if src.Is4() {
		outerIP = &layers.IPv4{Version: 4, IHL: 5, TTL: uint8(ttl), Protocol: proto, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
		f.outerType = layers.EthernetTypeIPv4
	} else {
		outerIP = &layers.IPv6{Version: 6, HopLimit: uint8(ttl), NextHeader: proto, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
		f.outerType = layers.EthernetTypeIPv6
	}
	f.outer, f.outerSrc = []gopacket.SerializableLayer{outerIP}, src
	if kind == EncapIPIP {
		f.outerWhat = fmt.Sprintf("ipip %s > %s", src, dst)
		return nil
	}
	defPort := uint64(guePort)
	if kind == EncapVXLAN {
		defPort = vxlanPort
	}
	sport, err := e.number("sport", sourcePort, 0xffff)
	if err != nil {
		return err
	}
	dport, err := e.number("dport", defPort, 0xffff)
	if err != nil {
		return err
	}
	f.outer = append(f.outer, &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)})
	ports := fmt.Sprintf("%s > %s", netip.AddrPortFrom(src, uint16(sport)), netip.AddrPortFrom(dst, uint16(dport)))
	if kind == EncapGUE {
		f.outerWhat = "gue " + ports
		return nil
	}
	vni, err := e.number("vni", 0, 1<<24-1)
	if err != nil {
		return err
	}
	f.outer = append(f.outer,
		&layers.VXLAN{ValidIDFlag: true, VNI: uint32(vni)},
		&InnerEthernet{Src: sourceMAC, Dst: destMAC, EtherType: f.ipType})
	f.outerWhat = fmt.Sprintf("vxlan %d %s", vni, ports)
	return nil
}

// outerAddresses returns the required src and dst of the outer IP header,
// both IPv4 or both IPv6.
func (o *object) outerAddresses() (src, dst netip.Addr, err error) {
	addr := func(key string) (netip.Addr, *yaml.Node, error) {
		s, n, err := o.required(key)
		if err != nil {
			return netip.Addr{}, n, err
		}
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" || a.Is4In6() {
			return netip.Addr{}, n, o.p.fail(n, o.at(key), "%q is not an IPv4 or IPv6 address", s)
		}
		return a, n, nil
	}
	src, _, err = addr("src")
	if err != nil {
		return src, dst, err
	}
	dst, n, err := addr("dst")
	if err == nil && src.Is4() != dst.Is4() {
		err = o.p.fail(n, o.at("dst"), "%s and %s are not of one IP version", src, dst)
	}
	return src, dst, err
}

// InnerEthernet is the Ethernet header inside VXLAN, a gopacket layer to
// serialize. gopacket's Ethernet pads a frame to 60 bytes, as a wire
// needs; an encapsulated frame has no such padding.
type InnerEthernet struct {
	Src, Dst  net.HardwareAddr
	EtherType layers.EthernetType
}

// LayerType is Ethernet's.
func (e *InnerEthernet) LayerType() gopacket.LayerType { return layers.LayerTypeEthernet }

// SerializeTo writes the 14-byte header, unpadded.
func (e *InnerEthernet) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(14)
	if err != nil {
		return err
	}
	copy(h, e.Dst)
	copy(h[6:], e.Src)
	binary.BigEndian.PutUint16(h[12:], uint16(e.EtherType))
	return nil
}

// arpFields is an ARP packet for IPv4 over Ethernet, and which of its
// MACs were given: those not given follow the Ethernet header.
type arpFields struct {
	layers.ARP
	senderGiven, targetGiven bool
}

// ARP operations known by name.
var arpOps = map[string]uint16{"request": layers.ARPRequest, "reply": layers.ARPReply}

func (f *frame) parseARP(parent *object) error {
	o, err := parent.object("arp", "op", "sender_mac", "sender_ip", "target_mac", "target_ip")
	if err != nil {
		return err
	}
	a := &arpFields{ARP: layers.ARP{
		AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
		HwAddressSize: 6, ProtAddressSize: 4, Operation: layers.ARPRequest,
	}}
	if s, n, ok, err := o.text("op"); err != nil {
		return err
	} else if ok {
		code, known := arpOps[strings.ToLower(s)]
		if !known {
			v, isNumber := parseNumber(s, 0xffff)
			if !isNumber {
				return o.p.fail(n, o.at("op"), "%q is neither request, reply nor a number in 0..65535", s)
			}
			code = uint16(v)
		}
		a.Operation = code
	}
	ip := func(key string) (netip.Addr, error) {
		s, n, err := o.required(key)
		if err != nil {
			return netip.Addr{}, err
		}
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return netip.Addr{}, o.p.fail(n, o.at(key), "%q is not an IPv4 address", s)
		}
		return a, nil
	}
	sender, err := ip("sender_ip")
	if err != nil {
		return err
	}
	target, err := ip("target_ip")
	if err != nil {
		return err
	}
	a.SourceProtAddress, a.DstProtAddress = sender.AsSlice(), target.AsSlice()
	a.senderGiven, a.targetGiven = o.has("sender_mac"), o.has("target_mac")
	if a.SourceHwAddress, err = o.mac("sender_mac", nil); err != nil {
		return err
	}
	if a.DstHwAddress, err = o.mac("target_mac", nil); err != nil {
		return err
	}
	f.arp = a
	f.what = fmt.Sprintf("arp %s %s > %s", arpOpName(a.Operation), sender, target)
	return nil
}

// arpOpName names an ARP operation as pcap summaries do.
func arpOpName(op uint16) string {
	switch op {
	case layers.ARPRequest:
		return "request"
	case layers.ARPReply:
		return "reply"
	}
	return fmt.Sprintf("op %d", op)
}

// complete fills the MACs not given from the Ethernet header, whose
// destination, when not given either, is the broadcast address for a
// request: who-has is asked of everyone.
func (a *arpFields) complete(eth *layers.Ethernet, dstGiven bool) {
	if a.Operation == layers.ARPRequest && !dstGiven {
		eth.DstMAC = broadcastHW
	}
	if !a.senderGiven {
		a.SourceHwAddress = eth.SrcMAC
	}
	if !a.targetGiven {
		a.DstHwAddress = make(net.HardwareAddr, 6) // unknown: what a request asks for
		if a.Operation != layers.ARPRequest {
			a.DstHwAddress = eth.DstMAC
		}
	}
}
