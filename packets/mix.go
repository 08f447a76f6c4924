package packets

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// The protocol mix: the default cases for a program other than the
// bundled ones, one frame of each kind a packet parser meets most, as a
// host would send it (a SYN with Linux's options, a DNS query, a ping of 56
// bytes), so that a real program takes its real paths.
const (
	TCPSyn     = "tcp-syn"      // IPv4 TCP SYN to port 80, with MSS, SACK, timestamps and window scale
	UDPDNS     = "udp-dns"      // IPv4 UDP DNS query for example.com
	ICMPEcho   = "icmp-echo"    // IPv4 ICMP echo request, 56 bytes of data
	IPv6TCPSyn = "ipv6-tcp-syn" // the TCP SYN over IPv6
	VLANUDP    = "vlan-udp"     // the DNS query, tagged with VLAN 100
	ARP        = "arp"          // ARP request, broadcast
)

// Groups of cases that Select accepts as one name.
const (
	GroupClasses = "classes" // the source-address classes
	GroupMix     = "mix"     // the protocol mix
)

// Mix returns the names of the protocol mix's cases.
func Mix() []string {
	return []string{TCPSyn, UDPDNS, ICMPEcho, IPv6TCPSyn, VLANUDP, ARP}
}

// DefaultMix returns the protocol mix.
func DefaultMix() []Case {
	cases, err := Select(Mix())
	if err != nil {
		panic(err) // the mix is static; a failure here is a bug
	}
	return cases
}

// The mix's addresses and ports, from documentation prefixes as the
// classes'.
var (
	mixSource   = netip.MustParseAddr("192.0.2.10")
	mixSource6  = netip.MustParseAddr("2001:db8::10")
	mixDest6    = netip.MustParseAddr("2001:db8::20")
	mixGateway  = netip.MustParseAddr("192.0.2.1")
	broadcastHW = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

const (
	httpPort = 80
	dnsPort  = 53
	mixVLAN  = 100
	// pingData is what ping sends by default.
	pingData = 56
)

// mixCase builds one case of the protocol mix; ok is false for a name
// outside it.
func mixCase(name string) (c Case, ok bool, err error) {
	eth := &layers.Ethernet{SrcMAC: sourceMAC, DstMAC: destMAC, EthernetType: layers.EthernetTypeIPv4}
	ip4 := &layers.IPv4{
		Version: 4, IHL: 5, TTL: 64, Flags: layers.IPv4DontFragment,
		SrcIP: mixSource.AsSlice(), DstIP: destination.AsSlice(),
	}
	var stack []gopacket.SerializableLayer
	switch name {
	case TCPSyn:
		ip4.Protocol = layers.IPProtocolTCP
		stack = []gopacket.SerializableLayer{eth, ip4, synSegment()}
	case UDPDNS:
		ip4.Protocol = layers.IPProtocolUDP
		stack = []gopacket.SerializableLayer{eth, ip4, &layers.UDP{SrcPort: sourcePort, DstPort: dnsPort}, dnsQuery()}
	case ICMPEcho:
		ip4.Protocol = layers.IPProtocolICMPv4
		data := make(gopacket.Payload, pingData)
		for i := range data {
			data[i] = byte(i) // ping's pattern follows its timestamp; the bytes only need to be there
		}
		echo := &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeEchoRequest, 0), Id: 1, Seq: 1}
		stack = []gopacket.SerializableLayer{eth, ip4, echo, data}
	case IPv6TCPSyn:
		eth.EthernetType = layers.EthernetTypeIPv6
		ip6 := &layers.IPv6{
			Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP,
			SrcIP: mixSource6.AsSlice(), DstIP: mixDest6.AsSlice(),
		}
		stack = []gopacket.SerializableLayer{eth, ip6, synSegment()}
	case VLANUDP:
		eth.EthernetType = layers.EthernetTypeDot1Q
		ip4.Protocol = layers.IPProtocolUDP
		tag := &layers.Dot1Q{VLANIdentifier: mixVLAN, Type: layers.EthernetTypeIPv4}
		stack = []gopacket.SerializableLayer{eth, tag, ip4, &layers.UDP{SrcPort: sourcePort, DstPort: dnsPort}, dnsQuery()}
	case ARP:
		eth.DstMAC, eth.EthernetType = broadcastHW, layers.EthernetTypeARP
		arp := &layers.ARP{
			AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
			HwAddressSize: 6, ProtAddressSize: 4, Operation: layers.ARPRequest,
			SourceHwAddress: sourceMAC, SourceProtAddress: mixSource.AsSlice(),
			DstHwAddress: make([]byte, 6), DstProtAddress: mixGateway.AsSlice(),
		}
		stack = []gopacket.SerializableLayer{eth, arp}
	default:
		return Case{}, false, nil
	}
	frame, err := buildFrame(stack...)
	if err != nil {
		return Case{}, true, fmt.Errorf("build case %s: %w", name, err)
	}
	d := describe(gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default))
	return Case{Name: name, Summary: d.long, Source: d.source, Frame: frame}, true, nil
}

// synSegment is a SYN as Linux sends it: MSS 1460, SACK permitted,
// timestamps and window scale 7, 20 bytes of options.
func synSegment() *layers.TCP {
	return &layers.TCP{
		SrcPort: sourcePort, DstPort: httpPort, Seq: 1, SYN: true, Window: 64240,
		Options: []layers.TCPOption{
			{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{0x05, 0xb4}},
			{OptionType: layers.TCPOptionKindSACKPermitted, OptionLength: 2},
			{OptionType: layers.TCPOptionKindTimestamps, OptionLength: 10, OptionData: []byte{0, 0, 0, 1, 0, 0, 0, 0}},
			{OptionType: layers.TCPOptionKindNop},
			{OptionType: layers.TCPOptionKindWindowScale, OptionLength: 3, OptionData: []byte{7}},
		},
	}
}

// dnsQuery asks for example.com's A record, recursion desired.
func dnsQuery() *layers.DNS {
	return &layers.DNS{
		ID: 0x1234, RD: true, QDCount: 1,
		Questions: []layers.DNSQuestion{{Name: []byte("example.com"), Type: layers.DNSTypeA, Class: layers.DNSClassIN}},
	}
}
