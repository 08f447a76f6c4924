package packets

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// The example file is documentation: it must parse, and each of its cases
// must be the frame its comments describe.
func TestExampleFile(t *testing.T) {
	cases, err := ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, summary, expect string
		source                string // "" for none
		layers                []gopacket.LayerType
		vlan                  int // -1 when untagged
		payload               int // bytes after the transport header
	}{
		{"dns-query", "udp 192.0.2.1:40000 > 198.51.100.1:53", "XDP_PASS", "192.0.2.1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, layers.LayerTypeDNS}, -1, 29},
		{"syn-ack-v6", "vlan 100 tcp6 [syn,ack] [2001:db8::1]:40000 > [2001:db8::2]:80", "XDP_PASS", "2001:db8::1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeIPv6, layers.LayerTypeTCP}, 100, 0},
		{"ping", "icmp echo-request 192.0.2.4 > 198.51.100.1", "2", "192.0.2.4",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeICMPv4, gopacket.LayerTypePayload}, -1, 5},
		{"ping6", "icmp6 echo-reply 2001:db8::1 > 2001:db8::2", "", "2001:db8::1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeICMPv6, layers.LayerTypeICMPv6Echo}, -1, 56},
		{"lldp", "ethertype 0x88cc", "", "",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeLinkLayerDiscovery, layers.LayerTypeLinkLayerDiscoveryInfo}, -1, 0},
		{"who-has", "arp request 192.0.2.10 > 192.0.2.1", "", "",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeARP, gopacket.LayerTypePayload}, -1, 0},
		{"qinq-dns", "qinq 100,200 udp 192.0.2.1:40000 > 198.51.100.1:53", "", "192.0.2.1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP}, 100, 0},
		{"ipip-syn", "ipip 10.0.0.1 > 10.0.0.2, inner tcp [syn] 192.0.2.1:40000 > 198.51.100.1:80", "", "10.0.0.1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeIPv4, layers.LayerTypeTCP}, -1, 0},
		{"gue-syn6", "gue [2001:db8::a]:1234 > [2001:db8::b]:6080, inner tcp6 [syn] [2001:db8::1]:40000 > [2001:db8::2]:80", "", "2001:db8::a",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeUDP, gopacket.LayerTypePayload}, -1, 60},
		{"vxlan-dns", "vxlan 42 10.0.0.1:40000 > 10.0.0.2:4789, inner udp 192.0.2.1:40000 > 198.51.100.1:53", "", "10.0.0.1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, layers.LayerTypeVXLAN,
				layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP}, -1, 50},
		{"marked-syn", "tcp [syn] 192.0.2.1:40000 > 198.51.100.1:80", "", "192.0.2.1",
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeTCP}, -1, 0},
	}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for i, w := range want {
		c := cases[i]
		t.Run(w.name, func(t *testing.T) {
			if c.Name != w.name || c.Summary != w.summary || c.Expect != w.expect {
				t.Errorf("got %q %q %q, want %q %q %q", c.Name, c.Summary, c.Expect, w.name, w.summary, w.expect)
			}
			if got := addrString(c.Source); got != w.source {
				t.Errorf("source %q, want %q", got, w.source)
			}
			pkt := decode(t, c.Frame)
			var got []gopacket.LayerType
			for _, l := range pkt.Layers() {
				got = append(got, l.LayerType())
			}
			if !slices.Equal(got, w.layers) {
				t.Errorf("layers %v, want %v", got, w.layers)
			}
			vlan := -1
			if tag, ok := pkt.Layer(layers.LayerTypeDot1Q).(*layers.Dot1Q); ok {
				vlan = int(tag.VLANIdentifier)
			}
			if vlan != w.vlan {
				t.Errorf("vlan %d, want %d", vlan, w.vlan)
			}
			if payload := transportPayload(pkt); payload != w.payload {
				t.Errorf("payload %d bytes, want %d", payload, w.payload)
			}
			checkChecksums(t, pkt)
		})
	}
}

// The example's ctx, as given.
func TestExampleFileContext(t *testing.T) {
	cases, err := ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		want := ""
		if c.Name == "marked-syn" {
			want = "mark=0x2a,priority=3,cb[0]=1,cb[1]=2"
		}
		if got := c.Context.String(); got != want {
			t.Errorf("%s: context %q, want %q", c.Name, got, want)
		}
	}
}

// transportPayload is the length of what follows the UDP, TCP or ICMP
// header, whatever gopacket decoded it as.
func transportPayload(pkt gopacket.Packet) int {
	for _, l := range pkt.Layers() {
		switch l.LayerType() {
		case layers.LayerTypeUDP, layers.LayerTypeTCP, layers.LayerTypeICMPv4:
			return len(l.LayerPayload())
		case layers.LayerTypeICMPv6:
			// gopacket's ICMPv6Echo drops what follows its id and seq.
			return len(l.LayerPayload()) - 4
		}
	}
	return 0
}

func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// decode decodes a frame, failing on any layer gopacket cannot decode.
func decode(t *testing.T, frame []byte) gopacket.Packet {
	t.Helper()
	if len(frame) < 60 {
		t.Errorf("frame is %d bytes, less than the Ethernet minimum", len(frame))
	}
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if fail := pkt.ErrorLayer(); fail != nil {
		t.Fatalf("decode: %v", fail.Error())
	}
	return pkt
}

// checkChecksums verifies the IPv4 header checksum and the transport's,
// with its pseudo-header: gopacket 1.1.19 has no VerifyChecksum.
func checkChecksums(t *testing.T, pkt gopacket.Packet) {
	t.Helper()
	var pseudo, segment []byte
	var proto layers.IPProtocol
	switch ip := pkt.NetworkLayer().(type) {
	case nil:
		return
	case *layers.IPv4:
		if sum := onesComplement(ip.Contents); sum != 0xffff {
			t.Errorf("IPv4 header checksum invalid (sum %#x)", sum)
		}
		segment, proto = ip.Payload, ip.Protocol
		pseudo = slices.Concat(ip.SrcIP.To4(), ip.DstIP.To4(), []byte{0, byte(proto)},
			binary.BigEndian.AppendUint16(nil, uint16(len(segment))))
		if proto == layers.IPProtocolICMPv4 {
			pseudo = nil // ICMPv4 sums the message alone
		}
	case *layers.IPv6:
		segment, proto = ip.Payload, ip.NextHeader
		pseudo = slices.Concat(ip.SrcIP.To16(), ip.DstIP.To16(),
			binary.BigEndian.AppendUint32(nil, uint32(len(segment))), []byte{0, 0, 0, byte(proto)})
	}
	switch proto {
	case layers.IPProtocolNoNextHeader:
		return
	case layers.IPProtocolIPv4: // IPIP: check the inner packet
		checkChecksums(t, gopacket.NewPacket(segment, layers.LayerTypeIPv4, gopacket.Default))
		return
	case layers.IPProtocolIPv6:
		checkChecksums(t, gopacket.NewPacket(segment, layers.LayerTypeIPv6, gopacket.Default))
		return
	}
	data := slices.Concat(pseudo, segment)
	if len(data)%2 != 0 {
		data = append(data, 0) // onesComplement sums whole 16-bit words
	}
	if sum := onesComplement(data); sum != 0xffff {
		t.Errorf("%s checksum invalid (sum %#x)", proto, sum)
	}
}

// Frames not in the example: each transport over the other IP version,
// numeric ICMP types, IP alone, and the default MACs.
func TestParseFileFrames(t *testing.T) {
	const (
		ip4 = "ipv4: {src: 192.0.2.1, dst: 198.51.100.1}"
		ip6 = "ipv6: {src: '2001:db8::1', dst: '2001:db8::2'}"
	)
	for _, tc := range []struct{ fields, summary string }{
		{ip6 + ", udp: {src: 1, dst: 2}", "udp6 [2001:db8::1]:1 > [2001:db8::2]:2"},
		{ip4 + ", tcp: {src: 1, dst: 2, flags: [ACK, fin]}", "tcp [fin,ack] 192.0.2.1:1 > 198.51.100.1:2"},
		{ip4 + ", icmp: {type: 3, code: 1}", "icmp type 3 code 1 192.0.2.1 > 198.51.100.1"},
		{ip6 + ", icmp: {type: 128}", "icmp6 echo-request 2001:db8::1 > 2001:db8::2"},
		{ip4, "ipv4 192.0.2.1 > 198.51.100.1"},
		// gopacket takes an empty IPv6 payload for a jumbogram's: give it one.
		{ip6 + ", payload: {size: 1}", "ipv6 2001:db8::1 > 2001:db8::2"},
	} {
		t.Run(tc.summary, func(t *testing.T) {
			cases, err := ParseFile("t.yaml", []byte("cases: [{name: x, "+tc.fields+"}]"))
			if err != nil {
				t.Fatal(err)
			}
			if cases[0].Summary != tc.summary {
				t.Errorf("summary %q, want %q", cases[0].Summary, tc.summary)
			}
			pkt := decode(t, cases[0].Frame)
			eth := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
			if eth.SrcMAC.String() != sourceMAC.String() || eth.DstMAC.String() != destMAC.String() {
				t.Errorf("MACs %s > %s, want the defaults", eth.SrcMAC, eth.DstMAC)
			}
			checkChecksums(t, pkt)
		})
	}
}

func TestParseFileJSON(t *testing.T) {
	const doc = `{
	"cases": [
		{
			"name": "json",
			"expect": "tc_act_shot",
			"eth": {"vlan": 7},
			"ipv4": {"src": "192.0.2.9", "dst": "198.51.100.1", "ttl": 1},
			"udp": {"src": 40000, "dst": 9},
			"payload": {"hex": "00ff"}
		}
	]
}`
	cases, err := ParseFile("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	if c.Expect != "TC_ACT_SHOT" || c.Summary != "vlan 7 udp 192.0.2.9:40000 > 198.51.100.1:9" || c.Source.String() != "192.0.2.9" {
		t.Errorf("got %+v", c)
	}
	pkt := decode(t, c.Frame)
	if ip := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ip.TTL != 1 {
		t.Errorf("ttl %d, want 1", ip.TTL)
	}
	if app := pkt.ApplicationLayer(); app == nil || string(app.Payload()) != "\x00\xff" {
		t.Errorf("payload %v, want 00ff", app)
	}
	checkChecksums(t, pkt)
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile("testdata/no-such-file.yaml")
	if !errors.Is(err, ErrPacketFile) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want ErrPacketFile and fs.ErrNotExist", err)
	}
}

// lines joins YAML lines, so that a test's line numbers can be counted.
func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

// Every error names the file, line and field: a user must find the typo
// without reading the parser.
func TestParseFileErrors(t *testing.T) {
	const ip4 = "    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"empty file", ``, `t.yaml:1: empty file`},
		{"syntax", lines("cases:", "  - name: a: b"), `t.yaml:2: mapping values are not allowed`},
		{"two documents", lines("cases: []", "---", "cases: []"), `t.yaml:2: more than one YAML document`},
		{"not a mapping", lines("- a"), `t.yaml:1: want a mapping with fields cases`},
		{"no cases", lines("other: 1"), `t.yaml:1: unknown field "other" (known: cases)`},
		{"empty case list", lines("cases: []"), `t.yaml:1: cases: no case given`},
		{"cases not a list", lines("cases: {}"), `t.yaml:1: cases: want a list`},
		{"unknown case field", lines("cases:", "  - name: a", "    ipv44: {}"),
			`t.yaml:3: cases[0]: unknown field "ipv44"`},
		{"unknown nested field", lines("cases:", "  - name: a", "    ipv4:", "      scr: 192.0.2.1"),
			`t.yaml:4: cases[0].ipv4: unknown field "scr" (known: src, dst, ttl)`},
		{"field twice", lines("cases:", "  - name: a", "    name: b"), `t.yaml:3: cases[0].name: given twice`},
		{"missing name", lines("cases:", "  - expect: XDP_PASS", ip4), `t.yaml:2: cases[0].name: required`},
		{"bad name", lines("cases:", "  - name: Dns Query", ip4), `t.yaml:2: cases[0].name: "Dns Query" is not a case name`},
		{"duplicate names", lines("cases:", "  - name: a", ip4, "  - name: b", ip4, "  - name: a", ip4),
			`t.yaml:6: cases[2].name: "a" already names cases[0]`},
		{"bad expect", lines("cases:", "  - name: a", "    expect: PASS", ip4),
			`t.yaml:3: cases[0].expect: "PASS" is neither`},
		{"bad ipv4", lines("cases:", "  - name: a", "    ipv4: {src: 10.0.0.300, dst: 198.51.100.1}"),
			`t.yaml:3: cases[0].ipv4.src: "10.0.0.300" is not an IPv4 address`},
		{"ipv6 in ipv4", lines("cases:", "  - name: a", "    ipv4: {src: 192.0.2.1, dst: '2001:db8::1'}"),
			`t.yaml:3: cases[0].ipv4.dst: "2001:db8::1" is not an IPv4 address`},
		{"missing dst", lines("cases:", "  - name: a", "    ipv6:", "      src: '2001:db8::1'"),
			`t.yaml:4: cases[0].ipv6.dst: required`},
		{"ttl out of range", lines("cases:", "  - name: a", "    ipv4: {src: 192.0.2.1, dst: 198.51.100.1, ttl: 256}"),
			`t.yaml:3: cases[0].ipv4.ttl: "256" is not a number in 0..255`},
		{"ipv4 and ipv6", lines("cases:", "  - name: a", ip4, "    ipv6: {src: '2001:db8::1', dst: '2001:db8::2'}"),
			`t.yaml:4: cases[0]: give ipv4 or ipv6, not both`},
		{"two transports", lines("cases:", "  - name: a", ip4, "    udp: {src: 1, dst: 2}", "    tcp: {src: 1, dst: 2}"),
			`t.yaml:5: cases[0]: give at most one of udp, tcp and icmp, not udp and tcp`},
		{"transport without ip", lines("cases:", "  - name: a", "    icmp: {type: echo-request}"),
			`t.yaml:3: cases[0].icmp: needs ipv4 or ipv6`},
		{"port out of range", lines("cases:", "  - name: a", ip4, "    udp: {src: 1, dst: 70000}"),
			`t.yaml:4: cases[0].udp.dst: "70000" is not a number in 0..65535`},
		{"negative port", lines("cases:", "  - name: a", ip4, "    tcp: {src: -1, dst: 1}"),
			`t.yaml:4: cases[0].tcp.src: "-1" is not a number in 0..65535`},
		{"unknown tcp flag", lines("cases:", "  - name: a", ip4, "    tcp:", "      src: 1", "      dst: 2", "      flags: [syn, syb]"),
			`t.yaml:7: cases[0].tcp.flags[1]: unknown TCP flag "syb"`},
		{"tcp flags not a list", lines("cases:", "  - name: a", ip4, "    tcp: {src: 1, dst: 2, flags: syn}"),
			`t.yaml:4: cases[0].tcp.flags: want a list`},
		{"bad icmp type", lines("cases:", "  - name: a", ip4, "    icmp: {type: ping}"),
			`t.yaml:4: cases[0].icmp.type: "ping" is neither echo-request, echo-reply nor a number`},
		{"bad mac", lines("cases:", "  - name: a", "    eth:", "      src: 02:00:00:00:00", ip4),
			`t.yaml:4: cases[0].eth.src: "02:00:00:00:00" is not a MAC address`},
		{"eui-64 mac", lines("cases:", "  - name: a", "    eth: {dst: 02:00:00:00:00:00:00:01}", ip4),
			`t.yaml:3: cases[0].eth.dst: "02:00:00:00:00:00:00:01" is not a MAC address`},
		{"vlan out of range", lines("cases:", "  - name: a", "    eth: {vlan: 4095}", ip4),
			`t.yaml:3: cases[0].eth.vlan: "4095" is not a number in 0..4094`},
		{"ethertype with ip", lines("cases:", "  - name: a", "    eth: {type: 0x0800}", ip4),
			`t.yaml:3: cases[0].eth.type: set by ipv4/ipv6`},
		{"no ip nor ethertype", lines("cases:", "  - name: a", "    payload: {size: 1}"),
			`t.yaml:2: cases[0].eth.type: required without ipv4, ipv6 or arp`},
		{"ethertype is a length", lines("cases:", "  - name: a", "    eth: {type: 0x05dc}"),
			`t.yaml:3: cases[0].eth.type: 0x05dc is a length`},
		{"payload size and hex", lines("cases:", "  - name: a", ip4, "    payload: {size: 1, hex: '00'}"),
			`t.yaml:4: cases[0].payload: give size or hex, not both`},
		{"odd hex", lines("cases:", "  - name: a", ip4, "    payload: {hex: 'abc'}"),
			`t.yaml:4: cases[0].payload.hex: odd number of hex digits (3)`},
		{"invalid hex", lines("cases:", "  - name: a", ip4, "    payload: {hex: 'zz'}"),
			`t.yaml:4: cases[0].payload.hex: not hex`},
		{"payload too big", lines("cases:", "  - name: a", ip4, "    payload:", "      size: 9001"),
			`t.yaml:5: cases[0].payload.size: "9001" is not a number in 0..9000`},
		{"hex too big", lines("cases:", "  - name: a", ip4, "    payload: {hex: '"+strings.Repeat("00", maxPayload+1)+"'}"),
			`t.yaml:4: cases[0].payload.hex: 9001 bytes, more than 9000`},
		{"payload not a mapping", lines("cases:", "  - name: a", ip4, "    payload: 18"),
			`t.yaml:4: cases[0].payload: want a mapping with fields size, hex`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := ParseFile("t.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("parsed %d cases, want error %q", len(cases), tc.want)
			}
			if !errors.Is(err, ErrPacketFile) {
				t.Errorf("%v does not wrap ErrPacketFile", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %q\nwant %q...", err, tc.want)
			}
		})
	}
}
