package packets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/capture"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// Errors of captures and padding.
var (
	ErrPcap = badinput.New("packet capture")
	ErrSize = badinput.New("bad frame size")
)

const (
	// minFrame is the least BPF_PROG_TEST_RUN takes: an Ethernet header.
	minFrame = 14
	// maxPadSize is a 9000-byte jumbo payload with Ethernet and VLAN headers.
	maxPadSize = 9018
	// writeSnaplen is the snaplen of written captures.
	writeSnaplen = 65535
)

// pcapEpoch is the time of the first packet WritePcap writes: a fixed
// time, so that the same cases always give the same file.
var pcapEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ReadPcap reads the cases of a capture file of at most MaxCaptureFile
// bytes; see ParsePcap.
func ReadPcap(path string, limit int) ([]Case, error) {
	cases, _, err := readPcap(path, limit, tally{})
	return cases, err
}

// readPcap is ReadPcap, its cases counted after those of kept, and
// whether it stopped before the capture's end.
func readPcap(path string, limit int, kept tally) (cases []Case, cut bool, err error) {
	f, err := safefs.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrPcap, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxCaptureFile {
		return nil, false, fmt.Errorf("%w %s: %d bytes, more than %d MiB: cut it first (editcap -c, tcpdump -c)", ErrPcap, path, fi.Size(), MaxCaptureFile>>20)
	}
	return parsePcap(path, io.LimitReader(f, MaxCaptureFile), limit, kept)
}

// ParsePcap turns the packets of a classic pcap or a pcapng capture of
// Ethernet frames into cases. Each is named by its 1-based number in the
// file, as Wireshark shows it, and a short summary: "3:udp 10.0.0.1>10.0.0.2".
//
// Linux cooked captures (SLL and SLL2, as `tcpdump -i any` writes) are
// read too, each packet's pseudo-header replaced with an Ethernet header
// (see cooked.go); packets that have no Ethernet form, such as 802.2 LLC
// frames, are skipped.
//
// Identical frames are measured once: the first is kept and later copies
// are skipped, since they would only repeat its measurement. Frames shorter
// than an Ethernet header are skipped, as the kernel refuses them; frames
// cut short by the capture's snaplen are used as captured. Reading stops
// once limit cases are kept (0: DefaultPcapLimit; at most MaxCases), or
// before a frame that would take the frames kept past MaxFrameBytes.
//
// name names the capture in errors, which all wrap ErrPcap. A capture that
// leaves no usable packet is an error, and so is a record cut off at the
// end of the file.
func ParsePcap(name string, r io.Reader, limit int) ([]Case, error) {
	cases, _, err := parsePcap(name, r, limit, tally{})
	return cases, err
}

// parsePcap is ParsePcap, its cases counted after those of kept, and
// whether it stopped before the capture's end.
func parsePcap(name string, r io.Reader, limit int, kept tally) (cases []Case, cut bool, err error) {
	switch {
	case limit < 0 || limit > MaxCases:
		return nil, false, fmt.Errorf("%w %s: a limit of %d packets: want 1 to %d, or 0 for %d", ErrPcap, name, limit, MaxCases, DefaultPcapLimit)
	case limit == 0:
		limit = DefaultPcapLimit
	}
	src, err := capture.Open(bufio.NewReader(r))
	if err != nil {
		return nil, false, fmt.Errorf("%w %s: %w", ErrPcap, name, err)
	}
	cases, n, cut, err := collect(src, limit, kept)
	if err != nil {
		return nil, false, fmt.Errorf("%w %s: %w", ErrPcap, name, err)
	}
	if len(cases) == 0 {
		msg := fmt.Sprintf("%d read, %d shorter than %d bytes", n.read, n.short, minFrame)
		if n.notEthernet > 0 {
			msg += fmt.Sprintf(", %d with no Ethernet form", n.notEthernet)
		}
		return nil, false, fmt.Errorf("%w %s: no usable packet (%s)", ErrPcap, name, msg)
	}
	return cases, cut, nil
}

// counts are the packets read, and those skipped: too short to use, or
// without an Ethernet form.
type counts struct {
	read, short, notEthernet int
}

// collect reads packets until the end, until limit cases are kept, or
// before one that would take kept past MaxCases or MaxFrameBytes; cut
// says it stopped early.
func collect(src capture.Source, limit int, kept tally) (cases []Case, n counts, cut bool, err error) {
	seen := make(map[string]bool)
	for {
		p, err := capture.Guarded(src.Next)
		if errors.Is(err, io.EOF) && len(p.Data) == 0 {
			return cases, n, false, nil // between records: the end of the capture
		}
		switch {
		case errors.Is(err, io.EOF):
			err = io.ErrUnexpectedEOF
		case errors.Is(err, capture.ErrShort):
			p, err = capture.Packet{}, nil
		case errors.Is(err, capture.ErrNotEthernet):
			n.read++
			n.notEthernet++
			continue
		}
		switch {
		case err != nil && len(cases) == limit:
			return cases, n, true, nil // past the packets kept: not read
		case err != nil:
			return nil, n, false, fmt.Errorf("packet %d: %w", n.read+1, err)
		}
		n.read++
		switch {
		case len(p.Data) < minFrame:
			n.short++
		case !seen[string(p.Data)]:
			c := captureCase(n.read, p)
			if len(cases) == limit || !kept.fits(c) {
				return cases, n, true, nil
			}
			seen[string(p.Data)] = true
			_ = kept.add(c)
			cases = append(cases, c)
		}
	}
}

// captureCase names packet number index of a capture. Its frame is not
// shared: both readers allocate each packet afresh.
func captureCase(index int, p capture.Packet) Case {
	frame := p.Data
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	d := describe(pkt)
	size := fmt.Sprintf("%d bytes", len(frame))
	if p.Length > len(frame) {
		size = fmt.Sprintf("%d of %d bytes captured", len(frame), p.Length)
	}
	if p.Note != "" {
		size += ", " + p.Note
	}
	return Case{
		Name:    fmt.Sprintf("%d:%s", index, d.short),
		Summary: summaryOf(pkt, d, size),
		Source:  d.source,
		Frame:   frame,
	}
}

// lastGood names the last layer gopacket decoded before failing.
func lastGood(pkt gopacket.Packet) string {
	name := "ethernet"
	for _, l := range pkt.Layers() {
		if l.LayerType() != gopacket.LayerTypeDecodeFailure {
			name = strings.ToLower(l.LayerType().String())
		}
	}
	return name
}

// description is what a frame's name and summary say of it.
type description struct {
	short, long string
	source      netip.Addr
}

func describe(pkt gopacket.Packet) description {
	d := describeLink(pkt)
	all := pkt.Layers()
	for i, l := range all {
		var ip description
		switch l := l.(type) {
		case *layers.IPv4:
			ip = describeIP("", l.SrcIP, l.DstIP, l.Protocol, all[i+1:])
		case *layers.IPv6:
			ip = describeIP("6", l.SrcIP, l.DstIP, l.NextHeader, all[i+1:])
		default:
			continue
		}
		if ip.source.IsValid() { // else the header is cut before its addresses
			d = ip
		}
		break // the outer header is what a program parses first
	}
	if vlan, ok := pkt.Layer(layers.LayerTypeDot1Q).(*layers.Dot1Q); ok {
		d.long = fmt.Sprintf("vlan %d %s", vlan.VLANIdentifier, d.long)
	}
	return d
}

// describeIP describes an IP packet by what its header carries, rest; v is
// "" or "6".
func describeIP(v string, src, dst net.IP, proto layers.IPProtocol, rest []gopacket.Layer) description {
	from, _ := netip.AddrFromSlice(src)
	to, _ := netip.AddrFromSlice(dst)
	from, to = from.Unmap(), to.Unmap()
	proto, next := pastExtensions(proto, rest)
	if next != nil && len(next.LayerContents()) == 0 {
		next = nil // gopacket keeps a layer it failed to decode, empty
	}
	// By the header's protocol, so that a transport header cut off by the
	// snaplen, or a later fragment, still says what it carries.
	word := fmt.Sprintf("ip%s/%d", v, proto)
	switch proto {
	case layers.IPProtocolUDP:
		word = "udp" + v
	case layers.IPProtocolTCP:
		word = "tcp" + v
	case layers.IPProtocolICMPv4:
		word = "icmp"
	case layers.IPProtocolICMPv6:
		word = "icmp6"
	}
	long := fmt.Sprintf("%s %s > %s", word, from, to)
	switch l := next.(type) {
	case *layers.UDP:
		long = fmt.Sprintf("%s %s > %s", word, netip.AddrPortFrom(from, uint16(l.SrcPort)), netip.AddrPortFrom(to, uint16(l.DstPort)))
	case *layers.TCP:
		long = fmt.Sprintf("%s %s > %s %s", word, netip.AddrPortFrom(from, uint16(l.SrcPort)), netip.AddrPortFrom(to, uint16(l.DstPort)), pcapTCPFlags(l))
	case *layers.ICMPv4:
		long += " " + l.TypeCode.String()
	case *layers.ICMPv6:
		long += " " + l.TypeCode.String()
	}
	return description{short: fmt.Sprintf("%s %s>%s", word, from, to), long: long, source: from}
}

// pastExtensions skips IPv6 extension headers, returning the protocol
// and layer that follow them.
func pastExtensions(proto layers.IPProtocol, rest []gopacket.Layer) (layers.IPProtocol, gopacket.Layer) {
	for _, l := range rest {
		switch ext := l.(type) {
		case *layers.IPv6HopByHop:
			proto = ext.NextHeader
		case *layers.IPv6Routing:
			proto = ext.NextHeader
		case *layers.IPv6Destination:
			proto = ext.NextHeader
		case *layers.IPv6Fragment:
			proto = ext.NextHeader
		default:
			return proto, l
		}
	}
	return proto, nil
}

// pcapTCPFlags lists the flags a TCP segment sets, "SYN,ACK".
func pcapTCPFlags(t *layers.TCP) string {
	var set []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{t.SYN, "SYN"}, {t.ACK, "ACK"}, {t.FIN, "FIN"}, {t.RST, "RST"},
		{t.PSH, "PSH"}, {t.URG, "URG"}, {t.ECE, "ECE"}, {t.CWR, "CWR"}, {t.NS, "NS"},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	if len(set) == 0 {
		return "no flags"
	}
	return strings.Join(set, ",")
}

// describeLink describes a frame without an IP header.
func describeLink(pkt gopacket.Packet) description {
	if arp, ok := pkt.Layer(layers.LayerTypeARP).(*layers.ARP); ok {
		from, _ := netip.AddrFromSlice(arp.SourceProtAddress)
		to, _ := netip.AddrFromSlice(arp.DstProtAddress)
		return description{short: "arp", long: fmt.Sprintf("arp %s %s > %s", arpOpName(arp.Operation), from, to)}
	}
	eth, _ := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	if eth == nil { // unreachable for 14 bytes or more; be safe
		return description{short: "eth", long: "eth"}
	}
	kind := eth.EthernetType
	for _, l := range pkt.Layers() {
		if q, ok := l.(*layers.Dot1Q); ok {
			kind = q.Type // the innermost tag's type says what follows
		}
	}
	if kind == layers.EthernetTypeLLC && eth.Length != 0 {
		return description{short: "llc", long: fmt.Sprintf("802.3 llc, length %d", eth.Length)}
	}
	return description{
		short: fmt.Sprintf("eth 0x%04x", uint16(kind)),
		long:  fmt.Sprintf("ethertype 0x%04x %s", uint16(kind), kind),
	}
}

// WritePcap writes the cases' frames as a classic pcap capture of Ethernet
// frames, for Wireshark or tcpdump, one record per case. Records are one
// second apart from a fixed time, so that the same cases give the same file.
func WritePcap(w io.Writer, cases []Case) error {
	bw := bufio.NewWriter(w)
	pw := pcapgo.NewWriter(bw)
	if err := pw.WriteFileHeader(writeSnaplen, layers.LinkTypeEthernet); err != nil {
		return fmt.Errorf("%w: write header: %w", ErrPcap, err)
	}
	for i, c := range cases {
		if len(c.Frame) > writeSnaplen {
			return fmt.Errorf("%w: case %q: %d-byte frame exceeds the %d-byte snaplen",
				ErrPcap, c.Name, len(c.Frame), writeSnaplen)
		}
		ci := gopacket.CaptureInfo{
			Timestamp:     pcapEpoch.Add(time.Duration(i) * time.Second),
			CaptureLength: len(c.Frame),
			Length:        len(c.Frame),
		}
		if err := pw.WritePacket(ci, c.Frame); err != nil {
			return fmt.Errorf("%w: case %q: %w", ErrPcap, c.Name, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrPcap, err)
	}
	return nil
}

// Pad returns the case with its frame grown to exactly size bytes, named
// <name>@<size>, to measure how a program's cost grows with frame size.
//
// A frame of Ethernet, optional VLAN tags, IPv4 or IPv6, and UDP or TCP is
// rebuilt with a longer zero payload, its lengths and checksums computed
// afresh (which also completes checksums left to offload in a capture),
// as a NIC would deliver a bigger packet. Any other frame gets an Ethernet
// trailer of zeros, which parsers that trust the IP length ignore. Expect
// is kept, except for a frame cut inside its Ethernet or IP header: zeros
// after it change what a parser reads, so nothing is expected.
// A frame already of that size is only renamed.
func Pad(c Case, size int) (Case, error) {
	switch {
	case size < minFrame:
		return Case{}, fmt.Errorf("%w: %d bytes for case %q: below the %d-byte Ethernet header", ErrSize, size, c.Name, minFrame)
	case size > maxPadSize:
		return Case{}, fmt.Errorf("%w: %d bytes for case %q: above %d, a jumbo frame", ErrSize, size, c.Name, maxPadSize)
	case size < len(c.Frame):
		return Case{}, fmt.Errorf("%w: %d bytes for case %q: its frame is already %d", ErrSize, size, c.Name, len(c.Frame))
	}
	padded := c
	padded.Name = fmt.Sprintf("%s@%d", c.Name, size)
	if size == len(c.Frame) {
		return padded, nil
	}
	pkt := gopacket.NewPacket(c.Frame, layers.LayerTypeEthernet, gopacket.Default)
	if frame, ok := rebuild(pkt, size); ok {
		padded.Frame = frame
		padded.Summary = fmt.Sprintf("%s, payload grown to a %d-byte frame", c.Summary, size)
		return padded, nil
	}
	padded.Frame = append(bytes.Clone(c.Frame), make([]byte, size-len(c.Frame))...)
	padded.Summary = fmt.Sprintf("%s, zero trailer to %d bytes", c.Summary, size)
	if headerCut(c.Frame) {
		padded.Expect = ""
	}
	return padded, nil
}

// headerCut is true when a frame ends inside its Ethernet, VLAN, IPv4 or
// IPv6 header: zeros appended to it would be read as header fields.
func headerCut(frame []byte) bool {
	if len(frame) < minFrame {
		return true
	}
	at, kind := minFrame, layers.EthernetType(binary.BigEndian.Uint16(frame[12:]))
	for kind == layers.EthernetTypeDot1Q || kind == layers.EthernetTypeQinQ {
		if len(frame) < at+4 {
			return true
		}
		kind = layers.EthernetType(binary.BigEndian.Uint16(frame[at+2:]))
		at += 4
	}
	switch kind {
	case layers.EthernetTypeIPv4:
		return len(frame) < at+20 || len(frame) < at+int(frame[at]&0x0f)*4
	case layers.EthernetTypeIPv6:
		return len(frame) < at+40
	}
	return false
}

// checksummed is a transport layer whose checksum covers an IP pseudo-header.
type checksummed interface {
	gopacket.SerializableLayer
	SetNetworkLayerForChecksum(gopacket.NetworkLayer) error
	LayerContents() []byte
	LayerPayload() []byte
}

// rebuild serializes an Ethernet[/Dot1Q...]/IP/UDP-or-TCP frame again with
// payload zeros up to size bytes; ok is false for any other frame, which
// it leaves alone. What the transport carries is only bytes to it: that
// gopacket fails to decode, say, a DNS message on port 53 does not matter.
func rebuild(pkt gopacket.Packet, size int) (_ []byte, ok bool) {
	all := pkt.Layers()
	if len(all) == 0 {
		return nil, false
	}
	eth, ok := all[0].(*layers.Ethernet)
	if !ok {
		return nil, false
	}
	var inner []gopacket.SerializableLayer // everything below Ethernet
	i := 1
	for ; i < len(all) && all[i].LayerType() == layers.LayerTypeDot1Q; i++ {
		inner = append(inner, all[i].(*layers.Dot1Q))
	}
	if i+1 >= len(all) {
		return nil, false
	}
	ip, ok := all[i].(netLayer)
	if !ok || !isIP(ip) {
		return nil, false
	}
	l4, ok := all[i+1].(checksummed)
	if !ok || len(l4.LayerContents()) == 0 || l4.SetNetworkLayerForChecksum(ip) != nil {
		return nil, false // not UDP or TCP, or one gopacket failed to decode
	}
	inner = append(inner, ip, l4)
	payload := l4.LayerPayload()

	// Measure the headers as they re-serialize, options and all.
	n, err := serializedLength(inner, payload)
	if err != nil || minFrame+n > size {
		return nil, false
	}
	grown := append(bytes.Clone(payload), make([]byte, size-minFrame-n)...)
	frame, err := buildFrame(append(append([]gopacket.SerializableLayer{eth}, inner...), gopacket.Payload(grown))...)
	// Ethernet pads a frame to 60 bytes; a smaller size drops those zeros.
	if err != nil || len(frame) < size {
		return nil, false
	}
	return frame[:size], true
}

func serializedLength(inner []gopacket.SerializableLayer, payload []byte) (int, error) {
	b, err := buildFrame(append(inner, gopacket.Payload(payload))...)
	return len(b), err
}

// isIP is true for a whole IPv4 or IPv6 packet. Not for a fragment: its
// transport checksum covers the whole datagram, so a grown fragment could
// not be made valid (an IPv6 fragment header is a layer of its own, which
// rebuild refuses). Not for a packet cut by the snaplen either: rebuilt,
// its lengths would claim less than was sent.
func isIP(ip netLayer) bool {
	switch ip := ip.(type) {
	case *layers.IPv4:
		return len(ip.Contents) > 0 && int(ip.Length) <= len(ip.Contents)+len(ip.Payload) &&
			ip.Flags&layers.IPv4MoreFragments == 0 && ip.FragOffset == 0
	case *layers.IPv6:
		return len(ip.Contents) > 0 && int(ip.Length) <= len(ip.Payload)
	}
	return false
}
