package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// MaxCapture is tcpdump's largest snaplen. No frame worth measuring is
// longer, and it bounds what a corrupt capture can make us allocate.
const MaxCapture = 262144

// Magic numbers, as the first four bytes read little-endian.
const (
	PcapMicro   = 0xa1b2c3d4
	PcapMicroBE = 0xd4c3b2a1
	PcapNano    = 0xa1b23c4d
	PcapNanoBE  = 0x4d3cb2a1
	NgSection   = 0x0a0d0d0a // pcapng section header block; reads the same both ways
)

// Source is what the pcap and pcapng readers have in common: each
// packet as an Ethernet frame.
type Source interface {
	Next() (Packet, error)
}

// linkSupported is true for the link types whose packets can be made
// Ethernet frames.
func linkSupported(link uint32) bool {
	return link == LinkEthernet || link == LinkLinuxSLL || link == LinkLinuxSLL2
}

// asEthernet turns a packet of a supported link type into a frame.
func asEthernet(link uint32, data []byte, ci gopacket.CaptureInfo) (Packet, error) {
	p := Packet{Data: data, Length: ci.Length}
	if link == LinkEthernet {
		return p, nil
	}
	frame, note, err := fromCooked(link, data)
	if err != nil {
		return Packet{}, err
	}
	grown := len(frame) - len(data) // the cooked header's length less Ethernet's
	return Packet{Data: frame, Length: ci.Length + grown, Note: note}, nil
}

// classicSource reads a classic pcap, all of one link type.
type classicSource struct {
	r    *pcapgo.Reader
	link uint32
}

func (s classicSource) Next() (Packet, error) {
	data, ci, err := s.r.ReadPacketData()
	if err != nil {
		return Packet{Data: data}, err
	}
	return asEthernet(s.link, data, ci)
}

// ngSource reads pcapng, whose interfaces each have a link type: one that
// cannot be made Ethernet is refused at its first packet. pcapgo keeps a
// link type's low byte only: blocks hands it an index into its own table.
type ngSource struct {
	r      *pcapgo.NgReader
	blocks *ngBlocks
}

func (s ngSource) Next() (Packet, error) {
	data, ci, err := s.r.ReadPacketData()
	if err != nil {
		return Packet{Data: data}, err
	}
	index, _ := ci.AncillaryData[0].(layers.LinkType)
	link := s.blocks.linkType(int(index))
	if !linkSupported(link) {
		return Packet{}, fmt.Errorf("interface %d: %w", ci.InterfaceIndex, linkTypeError(link))
	}
	return asEthernet(link, data, ci)
}

// Open tells pcap from pcapng by the magic number. Anything else,
// including a compressed capture, is refused.
func Open(br *bufio.Reader) (Source, error) {
	head, err := br.Peek(24) // the whole pcap file header
	if len(head) < 4 {
		if len(head) == 0 && errors.Is(err, io.EOF) {
			return nil, errors.New("empty file")
		}
		return nil, errors.New("too short for a capture")
	}
	switch binary.LittleEndian.Uint32(head) {
	case PcapMicro, PcapMicroBE, PcapNano, PcapNanoBE:
		return openClassic(br, head)
	case NgSection:
		return Guarded(func() (Source, error) {
			// Mixed link types, so that packets of other interfaces are
			// refused rather than skipped, which would shift the numbering.
			blocks := &ngBlocks{r: br}
			ng, err := pcapgo.NewNgReader(blocks, pcapgo.NgReaderOptions{WantMixedLinkType: true})
			if err != nil {
				return nil, err
			}
			return ngSource{ng, blocks}, nil
		})
	}
	return nil, fmt.Errorf("not a pcap or pcapng file (magic %x)", head[:4])
}

func openClassic(br *bufio.Reader, head []byte) (Source, error) {
	if len(head) < 24 {
		return nil, errors.New("pcap file header cut short")
	}
	// The header's link type, read whole: pcapgo keeps only its low byte.
	var order binary.ByteOrder = binary.LittleEndian
	if m := binary.LittleEndian.Uint32(head); m == PcapMicroBE || m == PcapNanoBE {
		order = binary.BigEndian
	}
	link := order.Uint32(head[20:24])
	if !linkSupported(link) {
		return nil, linkTypeError(link)
	}
	r, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, err
	}
	// Packets may exceed a snaplen their writer did not enforce, as
	// tcpdump and Wireshark accept; a bigger one bounds what we allocate.
	r.SetSnaplen(MaxCapture)
	return classicSource{r, link}, nil
}

func linkTypeError(lt uint32) error {
	const supported = "only Ethernet and Linux cooked captures (SLL, SLL2) are supported"
	if lt <= 0xff {
		return fmt.Errorf("link type %d (%s): %s", lt, layers.LinkType(lt), supported)
	}
	return fmt.Errorf("link type %d: %s", lt, supported)
}

// Guarded runs a pcapgo call and turns its panics into errors: pcapgo
// divides by zero on some corrupt pcapng timestamp resolutions, and a
// corrupt capture must be an error, not a crash.
func Guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed capture: %v", p)
		}
	}()
	return f()
}

// Packet is a packet as an Ethernet frame, with the length it had on
// the wire and, for a cooked capture's, where it came from.
type Packet struct {
	Data   []byte
	Length int
	Note   string
}

// ngBlocks passes a pcapng stream through to pcapgo, refusing packet
// blocks that claim more than MaxCapture bytes (pcapgo allocates what a
// block claims before reading it: a dozen corrupt bytes could ask for
// 4 GiB) and interfaces whose link type pcapgo would cut to a byte.
type ngBlocks struct {
	r         io.Reader
	head      []byte // block header read ahead, still to pass on
	rest      int64  // bytes of the current block still to pass on
	bigEndian bool
	buf       [24]byte
	// links are the distinct link types of the interfaces seen, in full;
	// pcapgo is handed each interface's index in it instead. pcapgo reads
	// ahead, so the table only grows.
	links []uint32
}

// linkType is the link type pcapgo reports as index.
func (b *ngBlocks) linkType(index int) uint32 {
	if index < len(b.links) {
		return b.links[index]
	}
	return uint32(index) // unreachable: every interface went through next
}

// pcapng block types.
const (
	NgInterface      = 1
	NgPacket         = 2 // obsolete, still written by old tools
	NgSimplePacket   = 3
	NgEnhancedPacket = 6
	NgByteOrder      = 0x1a2b3c4d
)

func (b *ngBlocks) Read(p []byte) (int, error) {
	if len(b.head) == 0 && b.rest == 0 {
		if err := b.next(); err != nil {
			return 0, err
		}
	}
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	if int64(len(p)) > b.rest {
		p = p[:b.rest]
	}
	n, err := b.r.Read(p)
	b.rest -= int64(n)
	if errors.Is(err, io.EOF) && b.rest > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// next reads and checks the header of the next block: as much of it as
// holds the byte order, a link type or a packet's length.
func (b *ngBlocks) next() error {
	if _, err := io.ReadFull(b.r, b.buf[:8]); err != nil {
		return err // io.EOF between blocks is the end of the capture
	}
	typ := b.uint32(0)
	need := 8
	switch typ {
	case NgSection, NgSimplePacket:
		need = 12
	case NgInterface:
		need = 10
	case NgPacket, NgEnhancedPacket:
		need = 24
	}
	if _, err := io.ReadFull(b.r, b.buf[8:need]); err != nil {
		return unexpected(err)
	}
	if typ == NgSection {
		switch binary.BigEndian.Uint32(b.buf[8:12]) {
		case NgByteOrder:
			b.bigEndian = true
		case swap32(NgByteOrder):
			b.bigEndian = false
		default:
			return errors.New("pcapng section header: bad byte-order magic")
		}
	}
	length := int64(b.uint32(4))
	if length < int64(need) || length < 12 {
		return fmt.Errorf("pcapng block of type %d: length %d is too short", typ, length)
	}
	switch typ {
	case NgInterface:
		lt := uint32(b.uint16(8))
		i := slices.Index(b.links, lt)
		if i < 0 {
			i, b.links = len(b.links), append(b.links, lt)
		}
		if i > 0xff {
			return fmt.Errorf("pcapng: more than 256 link types")
		}
		b.putUint16(8, uint16(i))
	case NgSimplePacket, NgPacket, NgEnhancedPacket:
		if claim := b.uint32(need - 4); claim > MaxCapture {
			return fmt.Errorf("pcapng packet block claims %d bytes, more than %d", claim, MaxCapture)
		}
	}
	b.head, b.rest = b.buf[:need], length-int64(need)
	return nil
}

func (b *ngBlocks) uint32(at int) uint32 {
	if b.bigEndian {
		return binary.BigEndian.Uint32(b.buf[at:])
	}
	return binary.LittleEndian.Uint32(b.buf[at:])
}

func (b *ngBlocks) putUint16(at int, v uint16) {
	if b.bigEndian {
		binary.BigEndian.PutUint16(b.buf[at:], v)
	} else {
		binary.LittleEndian.PutUint16(b.buf[at:], v)
	}
}

func (b *ngBlocks) uint16(at int) uint16 {
	if b.bigEndian {
		return binary.BigEndian.Uint16(b.buf[at:])
	}
	return binary.LittleEndian.Uint16(b.buf[at:])
}

func swap32(v uint32) uint32 {
	return v>>24 | v>>8&0xff00 | v<<8&0xff0000 | v<<24
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
