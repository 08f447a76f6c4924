package packets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/capture"
)

var updatePcapSample = flag.Bool("update-pcap-sample", false, "rewrite testdata/sample.pcapng")

const samplePcapng = "testdata/sample.pcapng"

var (
	pcapV4a = netip.MustParseAddr("10.0.0.1")
	pcapV4b = netip.MustParseAddr("10.0.0.2")
	pcapV6a = netip.MustParseAddr("2001:db8::1")
	pcapV6b = netip.MustParseAddr("2001:db8::2")
)

// pcapFrame serializes layers into a frame with valid lengths and checksums.
func pcapFrame(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	for _, l := range ls {
		if tl, ok := l.(interface {
			SetNetworkLayerForChecksum(gopacket.NetworkLayer) error
		}); ok {
			for _, n := range ls {
				if nl, ok := n.(gopacket.NetworkLayer); ok {
					if err := tl.SetNetworkLayerForChecksum(nl); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pcapEth(kind layers.EthernetType) *layers.Ethernet {
	return &layers.Ethernet{SrcMAC: sourceMAC, DstMAC: destMAC, EthernetType: kind}
}

func pcapIPv4(proto layers.IPProtocol) *layers.IPv4 {
	return &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: proto, SrcIP: pcapV4a.AsSlice(), DstIP: pcapV4b.AsSlice()}
}

func pcapIPv6(proto layers.IPProtocol) *layers.IPv6 {
	return &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: proto, SrcIP: pcapV6a.AsSlice(), DstIP: pcapV6b.AsSlice()}
}

// pcapTestFrames are one frame of each kind a capture holds.
type pcapTestFrames struct {
	udp4, tcp4, udp6, tcp6, arp, icmp4, lldp, vlan []byte
}

func makePcapFrames(t testing.TB) pcapTestFrames {
	payload := gopacket.Payload("hello")
	return pcapTestFrames{
		udp4: pcapFrame(t, pcapEth(layers.EthernetTypeIPv4), pcapIPv4(layers.IPProtocolUDP),
			&layers.UDP{SrcPort: 1000, DstPort: 53}, payload),
		tcp4: pcapFrame(t, pcapEth(layers.EthernetTypeIPv4), pcapIPv4(layers.IPProtocolTCP),
			&layers.TCP{SrcPort: 40000, DstPort: 80, Seq: 1, SYN: true, Window: 1024}),
		udp6: pcapFrame(t, pcapEth(layers.EthernetTypeIPv6), pcapIPv6(layers.IPProtocolUDP),
			&layers.UDP{SrcPort: 1000, DstPort: 53}, payload),
		tcp6: pcapFrame(t, pcapEth(layers.EthernetTypeIPv6), pcapIPv6(layers.IPProtocolTCP),
			&layers.TCP{SrcPort: 40000, DstPort: 443, Seq: 7, Ack: 9, ACK: true, PSH: true, Window: 512,
				Options: []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{5, 0xb4}}}},
			payload),
		arp: pcapFrame(t, pcapEth(layers.EthernetTypeARP), &layers.ARP{
			AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
			HwAddressSize: 6, ProtAddressSize: 4, Operation: layers.ARPRequest,
			SourceHwAddress: sourceMAC, SourceProtAddress: pcapV4a.AsSlice(),
			DstHwAddress: make(net.HardwareAddr, 6), DstProtAddress: pcapV4b.AsSlice(),
		}),
		icmp4: pcapFrame(t, pcapEth(layers.EthernetTypeIPv4), pcapIPv4(layers.IPProtocolICMPv4),
			&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeEchoRequest, 0), Id: 1, Seq: 1}, payload),
		lldp: pcapFrame(t, pcapEth(layers.EthernetType(0x88cc)), gopacket.Payload(make([]byte, 46))),
		vlan: pcapFrame(t, pcapEth(layers.EthernetTypeDot1Q),
			&layers.Dot1Q{VLANIdentifier: 100, Type: layers.EthernetTypeIPv4},
			pcapIPv4(layers.IPProtocolUDP), &layers.UDP{SrcPort: 1000, DstPort: 53}, payload),
	}
}

// mixed is a capture's worth of frames: a duplicate at 3, a 10-byte frame at 4.
func (f pcapTestFrames) mixed() [][]byte {
	return [][]byte{f.udp4, f.tcp4, f.udp4, make([]byte, 10), f.udp6, f.arp, f.icmp4, f.lldp}
}

// The cases ParsePcap makes of mixed().
var mixedNames = []string{
	"1:udp 10.0.0.1>10.0.0.2",
	"2:tcp 10.0.0.1>10.0.0.2",
	"5:udp6 2001:db8::1>2001:db8::2",
	"6:arp",
	"7:icmp 10.0.0.1>10.0.0.2",
	"8:eth 0x88cc",
}

var mixedSources = []netip.Addr{pcapV4a, pcapV4a, pcapV6a, {}, pcapV4a, {}}

func pcapTime(i int) time.Time { return time.Date(2020, 2, 2, 0, 0, i, 0, time.UTC) }

func classicCapture(t testing.TB, link layers.LinkType, frames ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65535, link); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: pcapTime(i), CaptureLength: len(f), Length: len(f)}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func ngCapture(t testing.TB, link layers.LinkType, frames ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	intf := pcapgo.NgInterface{Name: "eth0", LinkType: link, TimestampResolution: 9}
	w, err := pcapgo.NewNgWriterInterface(&buf, intf, pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "xdpmicro test"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: pcapTime(i), CaptureLength: len(f), Length: len(f)}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParsePcapBothFormats(t *testing.T) {
	f := makePcapFrames(t)
	for format, data := range map[string][]byte{
		"pcap":   classicCapture(t, layers.LinkTypeEthernet, f.mixed()...),
		"pcapng": ngCapture(t, layers.LinkTypeEthernet, f.mixed()...),
	} {
		t.Run(format, func(t *testing.T) {
			cases, err := ParsePcap(format, bytes.NewReader(data), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := pcapCaseNames(cases); strings.Join(got, "|") != strings.Join(mixedNames, "|") {
				t.Fatalf("names %q\nwant %q", got, mixedNames)
			}
			distinct := [][]byte{f.udp4, f.tcp4, f.udp6, f.arp, f.icmp4, f.lldp}
			for i, c := range cases {
				if c.Source != mixedSources[i] {
					t.Errorf("%s: source %v, want %v", c.Name, c.Source, mixedSources[i])
				}
				if !bytes.Equal(c.Frame, distinct[i]) {
					t.Errorf("%s: frame differs from the one captured", c.Name)
				}
				if c.Expect != "" || c.Summary == "" {
					t.Errorf("%s: expect %q, summary %q", c.Name, c.Expect, c.Summary)
				}
			}
			for i, want := range []string{
				"udp 10.0.0.1:1000 > 10.0.0.2:53, 60 bytes",
				"tcp 10.0.0.1:40000 > 10.0.0.2:80 SYN, 60 bytes",
				"udp6 [2001:db8::1]:1000 > [2001:db8::2]:53, 67 bytes",
				"arp request 10.0.0.1 > 10.0.0.2",
				"icmp 10.0.0.1 > 10.0.0.2 EchoRequest",
			} {
				if !strings.Contains(cases[i].Summary, want) {
					t.Errorf("%s: summary %q lacks %q", cases[i].Name, cases[i].Summary, want)
				}
			}
		})
	}
}

func pcapCaseNames(cases []Case) []string {
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	return names
}

// The limit counts cases kept, not packets read: duplicates and short
// frames do not use it up.
func TestParsePcapLimit(t *testing.T) {
	data := ngCapture(t, layers.LinkTypeEthernet, makePcapFrames(t).mixed()...)
	for limit, want := range map[int]int{1: 1, 3: 3, 6: 6, 7: 6, 0: 6} {
		cases, err := ParsePcap("mixed.pcapng", bytes.NewReader(data), limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != want {
			t.Errorf("limit %d: %d cases, want %d", limit, len(cases), want)
		}
		if limit == 3 && cases[2].Name != mixedNames[2] {
			t.Errorf("limit 3: last case %s, want %s", cases[2].Name, mixedNames[2])
		}
	}
	for _, limit := range []int{-1, MaxCases + 1} {
		if _, err := ParsePcap("mixed.pcapng", bytes.NewReader(data), limit); !errors.Is(err, ErrPcap) || !errors.Is(err, badinput.Err) {
			t.Errorf("limit %d: %v, want a bad-input ErrPcap", limit, err)
		}
	}
}

// A capture with a snaplen keeps the start of long packets: they are
// measured as captured.
func TestParsePcapSnaplenCut(t *testing.T) {
	f := makePcapFrames(t)
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(60, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{60, 40} { // TCP header cut, then IPv6 header
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: pcapTime(i), CaptureLength: n, Length: len(f.tcp6)}, f.tcp6[:n]); err != nil {
			t.Fatal(err)
		}
	}
	cases, err := ParsePcap("cut.pcap", &buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	want := fmt.Sprintf("tcp6 2001:db8::1 > 2001:db8::2, 60 of %d bytes captured", len(f.tcp6))
	if c.Name != "1:tcp6 2001:db8::1>2001:db8::2" || c.Source != pcapV6a || !bytes.Equal(c.Frame, f.tcp6[:60]) || !strings.HasPrefix(c.Summary, want) {
		t.Errorf("case %s (%s) from %v: %d bytes", c.Name, c.Summary, c.Source, len(c.Frame))
	}
	if c := cases[1]; c.Name != "2:eth 0x86dd" || c.Source.IsValid() {
		t.Errorf("IPv6 header cut: case %s from %v", c.Name, c.Source)
	}
}

func TestParsePcapRejects(t *testing.T) {
	f := makePcapFrames(t)
	good := classicCapture(t, layers.LinkTypeEthernet, f.udp4, f.tcp4)
	linkType277 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(linkType277[20:], 277)                                                                              // which pcapgo would read as 21
	llc := append(sllHeader(capture.PacketHost, capture.ArphrdEther, sourceMAC, 0x0004), 0x42, 0x42, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0) // 802.2 STP
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "empty file"},
		{"garbage", "this is not a capture at all", "not a pcap or pcapng file"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "not a pcap or pcapng file"},
		{"three bytes", "\xd4\xc3\xb2", "too short"},
		{"header cut", string(good[:20]), "header cut short"},
		{"raw ip", string(classicCapture(t, layers.LinkTypeRaw, f.udp4)), "link type 101"},
		{"ieee 802.11 pcapng", string(ngCapture(t, layers.LinkTypeIEEE802_11, f.udp4)), "link type 105 (802.11): only Ethernet and Linux cooked captures"},
		{"link type 277", string(linkType277), "link type 277"},
		{"sll llc only", string(classicCapture(t, layers.LinkTypeLinuxSLL, llc)), "no usable packet (1 read, 0 shorter than 14 bytes, 1 with no Ethernet form)"},
		{"only short", string(classicCapture(t, layers.LinkTypeEthernet, []byte{1, 2, 3}, make([]byte, 13))), "no usable packet (2 read, 2 shorter"},
		{"no packets", string(ngCapture(t, layers.LinkTypeEthernet)), "no usable packet (0 read"},
		{"record cut", string(good[:len(good)-10]), "packet 2: unexpected EOF"},
		{"ng record cut", string(ngCapture(t, layers.LinkTypeEthernet, f.udp4)[:120]), "packet 1: unexpected EOF"},
	} {
		_, err := ParsePcap(tc.name+".pcap", strings.NewReader(tc.data), 0)
		if !errors.Is(err, ErrPcap) || !strings.Contains(err.Error(), tc.name+".pcap") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrPcap naming the file and saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadPcap("testdata/no-such.pcap", 0); !errors.Is(err, ErrPcap) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// ngBlock lays out a little-endian pcapng block.
func ngBlock(typ uint32, body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	n := uint32(len(b) + 12)
	out := binary.LittleEndian.AppendUint32(nil, typ)
	out = binary.LittleEndian.AppendUint32(out, n)
	out = append(out, b...)
	return binary.LittleEndian.AppendUint32(out, n)
}

func ngSectionBlock() []byte {
	return ngBlock(capture.NgSection, []byte{0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 8))
}

// ngInterfaceBlock has the given link type and options.
func ngInterfaceBlock(link uint16, options ...byte) []byte {
	return ngBlock(capture.NgInterface, binary.LittleEndian.AppendUint16(nil, link), []byte{0, 0, 0, 0, 0, 0}, options)
}

func ngPacketBlock(iface uint32, frame []byte, capLen uint32) []byte {
	head := binary.LittleEndian.AppendUint32(nil, iface)
	head = append(head, make([]byte, 8)...) // timestamp
	head = binary.LittleEndian.AppendUint32(head, capLen)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(frame)))
	return ngBlock(capture.NgEnhancedPacket, head, frame)
}

// Corrupt pcapng blocks must give errors, neither a panic nor a huge
// allocation.
func TestParsePcapngCorrupt(t *testing.T) {
	udp4 := makePcapFrames(t).udp4
	eth := ngInterfaceBlock(1)
	for _, tc := range []struct {
		name, want string
		blocks     [][]byte
	}{
		{"fine", "", [][]byte{ngSectionBlock(), eth, ngPacketBlock(0, udp4, uint32(len(udp4)))}},
		{"claims 4 GiB", "claims 4294967280 bytes", [][]byte{ngSectionBlock(), eth, ngPacketBlock(0, udp4, 0xfffffff0)}},
		{"tsresol 10^-127", "malformed capture", [][]byte{ngSectionBlock(), ngInterfaceBlock(1, 9, 0, 1, 0, 0x7f, 0, 0, 0), ngPacketBlock(0, udp4, uint32(len(udp4)))}},
		{"second interface", "interface 1: link type 101", [][]byte{ngSectionBlock(), eth, ngInterfaceBlock(101), ngPacketBlock(0, udp4, uint32(len(udp4))), ngPacketBlock(1, udp4, uint32(len(udp4)))}},
		{"link type 257", "link type 257", [][]byte{ngSectionBlock(), ngInterfaceBlock(257), ngPacketBlock(0, udp4, uint32(len(udp4)))}},
		{"short block", "length 4 is too short", [][]byte{ngSectionBlock(), {1, 0, 0, 0, 4, 0, 0, 0, 1, 0}}},
		{"byte order", "byte-order magic", [][]byte{ngBlock(capture.NgSection, make([]byte, 16))}},
	} {
		cases, err := ParsePcap(tc.name, bytes.NewReader(bytes.Join(tc.blocks, nil)), 0)
		if tc.want == "" {
			if err != nil || len(cases) != 1 || !bytes.Equal(cases[0].Frame, udp4) {
				t.Errorf("%s: %v, %d cases", tc.name, err, len(cases))
			}
			continue
		}
		if !errors.Is(err, ErrPcap) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrPcap saying %q", tc.name, err, tc.want)
		}
	}
}

func TestWritePcapRoundTrip(t *testing.T) {
	f := makePcapFrames(t)
	cases := Default()
	for i, frame := range [][]byte{f.udp4, f.tcp6, f.arp, f.vlan, make([]byte, 14)} {
		cases = append(cases, Case{Name: "extra" + string(rune('a'+i)), Frame: frame})
	}
	var buf bytes.Buffer
	if err := WritePcap(&buf, cases); err != nil {
		t.Fatal(err)
	}
	back, err := ParsePcap("written.pcap", bytes.NewReader(buf.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(cases) {
		t.Fatalf("%d cases back, want %d", len(back), len(cases))
	}
	for i, c := range back {
		if !bytes.Equal(c.Frame, cases[i].Frame) {
			t.Errorf("case %d (%s): frame changed", i, c.Name)
		}
	}
	if back[0].Name != "1:udp 192.0.2.4>198.51.100.1" || back[0].Source != cases[0].Source {
		t.Errorf("first case %q from %v", back[0].Name, back[0].Source)
	}
	if back[8].Name != "9:udp 10.0.0.1>10.0.0.2" || !strings.HasPrefix(back[8].Summary, "vlan 100 udp") {
		t.Errorf("vlan case %q: %q", back[8].Name, back[8].Summary)
	}

	// The file is what Wireshark expects, and the same every time.
	r, err := pcapgo.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeEthernet || r.Snaplen() != 65535 {
		t.Errorf("link type %v, snaplen %d", r.LinkType(), r.Snaplen())
	}
	for i := range cases {
		_, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		if want := pcapEpoch.Add(time.Duration(i) * time.Second); !ci.Timestamp.Equal(want) {
			t.Errorf("record %d at %v, want %v", i, ci.Timestamp, want)
		}
	}
	var again bytes.Buffer
	if err := WritePcap(&again, cases); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("the same cases gave a different capture (%v)", err)
	}
	if err := WritePcap(&again, []Case{{Name: "huge", Frame: make([]byte, 65536)}}); !errors.Is(err, ErrPcap) {
		t.Errorf("frame beyond the snaplen: %v", err)
	}
}

// sampleCapture is testdata/sample.pcapng: a few packets of each kind,
// with a duplicate, written deterministically.
func sampleCapture(t testing.TB) []byte {
	f := makePcapFrames(t)
	return ngCapture(t, layers.LinkTypeEthernet, f.udp4, f.tcp4, f.udp6, f.udp4, f.arp, f.icmp4, f.tcp6, f.vlan)
}

func TestSamplePcapng(t *testing.T) {
	if *updatePcapSample {
		if err := os.WriteFile(samplePcapng, sampleCapture(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(samplePcapng)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, sampleCapture(t)) {
		t.Errorf("%s is not what sampleCapture writes; rerun with -update-pcap-sample", samplePcapng)
	}
	cases, err := ReadPcap(samplePcapng, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1:udp 10.0.0.1>10.0.0.2", "2:tcp 10.0.0.1>10.0.0.2", "3:udp6 2001:db8::1>2001:db8::2",
		"5:arp", "6:icmp 10.0.0.1>10.0.0.2", "7:tcp6 2001:db8::1>2001:db8::2", "8:udp 10.0.0.1>10.0.0.2",
	}
	if got := pcapCaseNames(cases); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("names %q\nwant %q", got, want)
	}
}

// pcapChecksum folds the ones' complement sum of data: 0xffff over a
// header or segment with its checksum means the checksum is valid.
func pcapChecksum(data ...[]byte) uint16 {
	var sum uint32
	for _, d := range data {
		for i := 0; i+1 < len(d); i += 2 {
			sum += uint32(d[i])<<8 | uint32(d[i+1])
		}
		if len(d)%2 == 1 {
			sum += uint32(d[len(d)-1]) << 8
		}
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return uint16(sum)
}

// checkPadded decodes a padded frame and checks its lengths and checksums.
func checkPadded(t *testing.T, frame []byte, payload []byte) {
	t.Helper()
	// The payload may fail to decode: gopacket reads port 53 as DNS.
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if pkt.TransportLayer() == nil || len(pkt.TransportLayer().LayerContents()) == 0 {
		t.Fatal("no transport layer")
	}
	var pseudo, segment []byte
	var proto byte
	switch ip := pkt.NetworkLayer().(type) {
	case *layers.IPv4:
		if pcapChecksum(ip.Contents) != 0xffff {
			t.Error("IPv4 header checksum is wrong")
		}
		if int(ip.Length) != len(ip.Contents)+len(ip.Payload) || len(ip.Payload) == 0 {
			t.Errorf("IPv4 length %d", ip.Length)
		}
		pseudo, segment, proto = append(bytes.Clone(ip.SrcIP), ip.DstIP...), ip.Payload, byte(ip.Protocol)
	case *layers.IPv6:
		pseudo, segment, proto = append(bytes.Clone(ip.SrcIP), ip.DstIP...), ip.Payload, byte(ip.NextHeader)
		if int(ip.Length) != len(frame)-14-40-vlanBytes(pkt) {
			t.Errorf("IPv6 payload length %d in a %d-byte frame", ip.Length, len(frame))
		}
	default:
		t.Fatal("no IP layer")
	}
	pseudo = append(pseudo, 0, proto, byte(len(segment)>>8), byte(len(segment)))
	if pcapChecksum(pseudo, segment) != 0xffff {
		t.Errorf("%v checksum is wrong", pkt.TransportLayer().LayerType())
	}
	if udp, ok := pkt.TransportLayer().(*layers.UDP); ok && int(udp.Length) != len(segment) {
		t.Errorf("UDP length %d, segment %d", udp.Length, len(segment))
	}
	app := pkt.TransportLayer().LayerPayload()
	if !bytes.HasPrefix(app, payload) || len(bytes.Trim(app[len(payload):], "\x00")) != 0 {
		t.Errorf("payload %q does not start with %q and go on with zeros", app, payload)
	}
}

func vlanBytes(pkt gopacket.Packet) int {
	if pkt.Layer(layers.LayerTypeDot1Q) != nil {
		return 4
	}
	return 0
}

func TestPadRebuilds(t *testing.T) {
	f := makePcapFrames(t)
	for name, frame := range map[string][]byte{"udp4": f.udp4, "tcp6": f.tcp6, "vlan": f.vlan} {
		c := Case{Name: name, Summary: "s", Frame: frame, Expect: "XDP_PASS"}
		for _, size := range []int{64, 512, 1500, 9018} {
			if size < len(frame) {
				continue
			}
			p, err := Pad(c, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Frame) != size || p.Name != name+"@"+strconv.Itoa(size) || p.Expect != c.Expect {
				t.Fatalf("%s: %d bytes, named %s, expects %q", name, len(p.Frame), p.Name, p.Expect)
			}
			if !strings.Contains(p.Summary, strconv.Itoa(size)) {
				t.Errorf("%s: summary %q does not note the size", p.Name, p.Summary)
			}
			checkPadded(t, p.Frame, []byte("hello"))
		}
	}
	if !bytes.Equal(f.udp4[:14], frameHead(t, f.udp4, 600)) {
		t.Error("padding changed the Ethernet header")
	}
}

func frameHead(t *testing.T, frame []byte, size int) []byte {
	p, err := Pad(Case{Name: "x", Frame: frame}, size)
	if err != nil {
		t.Fatal(err)
	}
	return p.Frame[:14]
}

// A frame shorter than Ethernet's 60-byte minimum, as captured on the
// sending host, pads to sizes below 60 too.
func TestPadBelowEthernetMinimum(t *testing.T) {
	f := makePcapFrames(t)
	bare := f.udp4[:14+20+8+5] // without the Ethernet padding gopacket adds
	p, err := Pad(Case{Name: "bare", Frame: bare}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Frame) != 50 {
		t.Fatalf("%d bytes", len(p.Frame))
	}
	ip := gopacket.NewPacket(p.Frame, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	if ip.Length != 36 || pcapChecksum(p.Frame[14:34]) != 0xffff {
		t.Errorf("IPv4 length %d", ip.Length)
	}
}

func TestPadTrailer(t *testing.T) {
	f := makePcapFrames(t)
	arp := Case{Name: "arp", Summary: "arp", Frame: f.arp, Expect: "XDP_PASS"}
	p, err := Pad(arp, 128)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Frame) != 128 || !bytes.Equal(p.Frame[:len(f.arp)], f.arp) || len(bytes.Trim(p.Frame[len(f.arp):], "\x00")) != 0 {
		t.Errorf("ARP frame not padded by a zero trailer")
	}
	if p.Expect != "XDP_PASS" || !strings.Contains(p.Summary, "trailer to 128 bytes") {
		t.Errorf("expect %q, summary %q", p.Expect, p.Summary)
	}

	// Packets cut by a snaplen are not rebuilt: their lengths would lie.
	long, err := Pad(Case{Name: "long", Frame: makePcapFrames(t).udp4}, 1500)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range [][]byte{long.Frame[:100], f.tcp6[:60]} {
		p, err := Pad(Case{Name: "cut", Frame: cut, Expect: "XDP_PASS"}, 200)
		if err != nil || !bytes.Equal(p.Frame[:len(cut)], cut) || len(bytes.Trim(p.Frame[len(cut):], "\x00")) != 0 {
			t.Errorf("%d-byte cut frame: %v, not padded by a trailer", len(cut), err)
		}
		if p.Expect != "XDP_PASS" {
			t.Errorf("%d-byte cut frame, headers whole: expect %q", len(cut), p.Expect)
		}
	}

	// A header cut short, padded, reads differently: nothing is expected.
	short, err := Select([]string{Short})
	if err != nil {
		t.Fatal(err)
	}
	p, err = Pad(short[0], 64)
	if err != nil || len(p.Frame) != 64 || !bytes.Equal(p.Frame[:shortLength], short[0].Frame) || p.Expect != "" {
		t.Errorf("short frame: %v, %d bytes, expect %q", err, len(p.Frame), p.Expect)
	}
}

func TestPadSameSizeAndErrors(t *testing.T) {
	c := Default()[0]
	p, err := Pad(c, len(c.Frame))
	if err != nil || !bytes.Equal(p.Frame, c.Frame) || p.Name != c.Name+"@60" || p.Summary != c.Summary {
		t.Errorf("same size: %v, %+v", err, p)
	}
	for _, size := range []int{-1, 0, 13, 59, 9019, 1 << 20} {
		if _, err := Pad(c, size); !errors.Is(err, ErrSize) {
			t.Errorf("size %d: %v, want ErrSize", size, err)
		}
	}
	// Padding must not write into the caller's frame.
	orig := bytes.Clone(c.Frame)
	if _, err := Pad(Case{Name: "a", Frame: c.Frame[:40:60]}, 60); err != nil || !bytes.Equal(c.Frame, orig) {
		t.Errorf("pad changed its input: %v", err)
	}
}
