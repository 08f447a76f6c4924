package packets

import (
	"bytes"
	"encoding/binary"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro/internal/capture"
)

// sllHeader is a Linux cooked (SLL) pseudo-header.
func sllHeader(packetType, hatype uint16, addr net.HardwareAddr, protocol uint16) []byte {
	h := binary.BigEndian.AppendUint16(nil, packetType)
	h = binary.BigEndian.AppendUint16(h, hatype)
	h = binary.BigEndian.AppendUint16(h, uint16(len(addr)))
	h = append(h, addr...)
	h = append(h, make([]byte, 8-len(addr))...)
	return binary.BigEndian.AppendUint16(h, protocol)
}

// sll2Header is a Linux cooked v2 (SLL2) pseudo-header.
func sll2Header(packetType uint8, ifindex uint32, hatype uint16, addr net.HardwareAddr, protocol uint16) []byte {
	h := binary.BigEndian.AppendUint16(nil, protocol)
	h = append(h, 0, 0)
	h = binary.BigEndian.AppendUint32(h, ifindex)
	h = binary.BigEndian.AppendUint16(h, hatype)
	h = append(h, packetType, byte(len(addr)))
	h = append(h, addr...)
	return append(h, make([]byte, 8-len(addr))...)
}

// asSLL replaces an Ethernet frame's header with a cooked one.
func asSLL(frame []byte, header func(protocol uint16) []byte) []byte {
	return append(header(binary.BigEndian.Uint16(frame[12:])), frame[14:]...)
}

// Captures of `tcpdump -i any` on this project's machine, in both cooked
// formats, of the same six packets on lo: UDP and the ICMP port
// unreachable over IPv4, the same over IPv6, and a TCP SYN to a closed
// IPv6 port with its RST.
func TestReadCookedCaptures(t *testing.T) {
	want := [][]gopacket.LayerType{
		{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload},
		{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeICMPv4, gopacket.LayerTypePayload},
		{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeUDP, gopacket.LayerTypePayload},
		{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeICMPv6, gopacket.LayerTypePayload},
		{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeTCP},
		{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeTCP},
	}
	sll, err := ReadPcap("testdata/any-sll.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	sll2, err := ReadPcap("testdata/any-sll2.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sll) != len(want) || len(sll2) != len(want) {
		t.Fatalf("%d and %d cases, want %d", len(sll), len(sll2), len(want))
	}
	for i := range want {
		a, b := sll[i], sll2[i]
		if !bytes.Equal(a.Frame, b.Frame) || a.Name != b.Name {
			t.Errorf("packet %d: SLL gives %s %x, SLL2 %s %x", i+1, a.Name, a.Frame, b.Name, b.Frame)
		}
		if got := layerTypes(b.Frame, layers.LayerTypeEthernet); !slices.Equal(got, want[i]) {
			t.Errorf("%s: layers %v, want %v", b.Name, got, want[i])
		}
		// lo is no Ethernet device: its all-zero address gives way to
		// the default MACs.
		if !bytes.Equal(b.Frame[:12], append(bytes.Clone(destMAC), sourceMAC...)) {
			t.Errorf("%s: MACs %x", b.Name, b.Frame[:12])
		}
		if !strings.HasSuffix(a.Summary, "from cooked SLL, in") || !strings.HasSuffix(b.Summary, "from cooked SLL2, ifindex 1, in") {
			t.Errorf("summaries %q, %q", a.Summary, b.Summary)
		}
	}
	if sll2[0].Name != "1:udp 127.0.0.1>127.0.0.1" || sll2[4].Name != "5:tcp6 ::1>::1" {
		t.Errorf("names %s, %s", sll2[0].Name, sll2[4].Name)
	}
}

// Cooked headers of every kind a capture of "any" holds: the MACs come
// from the header where it has them, the EtherType always; packets with
// no EtherType are skipped but keep their number; SLL2 in pcapng, whose
// link type (276) is beyond the byte pcapgo keeps, may share a capture
// with Ethernet.
func TestCookedHeaders(t *testing.T) {
	f := makePcapFrames(t)
	nic := net.HardwareAddr{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	multicast4 := pcapFrame(t, pcapEth(layers.EthernetTypeIPv4),
		&layers.IPv4{Version: 4, IHL: 5, TTL: 1, Protocol: layers.IPProtocolUDP, SrcIP: pcapV4a.AsSlice(), DstIP: net.IP{224, 0, 0, 251}},
		&layers.UDP{SrcPort: 5353, DstPort: 5353}, gopacket.Payload("mdns"))
	llc := append(sll2Header(capture.PacketHost, 2, capture.ArphrdEther, nic, 0x0004), 0x42, 0x42, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	packets := [][]byte{
		asSLL(f.udp4, func(p uint16) []byte { return sll2Header(capture.PacketHost, 2, capture.ArphrdEther, nic, p) }),
		asSLL(f.arp, func(p uint16) []byte { return sll2Header(capture.PacketBroadcast, 2, capture.ArphrdEther, nic, p) }),
		llc,
		asSLL(multicast4, func(p uint16) []byte { return sll2Header(capture.PacketMulticast, 2, capture.ArphrdEther, nic, p) }),
		asSLL(f.vlan, func(p uint16) []byte { return sll2Header(capture.PacketOutgoing, 3, capture.ArphrdEther, nic, p) }),
		asSLL(f.tcp6, func(p uint16) []byte { return sll2Header(capture.PacketHost, 9, 65534, nil, p) }), // a tun device: no address
		make([]byte, 10), // shorter than the header
	}
	want := []struct {
		name     string
		dst, src net.HardwareAddr
		frame    []byte
	}{
		{"1:udp 10.0.0.1>10.0.0.2", destMAC, nic, f.udp4},
		{"2:arp", broadcastHW, nic, f.arp},
		{"4:udp 10.0.0.1>224.0.0.251", net.HardwareAddr{0x01, 0x00, 0x5e, 0, 0, 0xfb}, nic, multicast4},
		{"5:udp 10.0.0.1>10.0.0.2", destMAC, nic, f.vlan},
		{"6:tcp6 2001:db8::1>2001:db8::2", destMAC, sourceMAC, f.tcp6},
	}
	eth := ngInterfaceBlock(1)
	blocks := [][]byte{ngSectionBlock(), ngInterfaceBlock(capture.LinkLinuxSLL2), eth}
	for _, p := range packets {
		blocks = append(blocks, ngPacketBlock(0, p, uint32(len(p))))
	}
	blocks = append(blocks, ngPacketBlock(1, f.tcp4, uint32(len(f.tcp4))))
	classic := classicCapture(t, layers.LinkTypeEthernet, packets...)
	binary.LittleEndian.PutUint32(classic[20:], capture.LinkLinuxSLL2)
	for format, data := range map[string][]byte{"pcap": classic, "pcapng": bytes.Join(blocks, nil)} {
		cases, err := ParsePcap(format, bytes.NewReader(data), 0)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if format == "pcapng" {
			if len(cases) != len(want)+1 || cases[len(want)].Name != "8:tcp 10.0.0.1>10.0.0.2" || !bytes.Equal(cases[len(want)].Frame, f.tcp4) {
				t.Errorf("pcapng: the Ethernet interface's packet after the SLL2 ones: %d cases", len(cases))
			}
			cases = cases[:min(len(cases), len(want))]
		}
		if len(cases) != len(want) {
			t.Fatalf("%s: %d cases, want %d", format, len(cases), len(want))
		}
		for i, w := range want {
			c := cases[i]
			if c.Name != w.name || !bytes.Equal(c.Frame[:6], w.dst) || !bytes.Equal(c.Frame[6:12], w.src) || !bytes.Equal(c.Frame[12:], w.frame[12:]) {
				t.Errorf("%s: case %s: frame %x, want %s, MACs %s > %s", format, c.Name, c.Frame, w.name, w.src, w.dst)
			}
		}
		if !strings.Contains(cases[3].Summary, "ifindex 3, out") {
			t.Errorf("%s: summary %q", format, cases[3].Summary)
		}
	}
}
