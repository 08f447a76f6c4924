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
		set, err := NewFlowSet(c, 300)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var frames [][]byte
		for i := range set.N() {
			frames = append(frames, set.Frame(i))
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
	if _, err := NewFlowSet(arp[0], 4); !errors.Is(err, ErrState) {
		t.Errorf("ARP: %v, want a bad map state", err)
	}
	for _, n := range []int{0, MaxFlows + 1} {
		if _, err := NewFlowSet(cases[0], n); !errors.Is(err, ErrState) {
			t.Errorf("%d flows: %v, want a bad map state", n, err)
		}
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

// flowIndexes are flows worth checking in a set of MaxFlows: the first,
// around each wrap of the port's 16 bits, and the last.
var flowIndexes = []int{0, 1, 2, 255, 256, 65534, 65535, 65536, 65537, 131071, 131072, 1_000_003, 9_999_999, MaxFlows - 2, MaxFlows - 1}

// flowCases are the frames the restorer patches: IPv4 TCP and UDP, UDP
// whose checksum is zero (it stays so), IPv6, a VLAN tag, and addresses
// and ports about to wrap (a UDP checksum that comes to zero is written
// 0xffff on the way).
func flowCases(t *testing.T) []Case {
	t.Helper()
	cases, err := Select([]string{TCPSyn, UDPDNS, "ipv6-tcp-syn", "vlan-udp", NonIPv4})
	if err != nil {
		t.Fatal(err)
	}
	file, err := ParseFile("p.yaml", []byte(`cases:
  - name: wrap-tcp
    ipv4: {src: 255.255.255.250, dst: 198.51.100.1}
    tcp: {src: 65530, dst: 80, flags: [ack]}
  - name: wrap-udp
    ipv4: {src: 10.255.255.255, dst: 198.51.100.1}
    udp: {src: 65535, dst: 53}
    payload: {hex: "0000ffff"}
  - name: wrap-udp6
    ipv6: {src: "2001:db8::ffff:fff0", dst: "2001:db8::1"}
    udp: {src: 65000, dst: 53}
`))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, file...)
	// The DNS query with its UDP checksum zeroed: none, which stays none.
	zero := cases[1]
	zero.Name, zero.Frame = "udp-zero", append([]byte(nil), zero.Frame...)
	at, err := flowOffsets(zero.Frame)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint16(zero.Frame[at.l4+6:], 0)
	return append(cases, zero)
}

// The restorer's arithmetic (restore.c's put_flow), here, makes from a
// set's Patch and the case's frame the frames Frame makes, byte for byte,
// past every wrap: the checksums updated by RFC 1624 are those made anew.
// The kernel's own is held to the same in testrun (TestRestorerMakesFlows).
func TestFlowPatch(t *testing.T) {
	for _, c := range flowCases(t) {
		set, err := NewFlowSet(c, MaxFlows)
		if err != nil {
			t.Fatal(err)
		}
		p := set.Patch()
		if c.Name == "udp-zero" && p.At[3] != 0 {
			t.Errorf("udp-zero: patches its checksum at %d, want it left zero", p.At[3])
		}
		indexes := append(append([]int(nil), flowIndexes...), edgeFlows(set, p)...)
		for i := 3; i < 200_000; i += 997 {
			indexes = append(indexes, i)
		}
		for _, i := range indexes {
			want := set.Frame(i)
			got := append([]byte(nil), c.Frame...)
			putFlow(got, p, uint32(i))
			if string(got) != string(want) {
				t.Fatalf("%s flow %d: the patched frame differs (%s)", c.Name, i, Changes(want, got))
			}
		}
	}
}

// edgeFlows are the first flows of a set whose checksums are a ones'
// complement zero, 0x0000 or 0xffff, where an incremental update could
// differ from one made anew: about one flow in 2^15 has one.
func edgeFlows(set *FlowSet, p FlowPatch) []int {
	var found []int
	seen := map[[2]uint16]bool{}
	var f []byte
	for i := range min(set.N(), 1<<20) {
		f = set.Into(f, i)
		for k := 2; k < 4; k++ {
			if at := p.At[k]; at != 0 {
				v := binary.BigEndian.Uint16(f[at:])
				if (v == 0 || v == 0xffff) && !seen[[2]uint16{uint16(k), v}] {
					seen[[2]uint16{uint16(k), v}] = true
					found = append(found, i)
				}
			}
		}
	}
	return found
}

// putFlow is restore.c's put_flow in Go.
func putFlow(f []byte, p FlowPatch, i uint32) {
	fold := func(s uint32) uint16 {
		s = s&0xffff + s>>16
		return uint16(s&0xffff + s>>16)
	}
	addr, port := p.Addr+i, p.Port+uint16(i)
	delta := (^p.Addr)>>16 + (^p.Addr)&0xffff + addr>>16 + addr&0xffff
	ip := ^fold(uint32(^p.IPCheck) + delta)
	l4 := ^fold(uint32(^p.L4Check) + delta + uint32(^p.Port) + uint32(port))
	if p.UDP && l4 == 0 {
		l4 = 0xffff
	}
	for k, v := range []uint32{addr, uint32(port), uint32(ip), uint32(l4)} {
		switch at := p.At[k]; {
		case at == 0:
		case k == 0:
			binary.BigEndian.PutUint32(f[at:], v)
		default:
			binary.BigEndian.PutUint16(f[at:], uint16(v))
		}
	}
}

// Flow is a set's Frame; flows past the last are refused.
func TestFlow(t *testing.T) {
	c := flowCases(t)[0]
	set, err := NewFlowSet(c, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 7} {
		f, err := Flow(c, i)
		if err != nil || string(f) != string(set.Frame(i)) {
			t.Errorf("flow %d: %v, or another frame than the set's", i, err)
		}
	}
	for _, i := range []int{-1, MaxFlows} {
		if _, err := Flow(c, i); !errors.Is(err, ErrState) {
			t.Errorf("flow %d: %v, want a bad map state", i, err)
		}
	}
}

// Each checksum a frame's flows update meets its ones' complement zero
// among their first 2^20, so that TestFlowPatch checks every one of them.
func TestEdgeFlowsFound(t *testing.T) {
	for _, c := range flowCases(t) {
		set, err := NewFlowSet(c, MaxFlows)
		if err != nil {
			t.Fatal(err)
		}
		p := set.Patch()
		want := 0
		for _, at := range p.At[2:] {
			if at != 0 {
				want++
			}
		}
		if got := edgeFlows(set, p); len(got) != want {
			t.Errorf("%s: flows %v have a checksum of zero, want one for each of %d checksums", c.Name, got, want)
		}
	}
}
