package packets

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Each flow is another source address and port; the destination, the
// length and the payload stay; the checksums are valid; an ARP frame has
// no flow.
func TestFlows(t *testing.T) {
	cases, err := Select([]string{TCPSyn, UDPDNS, "ipv6-tcp-syn", "vlan-udp", NonIPv4})
	if err != nil {
		t.Fatal(err)
	}
	// A 54-byte TCP ACK, padded to 60: the padding follows the IP packet.
	padded, err := ParseFile("p.yaml", []byte("cases:\n  - name: ack\n    ipv4: {src: 192.0.2.10, dst: 198.51.100.1}\n    tcp: {src: 40000, dst: 80, flags: [ack]}\n"))
	if err != nil || len(padded[0].Frame) != 60 {
		t.Fatalf("padded: %v", err)
	}
	cases = append(cases, padded...)
	for _, c := range cases {
		frames, err := Flows(c, 300)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if string(frames[0]) != string(c.Frame) {
			t.Errorf("%s: flow 0 is not the case's frame", c.Name)
		}
		base := gopacket.NewPacket(c.Frame, layers.LayerTypeEthernet, gopacket.Default)
		seen := map[string]bool{}
		for i, f := range frames {
			pkt := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
			net, tr := pkt.NetworkLayer(), pkt.TransportLayer()
			if net == nil || tr == nil || pkt.ErrorLayer() != nil || len(f) != len(c.Frame) {
				t.Fatalf("%s flow %d: does not decode", c.Name, i)
			}
			key := net.NetworkFlow().Src().String() + " " + tr.TransportFlow().Src().String()
			if want := stepped(base, i); key != want {
				t.Errorf("%s flow %d: %s, want %s", c.Name, i, key, want)
			}
			if seen[key] {
				t.Errorf("%s flow %d: %s again", c.Name, i, key)
			}
			seen[key] = true
			if net.NetworkFlow().Dst() != base.NetworkLayer().NetworkFlow().Dst() || tr.TransportFlow().Dst() != base.TransportLayer().TransportFlow().Dst() ||
				string(tr.LayerPayload()) != string(base.TransportLayer().LayerPayload()) {
				t.Errorf("%s flow %d: its destination or payload changed", c.Name, i)
			}
			at, err := flowOffsets(f)
			if err != nil {
				t.Fatal(err)
			}
			if !at.v6 {
				ihl := int(f[at.ip]&0x0f) * 4
				if fold(sum(f[at.ip:at.ip+ihl], 0)) != 0 {
					t.Errorf("%s flow %d: bad IPv4 header checksum", c.Name, i)
				}
			}
			pseudo := sum(f[at.ip+12:at.ip+20], 0)
			if at.v6 {
				pseudo = sum(f[at.ip+8:at.ip+40], 0)
			}
			proto := uint32(6)
			if at.udp {
				proto = 17
			}
			if (!at.udp || at.checksumOK) && fold(sum(f[at.l4:at.l4+at.l4Len], pseudo+proto+uint32(at.l4Len))) != 0 {
				t.Errorf("%s flow %d: bad transport checksum", c.Name, i)
			}
		}
	}
	arp, err := Select([]string{ARP})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Flows(arp[0], 4); !errors.Is(err, ErrState) {
		t.Errorf("ARP: %v, want a bad map state", err)
	}
}

// stepped is the source address and port of base's flow i, as Flows
// steps them, written as gopacket writes a flow's source.
func stepped(base gopacket.Packet, i int) string {
	net, tr := base.NetworkLayer(), base.TransportLayer()
	var ip netip.Addr
	switch l := net.(type) {
	case *layers.IPv4:
		ip, _ = netip.AddrFromSlice(l.SrcIP.To4())
	case *layers.IPv6:
		ip, _ = netip.AddrFromSlice(l.SrcIP)
	}
	b := ip.AsSlice()
	n := binary.BigEndian.Uint32(b[len(b)-4:]) + uint32(i)
	binary.BigEndian.PutUint32(b[len(b)-4:], n)
	ip, _ = netip.AddrFromSlice(b)
	port := binary.BigEndian.Uint16(tr.LayerContents()[:2]) + uint16(i)
	return ip.String() + " " + strconv.Itoa(int(port))
}

// The frames of a flow differ from each other only where FlowPatch says.
func TestFlowPatch(t *testing.T) {
	cases, err := Select([]string{TCPSyn, UDPDNS, "ipv6-tcp-syn", "vlan-udp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		patch, err := FlowPatch(c.Frame)
		if err != nil {
			t.Fatal(err)
		}
		covered := map[int]bool{}
		for i, at := range patch {
			n := []int{4, 2, 2, 2}[i]
			for b := at; at > 0 && b < at+n; b++ {
				covered[b] = true
			}
		}
		frames, _ := Flows(c, 1000)
		for i, f := range frames {
			for b := range f {
				if f[b] != c.Frame[b] && !covered[b] {
					t.Fatalf("%s flow %d: byte %d differs outside the patch %v", c.Name, i, b, patch)
				}
			}
		}
	}
}
