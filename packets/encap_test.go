package packets

import (
	"bytes"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// The frames a packet file gives beyond one IP packet: ARP, QinQ and
// encapsulations decode, with gopacket, to the layers they were asked
// for, with every length and checksum right, inner ones too.
func TestParseFileEncapsulations(t *testing.T) {
	const (
		ip4 = "ipv4: {src: 192.0.2.1, dst: 198.51.100.1}"
		ip6 = "ipv6: {src: '2001:db8::1', dst: '2001:db8::2'}"
		udp = "udp: {src: 40000, dst: 53}"
		tcp = "tcp: {src: 40000, dst: 80, flags: [syn]}"
	)
	var (
		eth   = layers.LayerTypeEthernet
		v4    = layers.LayerTypeIPv4
		v6    = layers.LayerTypeIPv6
		pay   = gopacket.LayerTypePayload
		dot1q = layers.LayerTypeDot1Q
	)
	for _, tc := range []struct {
		name, fields, summary string
		layers                []gopacket.LayerType
		inner                 []gopacket.LayerType // what a GUE payload decodes to
		source                string
	}{
		{"arp request", "arp: {sender_ip: 192.0.2.10, target_ip: 192.0.2.1}", "arp request 192.0.2.10 > 192.0.2.1",
			[]gopacket.LayerType{eth, layers.LayerTypeARP, pay}, nil, ""},
		{"arp reply", "arp: {op: reply, sender_ip: 192.0.2.1, target_ip: 192.0.2.10, sender_mac: '02:00:00:00:00:09'}", "arp reply 192.0.2.1 > 192.0.2.10",
			[]gopacket.LayerType{eth, layers.LayerTypeARP, pay}, nil, ""},
		{"qinq", "eth: {vlan: [100, 200]}, " + ip4 + ", " + udp, "qinq 100,200 udp 192.0.2.1:40000 > 198.51.100.1:53",
			[]gopacket.LayerType{eth, dot1q, dot1q, v4, layers.LayerTypeUDP}, nil, "192.0.2.1"},
		{"ipip", "encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2}, " + ip4 + ", " + udp,
			"ipip 10.0.0.1 > 10.0.0.2, inner udp 192.0.2.1:40000 > 198.51.100.1:53",
			[]gopacket.LayerType{eth, v4, v4, layers.LayerTypeUDP}, nil, "10.0.0.1"},
		{"ipv6 in ipv4", "encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2, ttl: 3}, " + ip6 + ", " + tcp,
			"ipip 10.0.0.1 > 10.0.0.2, inner tcp6 [syn] [2001:db8::1]:40000 > [2001:db8::2]:80",
			[]gopacket.LayerType{eth, v4, v6, layers.LayerTypeTCP}, nil, "10.0.0.1"},
		{"ipv4 in ipv6, tagged", "eth: {vlan: 7}, encap: {type: ipip, src: '2001:db8::a', dst: '2001:db8::b'}, " + ip4 + ", " + tcp,
			"vlan 7 ipip 2001:db8::a > 2001:db8::b, inner tcp [syn] 192.0.2.1:40000 > 198.51.100.1:80",
			[]gopacket.LayerType{eth, dot1q, v6, v4, layers.LayerTypeTCP}, nil, "2001:db8::a"},
		{"gue", "encap: {type: gue, src: 10.0.0.1, dst: 10.0.0.2, sport: 1234}, " + ip6 + ", " + tcp,
			"gue 10.0.0.1:1234 > 10.0.0.2:6080, inner tcp6 [syn] [2001:db8::1]:40000 > [2001:db8::2]:80",
			[]gopacket.LayerType{eth, v4, layers.LayerTypeUDP, pay}, []gopacket.LayerType{v6, layers.LayerTypeTCP}, "10.0.0.1"},
		{"vxlan", "encap: {type: vxlan, src: '2001:db8::a', dst: '2001:db8::b', vni: 42}, " + ip4 + ", " + udp,
			"vxlan 42 [2001:db8::a]:40000 > [2001:db8::b]:4789, inner udp 192.0.2.1:40000 > 198.51.100.1:53",
			[]gopacket.LayerType{eth, v6, layers.LayerTypeUDP, layers.LayerTypeVXLAN, eth, v4, layers.LayerTypeUDP}, nil, "2001:db8::a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := ParseFile("t.yaml", []byte("cases: [{name: x, "+tc.fields+"}]"))
			if err != nil {
				t.Fatal(err)
			}
			c := cases[0]
			if c.Summary != tc.summary || addrString(c.Source) != tc.source {
				t.Errorf("summary %q from %q, want %q from %q", c.Summary, addrString(c.Source), tc.summary, tc.source)
			}
			if got := layerTypes(c.Frame, eth); !slices.Equal(got, tc.layers) {
				t.Fatalf("layers %v, want %v", got, tc.layers)
			}
			if len(c.Frame) < 60 {
				t.Errorf("%d bytes", len(c.Frame))
			}
			if again := reserialized(t, c.Frame); !bytes.Equal(again, c.Frame) {
				t.Errorf("lengths or checksums wrong:\n got %x\nwant %x", c.Frame, again)
			}
			if tc.inner == nil {
				return
			}
			pkt := gopacket.NewPacket(c.Frame, eth, gopacket.Default)
			udp := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
			if got := layerTypes(udp.Payload, v6); !slices.Equal(got, tc.inner) {
				t.Errorf("GUE payload: layers %v, want %v", got, tc.inner)
			}
			inner := gopacket.NewPacket(udp.Payload, v6, gopacket.Default)
			checkChecksums(t, inner)
		})
	}
}

// What ARP, QinQ and VXLAN put in their headers.
func TestParseFileHeaderFields(t *testing.T) {
	cases, err := ParseFile("t.yaml", []byte(lines(
		"cases:",
		"  - name: who-has",
		"    arp: {sender_ip: 192.0.2.10, target_ip: 192.0.2.1}",
		"  - name: is-at",
		"    eth: {dst: '02:00:00:00:00:07'}",
		"    arp: {op: 2, sender_ip: 192.0.2.1, target_ip: 192.0.2.10}",
		"  - name: qinq",
		"    eth: {vlan: [100, 200]}",
		"    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}",
		"  - name: vxlan",
		"    encap: {type: vxlan, src: 10.0.0.1, dst: 10.0.0.2, vni: 0xabcdef, dport: 8472}",
		"    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}",
	)))
	if err != nil {
		t.Fatal(err)
	}
	decoded := func(i int) gopacket.Packet {
		return gopacket.NewPacket(cases[i].Frame, layers.LayerTypeEthernet, gopacket.Default)
	}

	req := decoded(0)
	if eth := req.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); !bytes.Equal(eth.DstMAC, broadcastHW) || eth.EthernetType != layers.EthernetTypeARP {
		t.Errorf("request: Ethernet %s > %s type %s", eth.SrcMAC, eth.DstMAC, eth.EthernetType)
	}
	if arp := req.Layer(layers.LayerTypeARP).(*layers.ARP); arp.Operation != layers.ARPRequest ||
		!bytes.Equal(arp.SourceHwAddress, sourceMAC) || !bytes.Equal(arp.DstHwAddress, make([]byte, 6)) ||
		!net.IP(arp.SourceProtAddress).Equal(net.IPv4(192, 0, 2, 10)) || !net.IP(arp.DstProtAddress).Equal(net.IPv4(192, 0, 2, 1)) {
		t.Errorf("request: %+v", arp)
	}
	reply := decoded(1).Layer(layers.LayerTypeARP).(*layers.ARP)
	if reply.Operation != layers.ARPReply || !bytes.Equal(reply.DstHwAddress, []byte{2, 0, 0, 0, 0, 7}) || cases[1].Summary != "arp reply 192.0.2.1 > 192.0.2.10" {
		t.Errorf("reply: %+v, %q", reply, cases[1].Summary)
	}

	q := decoded(2)
	tags := []*layers.Dot1Q{}
	for _, l := range q.Layers() {
		if tag, ok := l.(*layers.Dot1Q); ok {
			tags = append(tags, tag)
		}
	}
	if eth := q.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); eth.EthernetType != layers.EthernetTypeQinQ || len(tags) != 2 ||
		tags[0].VLANIdentifier != 100 || tags[0].Type != layers.EthernetTypeDot1Q || tags[1].VLANIdentifier != 200 || tags[1].Type != layers.EthernetTypeIPv4 {
		t.Errorf("qinq: type %s, tags %+v", eth.EthernetType, tags)
	}

	// Port 8472 is no VXLAN to gopacket: decode the UDP payload as such.
	udp := decoded(3).Layer(layers.LayerTypeUDP).(*layers.UDP)
	vx := gopacket.NewPacket(udp.Payload, layers.LayerTypeVXLAN, gopacket.Default)
	if v, ok := vx.Layer(layers.LayerTypeVXLAN).(*layers.VXLAN); !ok || udp.DstPort != 8472 || v.VNI != 0xabcdef || !v.ValidIDFlag {
		t.Errorf("vxlan: port %d, %+v", udp.DstPort, v)
	}
	if inner, ok := vx.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); !ok || inner.EthernetType != layers.EthernetTypeIPv4 || len(inner.Contents) != 14 {
		t.Errorf("vxlan inner Ethernet: %+v", inner)
	}
}

func TestParseFileEncapErrors(t *testing.T) {
	const ip4 = "    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}"
	for _, tc := range []struct{ name, yaml, want string }{
		{"encap without ip", lines("cases:", "  - name: a", "    encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2}", "    eth: {type: 0x88b5}"),
			`t.yaml:3: cases[0].encap: needs an inner ipv4 or ipv6 packet`},
		{"unknown encap", lines("cases:", "  - name: a", ip4, "    encap: {type: gre, src: 10.0.0.1, dst: 10.0.0.2}"),
			`t.yaml:4: cases[0].encap.type: "gre" is not an encapsulation (known: ipip, gue, vxlan)`},
		{"vni of gue", lines("cases:", "  - name: a", ip4, "    encap: {type: gue, src: 10.0.0.1, dst: 10.0.0.2, vni: 1}"),
			`t.yaml:4: cases[0].encap.vni: not a field of gue`},
		{"port of ipip", lines("cases:", "  - name: a", ip4, "    encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2, dport: 1}"),
			`t.yaml:4: cases[0].encap.dport: not a field of ipip`},
		{"mixed families", lines("cases:", "  - name: a", ip4, "    encap: {type: ipip, src: 10.0.0.1, dst: '2001:db8::1'}"),
			`t.yaml:4: cases[0].encap.dst: 10.0.0.1 and 2001:db8::1 are not of one IP version`},
		{"vni too big", lines("cases:", "  - name: a", ip4, "    encap: {type: vxlan, src: 10.0.0.1, dst: 10.0.0.2, vni: 0x1000000}"),
			`t.yaml:4: cases[0].encap.vni: "0x1000000" is not a number in 0..16777215`},
		{"arp and ipv4", lines("cases:", "  - name: a", ip4, "    arp: {sender_ip: 192.0.2.1, target_ip: 192.0.2.2}"),
			`t.yaml:4: cases[0]: give arp or an IP header, not both`},
		{"arp and udp", lines("cases:", "  - name: a", "    arp: {sender_ip: 192.0.2.1, target_ip: 192.0.2.2}", "    udp: {src: 1, dst: 2}"),
			`t.yaml:4: cases[0].udp: needs ipv4 or ipv6`},
		{"arp ipv6", lines("cases:", "  - name: a", "    arp: {sender_ip: '2001:db8::1', target_ip: 192.0.2.2}"),
			`t.yaml:3: cases[0].arp.sender_ip: "2001:db8::1" is not an IPv4 address`},
		{"arp op", lines("cases:", "  - name: a", "    arp: {op: ask, sender_ip: 192.0.2.1, target_ip: 192.0.2.2}"),
			`t.yaml:3: cases[0].arp.op: "ask" is neither request, reply nor a number`},
		{"arp ethertype", lines("cases:", "  - name: a", "    eth: {type: 0x0806}", "    arp: {sender_ip: 192.0.2.1, target_ip: 192.0.2.2}"),
			`t.yaml:3: cases[0].eth.type: set by ipv4/ipv6/arp`},
		{"three tags", lines("cases:", "  - name: a", "    eth: {vlan: [1, 2, 3]}", ip4),
			`t.yaml:3: cases[0].eth.vlan: want one or two VLAN IDs (QinQ: outer, inner), not 3`},
		{"inner tag out of range", lines("cases:", "  - name: a", "    eth: {vlan: [1, 4095]}", ip4),
			`t.yaml:3: cases[0].eth.vlan[1]: "4095" is not a number in 0..4094`},
		{"ctx not a mapping", lines("cases:", "  - name: a", "    ctx: mark", ip4),
			`t.yaml:3: cases[0].ctx: want a mapping of context fields`},
		{"ctx value", lines("cases:", "  - name: a", "    ctx: {mark: lots}", ip4),
			`t.yaml:3: cases[0].ctx.mark: mark="lots": not a number`},
		{"ctx field twice", lines("cases:", "  - name: a", "    ctx: {cb: [1], 'cb[0]': 2}", ip4),
			`t.yaml:3: cases[0].ctx.cb[0]: cb[0] given twice`},
		{"ctx no such device", lines("cases:", "  - name: a", "    ctx:", "      ingress_ifindex: no-such-device0", ip4),
			`t.yaml:4: cases[0].ctx.ingress_ifindex: ingress_ifindex="no-such-device0": neither a number nor a network interface here`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile("t.yaml", []byte(tc.yaml))
			if !errors.Is(err, ErrPacketFile) || !strings.HasPrefix(fmtErr(err), tc.want) {
				t.Errorf("got  %v\nwant %s...", err, tc.want)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// A case's ctx and --ctx: names and values as given, arrays by element,
// interfaces by name; a case's own fields over those given for all.
func TestContext(t *testing.T) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Skip("no loopback interface:", err)
	}
	all, err := ParseContext(" mark=0x2a, priority=3,cb4=9,cb[1]=2,IFINDEX=lo")
	if err != nil {
		t.Fatal(err)
	}
	if want := "mark=0x2a,priority=3,cb[4]=9,cb[1]=2,ifindex=1 (lo)"; all.String() != want || lo.Index != 1 {
		t.Errorf("%s, want %s", all, want)
	}
	cases, err := ParseFile("t.yaml", []byte(lines(
		"cases:",
		"  - name: a",
		"    ctx: {mark: 7, cb: [5, 6], ingress_ifindex: lo}",
		"    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}",
		"  - name: b",
		"    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}",
	)))
	if err != nil {
		t.Fatal(err)
	}
	if got := cases[0].Context.String(); got != "mark=7,cb[0]=5,cb[1]=6,ingress_ifindex=1 (lo)" {
		t.Errorf("case a: %s", got)
	}
	merged := WithContext(cases, all)
	if got := merged[0].Context.String(); got != "mark=7,priority=3,cb[4]=9,cb[1]=6,ifindex=1 (lo),cb[0]=5,ingress_ifindex=1 (lo)" {
		t.Errorf("case a with --ctx: %s", got)
	}
	if got := merged[1].Context.String(); got != all.String() {
		t.Errorf("case b with --ctx: %s", got)
	}
	if cases[1].Context != nil {
		t.Error("WithContext changed the cases it was given")
	}
	if v, ok := merged[0].Context.Get("mark"); !ok || v != 7 {
		t.Errorf("mark %d %v", v, ok)
	}
	for _, bad := range []string{"", "mark", "mark=", "mark=1,mark=2", "ma rk=1", "mark=-1", "tstamp=0x10000000000000000", "ifindex=no-such-device0"} {
		if _, err := ParseContext(bad); !errors.Is(err, ErrContext) {
			t.Errorf("%q: %v, want ErrContext", bad, err)
		}
	}
}
