package packets

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// FlowSet is a case's n flows, made one at a time: flow i has the source
// address and the source port of the case's outermost IPv4 or IPv6 header
// and the TCP or UDP header that follows it stepped by i (the address's
// last 32 bits and the port each wrapping around), its checksums made
// anew; the rest of the frame is the case's. Nothing is kept per flow, so
// that N may reach MaxFlows: the restorer (bpf/restore.c) makes each
// flow's bytes in the kernel from FlowSet.Patch, and Frame makes the same
// frame here.
type FlowSet struct {
	n     int
	at    flowAt
	first []byte // flow 0: the case's frame, its checksums made anew
}

// NewFlowSet checks that c's frame has a flow and n is 1 to MaxFlows.
func NewFlowSet(c Case, n int) (*FlowSet, error) {
	if n < 1 || n > MaxFlows {
		return nil, fmt.Errorf("%w: %d flows: want 1 to %d", ErrState, n, MaxFlows)
	}
	at, err := flowOffsets(c.Frame)
	if err != nil {
		return nil, fmt.Errorf("%w: case %s: %w", ErrState, c.Name, err)
	}
	first := append([]byte(nil), c.Frame...)
	at.step(first, 0)
	return &FlowSet{n: n, at: at, first: first}, nil
}

// N is how many flows the set has.
func (s *FlowSet) N() int { return s.n }

// Frame is flow i's frame, i in 0 to N-1, in a new slice.
func (s *FlowSet) Frame(i int) []byte { return s.Into(nil, i) }

// Into is Frame in dst's memory where it is large enough: a caller that
// runs flows one after another needs no frame of each.
func (s *FlowSet) Into(dst []byte, i int) []byte {
	f := append(dst[:0], s.first...)
	s.at.step(f, uint32(i))
	return f
}

// Flow is flow i of c's flows, as a FlowSet of MaxFlows makes it.
func Flow(c Case, i int) ([]byte, error) {
	s, err := NewFlowSet(c, MaxFlows)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= MaxFlows {
		return nil, fmt.Errorf("%w: flow %d: want 0 to %d", ErrState, i, MaxFlows-1)
	}
	return s.Frame(i), nil
}

// FlowPatch is what the restorer needs to make any flow of a set from the
// case's frame: where the bytes the flows differ in are (the source
// address's last 4, the source port, the IPv4 header checksum and the
// transport checksum, 0 for a checksum flows leave alone: IPv6 has none
// in its header, and a UDP over IPv4 checksum of zero stays zero), and
// flow 0's values there, read big-endian. A flow's checksums follow from
// flow 0's by RFC 1624's incremental update.
type FlowPatch struct {
	At                     [4]int
	Addr                   uint32
	Port, IPCheck, L4Check uint16
	UDP                    bool // a transport checksum that comes to 0 is written 0xffff
}

// Patch is the set's FlowPatch.
func (s *FlowSet) Patch() FlowPatch {
	at := s.at
	p := FlowPatch{At: [4]int{at.ip + 12, at.l4, at.ip + 10, at.l4 + 16}, UDP: at.udp}
	if at.v6 {
		p.At[0], p.At[2] = at.ip+8+12, 0
	}
	if at.udp {
		p.At[3] = at.l4 + 6
		if !at.checksumOK {
			p.At[3] = 0
		}
	}
	f := s.first
	p.Addr, p.Port = binary.BigEndian.Uint32(f[p.At[0]:]), binary.BigEndian.Uint16(f[p.At[1]:])
	if p.At[2] != 0 {
		p.IPCheck = binary.BigEndian.Uint16(f[p.At[2]:])
	}
	if p.At[3] != 0 {
		p.L4Check = binary.BigEndian.Uint16(f[p.At[3]:])
	}
	return p
}

// flowAt is where a frame's flow is: its IP and transport headers.
type flowAt struct {
	ip, l4     int // offsets of the headers
	l4Len      int // the transport header and payload, without padding
	v6, udp    bool
	checksumOK bool // a UDP over IPv4 checksum of zero stays zero
}

func flowOffsets(frame []byte) (flowAt, error) {
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	ls := pkt.Layers()
	// Each layer starts where the ones before it end: not at the frame's
	// end less its own length, as Ethernet padding follows the IP packet.
	starts := make([]int, len(ls)+1)
	for i, l := range ls {
		starts[i+1] = starts[i] + len(l.LayerContents())
	}
	offset := func(i int) int { return starts[i] }
	for i, l := range ls {
		var at flowAt
		switch ip := l.(type) {
		case *layers.IPv4:
			at.ip = offset(i)
			at.l4Len = int(ip.Length) - int(ip.IHL)*4
		case *layers.IPv6:
			at.ip, at.v6 = offset(i), true
			at.l4Len = int(ip.Length)
		default:
			continue
		}
		if i+1 >= len(ls) {
			break
		}
		switch next := ls[i+1].(type) {
		case *layers.TCP:
			at.l4 = offset(i + 1)
		case *layers.UDP:
			at.l4, at.udp = offset(i+1), true
			at.checksumOK = next.Checksum != 0 || at.v6
		default:
			return flowAt{}, fmt.Errorf("flows need TCP or UDP right after the outermost IP header, not %s", next.LayerType())
		}
		if at.l4Len < 8 || at.l4+at.l4Len > len(frame) {
			return flowAt{}, fmt.Errorf("its IP header's length does not fit the frame")
		}
		return at, nil
	}
	return flowAt{}, fmt.Errorf("flows need a TCP or UDP frame over IPv4 or IPv6")
}

// step makes f the flow i after its own.
func (at flowAt) step(f []byte, i uint32) {
	src := at.ip + 12
	if at.v6 {
		src = at.ip + 8 + 12 // the low 32 bits of the 128
	}
	binary.BigEndian.PutUint32(f[src:], binary.BigEndian.Uint32(f[src:])+i)
	binary.BigEndian.PutUint16(f[at.l4:], binary.BigEndian.Uint16(f[at.l4:])+uint16(i))
	if !at.v6 {
		ihl := int(f[at.ip]&0x0f) * 4
		binary.BigEndian.PutUint16(f[at.ip+10:], 0)
		binary.BigEndian.PutUint16(f[at.ip+10:], fold(sum(f[at.ip:at.ip+ihl], 0)))
	}
	sumAt := at.l4 + 16
	if at.udp {
		if !at.checksumOK {
			return
		}
		sumAt = at.l4 + 6
	}
	binary.BigEndian.PutUint16(f[sumAt:], 0)
	var pseudo uint32
	if at.v6 {
		pseudo = sum(f[at.ip+8:at.ip+40], 0)
	} else {
		pseudo = sum(f[at.ip+12:at.ip+20], 0)
	}
	proto := uint32(6)
	if at.udp {
		proto = 17
	}
	pseudo += proto + uint32(at.l4Len)
	c := fold(sum(f[at.l4:at.l4+at.l4Len], pseudo))
	if c == 0 && at.udp {
		c = 0xffff // zero means none for UDP
	}
	binary.BigEndian.PutUint16(f[sumAt:], c)
}

// sum adds b's 16-bit big-endian words to acc, an odd last byte padded.
func sum(b []byte, acc uint32) uint32 {
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		acc += uint32(b[len(b)-1]) << 8
	}
	return acc
}

// fold is the ones' complement of a sum folded to 16 bits.
func fold(acc uint32) uint16 {
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return ^uint16(acc)
}
