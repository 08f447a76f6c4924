package worst

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/xdpmicro/xdpmicro/packets"
)

// Every built-in case but the one cut short reads into a shape that
// builds back into the same bytes: the search starts from the packets
// themselves, not from approximations of them.
func TestShapesRebuildTheSeeds(t *testing.T) {
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder()
	for _, c := range seeds {
		s, ok := shapeOf(c.Frame)
		if c.Name == packets.Short {
			if ok {
				t.Errorf("%s: read as a shape, though cut inside its IPv4 header", c.Name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not read as a shape", c.Name)
			continue
		}
		frame, err := b.build(s)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if !bytes.Equal(frame, c.Frame) {
			t.Errorf("%s: rebuilt as\n%x, want\n%x", c.Name, frame, c.Frame)
		}
	}
}

// Shapes of every layer the search knows build into frames that gopacket
// decodes back, with the lengths and checksums it checks.
func TestShapesBuildValidFrames(t *testing.T) {
	base := shape{src: [6]byte{2, 0, 0, 0, 0, 1}, dst: [6]byte{2, 0, 0, 0, 0, 2}, ip4: defaultIPv4, ip6: defaultIPv6,
		tcp: defaultTCP, udp: udpHeader{sport: 40000, dport: 9}, arp: defaultARP, payload: []byte("hello")}
	type check func(gopacket.Packet) bool
	has := func(lt gopacket.LayerType) check { return func(p gopacket.Packet) bool { return p.Layer(lt) != nil } }
	for _, tc := range []struct {
		name   string
		change func(*shape)
		want   []check
	}{
		{"qinq tcp with options", func(s *shape) {
			s.vlans = []uint16{100, 200}
			s.l4, s.tcp.flags = l4TCP, 0x022
			s.tcp.options = []option{{kind: 2, data: []byte{5, 0xb4}}, {kind: 1}, {kind: 3, data: []byte{7}}}
		}, []check{has(layers.LayerTypeDot1Q), func(p gopacket.Packet) bool {
			tcp, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
			return tcp != nil && tcp.URG && tcp.DataOffset == 7 && string(tcp.Payload) == "hello"
		}}},
		{"ipv4 options and a fragment", func(s *shape) {
			s.l4, s.ip4.flags, s.ip4.fragOff = l4UDP, 1, 3
			s.ip4.options = []option{{kind: 148, data: []byte{0, 0}}, {kind: 1}}
		}, []check{func(p gopacket.Packet) bool {
			ip, _ := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
			return ip != nil && ip.IHL == 7 && ip.FragOffset == 3 && ip.Flags&layers.IPv4MoreFragments != 0
		}}},
		{"ipv6 extension headers", func(s *shape) {
			s.net, s.l4 = netIPv6, l4ICMP
			s.ip6.ext = []extension{{proto: 0, data: make([]byte, 6)}, {proto: 60, data: make([]byte, 14)}, {proto: 44, data: []byte{0, 1, 0, 0, 0, 7}}}
		}, []check{has(layers.LayerTypeIPv6HopByHop), has(layers.LayerTypeIPv6Destination), has(layers.LayerTypeIPv6Fragment)}},
		{"vxlan", func(s *shape) {
			s.l4, s.encap = l4UDP, outer{kind: encapVXLAN, ttl: 64, src: [16]byte{10, 0, 0, 1}, dst: [16]byte{10, 0, 0, 2}, sport: 1, dport: vxlanPort, vni: 42}
		}, []check{func(p gopacket.Packet) bool {
			vx, _ := p.Layer(layers.LayerTypeVXLAN).(*layers.VXLAN)
			return vx != nil && vx.VNI == 42
		}}},
		{"ipip over ipv6", func(s *shape) {
			s.l4, s.encap = l4TCP, outer{kind: encapIPIP, v6: true, ttl: 64, src: defaultIPv6.src, dst: defaultIPv6.dst}
		}, []check{has(layers.LayerTypeIPv6), has(layers.LayerTypeIPv4), has(layers.LayerTypeTCP)}},
		{"arp", func(s *shape) { s.net = netARP }, []check{has(layers.LayerTypeARP)}},
		{"padded", func(s *shape) { s.l4, s.size = l4UDP, 512 }, []check{func(p gopacket.Packet) bool { return len(p.Data()) == 512 }}},
	} {
		s := base.clone()
		tc.change(s)
		frame, err := newBuilder().build(s)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		if e := pkt.ErrorLayer(); e != nil {
			t.Errorf("%s: %v\n%x", tc.name, e.Error(), frame)
		}
		for i, ok := range tc.want {
			if !ok(pkt) {
				t.Errorf("%s: check %d failed on %s", tc.name, i, pkt)
			}
		}
		if ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ip != nil && tc.name != "ipip over ipv6" {
			if sum := checksum16(ip.Contents); sum != 0 && sum != 0xffff {
				t.Errorf("%s: IPv4 header checksum does not add up: %#x", tc.name, sum)
			}
		}
	}
}

func checksum16(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return uint16(sum)
}

// A clone is a copy: changing it leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	s := &shape{vlans: []uint16{1}, payload: []byte{1}, ip4: ipv4Header{options: []option{{7, []byte{1}}}},
		ip6: ipv6Header{ext: []extension{{60, []byte{1}}}}, tcp: tcpHeader{options: []option{{2, []byte{1}}}}}
	c := s.clone()
	c.vlans[0], c.payload[0], c.ip4.options[0].data[0], c.ip6.ext[0].data[0], c.tcp.options[0].data[0] = 9, 9, 9, 9, 9
	if s.vlans[0] != 1 || s.payload[0] != 1 || s.ip4.options[0].data[0] != 1 || s.ip6.ext[0].data[0] != 1 || s.tcp.options[0].data[0] != 1 {
		t.Errorf("changing the clone changed the original: %+v", s)
	}
}
