package replay

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Synthetic is traffic made without a capture: Packets packets of Case's
// packet over Flows flows, each packet's flow drawn by a popularity law,
// a share of the packets each opening a flow never seen before. Flow i is
// the case's packet with its source address and source port stepped by i
// and its checksums made valid (packets.FlowSet); over TCP, a new flow's
// packet is a SYN and an established flow's an ACK. The same Seed makes
// the same packets, so every pass of a replay, and a later replay, runs
// the same traffic; nothing is kept per flow or per packet.
type Synthetic struct {
	Case packets.Case
	// Flows is how many established flows the packets are drawn from, 1
	// to MaxFlows; flow ranks 1 to Flows are flows 0 to Flows-1.
	Flows int
	// Zipf is the law's exponent s: the flow of rank k is drawn with
	// probability proportional to k^-s; 0 draws every flow alike.
	Zipf float64
	// NewFlows is the share of the packets, 0 to 1, that each open a new
	// flow, flows Flows, Flows+1, ... in turn: exactly NewFlowPackets of
	// them, at places drawn at random.
	NewFlows float64
	Packets  int
	Seed     uint64
}

// MaxFlows is the most flows synthetic traffic draws from: 2^24, the
// sources the kernel's own XDP load-balancer benchmark draws.
const MaxFlows = 1 << 24

// MaxZipf bounds the law's exponent: past it, the first flow takes all.
const MaxZipf = 10

// NewFlowPackets is how many packets open a new flow.
func (s *Synthetic) NewFlowPackets() int { return int(math.Round(s.NewFlows * float64(s.Packets))) }

// Law names the popularity law.
func (s *Synthetic) Law() string {
	if s.Zipf == 0 {
		return "uniform"
	}
	return fmt.Sprintf("Zipf %g", s.Zipf)
}

// Describe says what the traffic is, in a line.
func (s *Synthetic) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "synthetic %s: %d flows, %s, %g %% new flows, seed %d", s.Case.Name, s.Flows, s.Law(), 100*s.NewFlows, s.Seed)
	return b.String()
}

// saved is the traffic as the result holds it.
func (s *Synthetic) saved() *results.ReplaySynthetic {
	return &results.ReplaySynthetic{Case: s.Case.Name, Flows: s.Flows, Zipf: s.Zipf, NewFlows: s.NewFlows, Packets: s.Packets, Seed: s.Seed}
}

// check refuses traffic that cannot be made, as bad input.
func (s *Synthetic) check() error {
	switch {
	case s.Flows < 1 || s.Flows > MaxFlows:
		return badinput.Wrap(fmt.Errorf("synthetic traffic: %d flows: want 1 to %d (2^24)", s.Flows, MaxFlows))
	case s.Zipf < 0 || s.Zipf > MaxZipf || math.IsNaN(s.Zipf):
		return badinput.Wrap(fmt.Errorf("synthetic traffic: a Zipf exponent of %g: want more than 0 and at most %d, or 0 for uniform", s.Zipf, MaxZipf))
	case !(s.NewFlows >= 0 && s.NewFlows <= 1):
		return badinput.Wrap(fmt.Errorf("synthetic traffic: %g new flows: want a share from 0 to 1", s.NewFlows))
	case s.Packets < 1 || s.Packets > MaxPackets:
		return badinput.Wrap(fmt.Errorf("synthetic traffic: %d packets: want 1 to %d", s.Packets, MaxPackets))
	}
	_, err := packets.NewFlowSet(s.Case, 1)
	if err != nil {
		return badinput.Wrap(fmt.Errorf("synthetic traffic: %w", err))
	}
	return nil
}

// TCP flags a flow's packets carry: a new flow's first, an established
// flow's.
const (
	tcpSYN = 0x02
	tcpACK = 0x10
)

// synthStream makes synthetic traffic's packets one at a time.
type synthStream struct {
	s        *Synthetic
	set      *packets.FlowSet
	tcp      bool
	l4, sum  int // the TCP header's offset and its checksum's
	rng      *rand.Rand
	law      *zipf
	made     int
	newLeft  int
	newFlows int
	frame    []byte
}

// openSynthetic starts s's packets from the first.
func openSynthetic(s *Synthetic) (*synthStream, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	// The set's N bounds nothing here: flows past it are stepped alike.
	set, err := packets.NewFlowSet(s.Case, 1)
	if err != nil {
		return nil, badinput.Wrap(fmt.Errorf("synthetic traffic: %w", err))
	}
	p := set.Patch()
	g := &synthStream{s: s, set: set, tcp: !p.UDP, l4: p.At[1], sum: p.At[3],
		rng: rand.New(rand.NewPCG(s.Seed, 0x78647061)), newLeft: s.NewFlowPackets()}
	if s.Zipf > 0 {
		g.law = newZipf(g.rng, s.Zipf, s.Flows)
	}
	return g, nil
}

// next is the next packet's frame, valid until the following call, or
// io.EOF after the last. Selection sampling (Knuth's algorithm S) places
// exactly newLeft new flows among the packets left, each place alike.
func (g *synthStream) next() ([]byte, error) {
	left := g.s.Packets - g.made
	if left == 0 {
		return nil, io.EOF
	}
	isNew := g.newLeft > 0 && g.rng.IntN(left) < g.newLeft
	var flow int
	switch {
	case isNew:
		flow = g.s.Flows + g.newFlows
		g.newFlows++
		g.newLeft--
	case g.law != nil:
		flow = g.law.rank() - 1
	default:
		flow = g.rng.IntN(g.s.Flows)
	}
	g.frame = g.set.Into(g.frame, flow)
	if g.tcp {
		flags := byte(tcpACK)
		if isNew {
			flags = tcpSYN
		}
		setTCPFlags(g.frame, g.l4, g.sum, flags)
	}
	g.made++
	return g.frame, nil
}

func (g *synthStream) done() int64 { return int64(g.made) }

func (g *synthStream) size() int64 { return int64(g.s.Packets) }

func (g *synthStream) skips() int { return 0 }

func (g *synthStream) records() int { return g.made }

func (g *synthStream) Close() error { return nil }

// setTCPFlags writes flags into the TCP header at l4 and updates its
// checksum at sum as RFC 1624 says: HC' = ~(~HC + ~m + m').
func setTCPFlags(f []byte, l4, sum int, flags byte) {
	at := l4 + 13
	old := uint16(f[at-1])<<8 | uint16(f[at])
	f[at] = flags
	now := uint16(f[at-1])<<8 | uint16(f[at])
	hc := uint16(f[sum])<<8 | uint16(f[sum+1])
	acc := uint32(^hc) + uint32(^old) + uint32(now)
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	c := ^uint16(acc)
	f[sum], f[sum+1] = byte(c>>8), byte(c)
}

// TemplateCase is the packet synthetic traffic is made of: a built-in
// case as bench's --class names it, or else the first packet of a packet
// file or capture of that name.
func TemplateCase(name string) (packets.Case, error) {
	cs, err := packets.Select([]string{name})
	if err == nil {
		return cs[0], nil
	}
	f, openErr := safefs.Open(name)
	if openErr != nil {
		return packets.Case{}, fmt.Errorf("synthetic traffic of %q: neither a built-in case nor a file: %w", name, err)
	}
	head := make([]byte, 4)
	_, _ = io.ReadFull(f, head)
	f.Close()
	if isCapture(head) {
		cs, err = packets.ReadPcap(name, 1)
	} else {
		cs, err = packets.ReadFiles([]string{name})
	}
	if err != nil {
		return packets.Case{}, err
	}
	return cs[0], nil
}

// isCapture says data starts as a pcap or pcapng file does.
func isCapture(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(data) {
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1, 0x0a0d0d0a:
		return true
	}
	return false
}
