package packets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// Errors of captures and padding.
var (
	ErrPcap = errors.New("unusable capture")
	ErrSize = errors.New("bad frame size")
)

// minFrame is what BPF_PROG_TEST_RUN needs: an Ethernet header.
const minFrame = 14

// ReadPcap reads the cases of a capture file; see ParsePcap.
func ReadPcap(path string, limit int) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPcap, err)
	}
	defer f.Close()
	return ParsePcap(path, f, limit)
}

// packetSource is what the pcap and pcapng readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// ParsePcap turns every Ethernet packet of a pcap or pcapng capture into a
// case named by its index in the file and a summary, "3:udp 10.0.0.1>10.0.0.2".
// Identical frames are measured once: the first is kept. Frames shorter
// than an Ethernet header are skipped. limit > 0 keeps at most that many
// cases. name is the file's name, for errors.
func ParsePcap(name string, r io.Reader, limit int) ([]Case, error) {
	br := bufio.NewReader(r)
	magic, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: too short for a capture", ErrPcap, name)
	}
	var src packetSource
	var link layers.LinkType
	if binary.LittleEndian.Uint32(magic) == 0x0a0d0d0a { // pcapng section header
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPcap, name, err)
		}
		src, link = ng, ng.LinkType()
	} else {
		classic, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPcap, name, err)
		}
		src, link = classic, classic.LinkType()
	}
	if link != layers.LinkTypeEthernet {
		return nil, fmt.Errorf("%w: %s: link type %s, only Ethernet is supported", ErrPcap, name, link)
	}

	var cases []Case
	seen := map[string]bool{}
	for index := 1; limit <= 0 || len(cases) < limit; index++ {
		data, _, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: packet %d: %w", ErrPcap, name, index, err)
		}
		if len(data) < minFrame || seen[string(data)] {
			continue
		}
		seen[string(data)] = true
		cases = append(cases, describe(index, bytes.Clone(data)))
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%w: %s: no usable packet (Ethernet frames of at least %d bytes)", ErrPcap, name, minFrame)
	}
	return cases, nil
}

// describe names a captured frame from its layers.
func describe(index int, frame []byte) Case {
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	c := Case{Frame: frame}
	proto, from, to := "", "", ""
	if net := pkt.NetworkLayer(); net != nil {
		flow := net.NetworkFlow()
		from, to = flow.Src().String(), flow.Dst().String()
		c.Source, _ = netip.ParseAddr(from)
	}
	_, v6 := pkt.Layer(layers.LayerTypeIPv6).(*layers.IPv6)
	ports := ""
	switch t := pkt.TransportLayer().(type) {
	case *layers.UDP:
		proto, ports = "udp", fmt.Sprintf(" ports %d>%d", t.SrcPort, t.DstPort)
	case *layers.TCP:
		proto, ports = "tcp", fmt.Sprintf(" ports %d>%d", t.SrcPort, t.DstPort)
	}
	switch {
	case proto == "" && (pkt.Layer(layers.LayerTypeICMPv4) != nil || pkt.Layer(layers.LayerTypeICMPv6) != nil):
		proto = "icmp"
	case proto == "" && from != "":
		proto = "ip"
	}
	if v6 && proto != "" {
		proto += "6"
	}
	switch {
	case proto != "":
		c.Name = fmt.Sprintf("%d:%s %s>%s", index, proto, from, to)
	case pkt.Layer(layers.LayerTypeARP) != nil:
		c.Name = fmt.Sprintf("%d:arp", index)
	default:
		c.Name = fmt.Sprintf("%d:eth 0x%04x", index, binary.BigEndian.Uint16(frame[12:14]))
	}
	c.Summary = fmt.Sprintf("packet %d of the capture, %d bytes%s", index, len(frame), ports)
	return c
}

// WritePcap writes the cases' frames as a classic pcap capture, one second
// apart from a fixed time, so that the same cases give the same file.
func WritePcap(w io.Writer, cases []Case) error {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, c := range cases {
		ci := gopacket.CaptureInfo{Timestamp: epoch.Add(time.Duration(i) * time.Second), CaptureLength: len(c.Frame), Length: len(c.Frame)}
		if err := pw.WritePacket(ci, c.Frame); err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	return nil
}

// maxFrame is a jumbo frame with a VLAN tag.
const maxFrame = 9018

// Pad returns the case with its frame grown to size bytes, named
// <name>@<size>. A frame of Ethernet, IPv4 or IPv6, and UDP or TCP gets a
// longer payload, its lengths and checksums fixed, as a NIC would deliver
// a bigger packet; any other gets an Ethernet trailer of zeros.
func Pad(c Case, size int) (Case, error) {
	if size < minFrame || size > maxFrame || size < len(c.Frame) {
		return Case{}, fmt.Errorf("%w: %d bytes: want %d to %d, and at least the frame's %d", ErrSize, size, minFrame, maxFrame, len(c.Frame))
	}
	padded := c
	padded.Name = fmt.Sprintf("%s@%d", c.Name, size)
	padded.Summary = fmt.Sprintf("%s, padded to %d bytes", c.Summary, size)
	if size == len(c.Frame) {
		return padded, nil
	}
	if frame, ok := growPayload(c.Frame, size); ok {
		padded.Frame = frame
		return padded, nil
	}
	padded.Frame = append(bytes.Clone(c.Frame), make([]byte, size-len(c.Frame))...)
	return padded, nil
}

// growPayload re-serializes a UDP or TCP frame with extra payload bytes;
// ok is false for frames it does not know how to rebuild.
func growPayload(frame []byte, size int) (_ []byte, ok bool) {
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if pkt.ErrorLayer() != nil {
		return nil, false
	}
	var stack []gopacket.SerializableLayer
	var network gopacket.NetworkLayer
	var payload []byte
	for _, l := range pkt.Layers() {
		switch l := l.(type) {
		case *layers.Ethernet, *layers.Dot1Q:
			stack = append(stack, l.(gopacket.SerializableLayer))
		case *layers.IPv4:
			if len(l.Options) > 0 {
				return nil, false
			}
			stack, network = append(stack, l), l
		case *layers.IPv6:
			stack, network = append(stack, l), l
		case *layers.UDP:
			if network == nil || l.SetNetworkLayerForChecksum(network) != nil {
				return nil, false
			}
			stack, payload = append(stack, l), l.Payload
		case *layers.TCP:
			if network == nil || l.SetNetworkLayerForChecksum(network) != nil {
				return nil, false
			}
			stack, payload = append(stack, l), l.Payload
		case *gopacket.Payload:
		default:
			return nil, false // extension headers, tunnels: leave them be
		}
	}
	if len(stack) == 0 || payload == nil && len(stack) < 3 {
		return nil, false
	}
	headers := len(frame) - len(payload)
	if len(payload)+headers > len(frame) || size-headers < len(payload) {
		return nil, false
	}
	grown := append(bytes.Clone(payload), make([]byte, size-headers-len(payload))...)
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, append(stack, gopacket.Payload(grown))...); err != nil || len(buf.Bytes()) != size {
		return nil, false
	}
	return buf.Bytes(), true
}
