package replay

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/packets"
)

// zipfCells are the cells the law's draws are counted in: ranks 1 to
// single alone, then ranks in cells growing by half, to n: each holds
// enough draws for the chi-square's approximation.
func zipfCells(n, single int) [][2]int {
	var cells [][2]int
	for k := 1; k <= min(single, n); k++ {
		cells = append(cells, [2]int{k, k})
	}
	for lo := single + 1; lo <= n; {
		hi := min(n, lo+lo/2)
		cells = append(cells, [2]int{lo, hi})
		lo = hi + 1
	}
	return cells
}

// The sampler's draws follow the law: a chi-square test over the ranks
// (the top 30 one by one, the rest in cells), seeded, at the 0.1 % level,
// for exponents below, at and above 1, on up to 2^24 ranks; and the first
// rank's share within 4 standard errors of the law's.
func TestZipfFollowsTheLaw(t *testing.T) {
	for _, c := range []struct {
		s     float64
		n     int
		draws int
	}{{1.1, MaxFlows, 1_000_000}, {1, 100_000, 500_000}, {0.8, 1000, 300_000}, {2.5, 50, 200_000}, {0.3, 10, 100_000}} {
		var norm float64
		for k := 1; k <= c.n; k++ {
			norm += math.Pow(float64(k), -c.s)
		}
		cells := zipfCells(c.n, 30)
		counts := make([]float64, len(cells))
		z := newZipf(rand.New(rand.NewPCG(7, uint64(c.n))), c.s, c.n)
		cell := func(k int) int { // cells are ordered: search
			lo, hi := 0, len(cells)-1
			for lo < hi {
				mid := (lo + hi) / 2
				if cells[mid][1] < k {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			return lo
		}
		for range c.draws {
			k := z.rank()
			if k < 1 || k > c.n {
				t.Fatalf("s %g n %d: rank %d out of 1..%d", c.s, c.n, k, c.n)
			}
			counts[cell(k)]++
		}
		var chi2 float64
		df := -1
		for i, cl := range cells {
			var p float64
			for k := cl[0]; k <= cl[1]; k++ {
				p += math.Pow(float64(k), -c.s) / norm
			}
			want := p * float64(c.draws)
			if want < 5 { // too few for the approximation: left out
				continue
			}
			chi2 += (counts[i] - want) * (counts[i] - want) / want
			df++
		}
		limit := distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
		if chi2 > limit {
			t.Errorf("s %g n %d: chi-square %.1f over %d degrees of freedom, more than %.1f (0.1 %%)", c.s, c.n, chi2, df, limit)
		}
		p1 := 1 / norm
		se := math.Sqrt(p1 * (1 - p1) / float64(c.draws))
		if got := counts[0] / float64(c.draws); math.Abs(got-p1) > 4*se {
			t.Errorf("s %g n %d: rank 1 drawn %.5f of the time, the law says %.5f ± %.5f", c.s, c.n, got, p1, se)
		}
		t.Logf("s %g n %d: chi-square %.1f, %d df (limit %.1f); rank 1 %.4f, law %.4f", c.s, c.n, chi2, df, limit, counts[0]/float64(c.draws), p1)
	}
}

// The sampler takes no memory per draw, whatever the ranks.
func TestZipfAllocatesNothing(t *testing.T) {
	z := newZipf(rand.New(rand.NewPCG(1, 2)), 1.1, MaxFlows)
	if n := testing.AllocsPerRun(10000, func() { z.rank() }); n != 0 {
		t.Errorf("%g allocations a draw, want 0", n)
	}
}

// synthCase is a bundled class's case.
func synthCase(t *testing.T, name string) packets.Case {
	t.Helper()
	cs, err := packets.Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

// drawn is what a stream made: each packet's flow, whether it was a SYN,
// and the packets' digest.
type drawn struct {
	flows  []int
	syn    []bool
	digest [32]byte
}

// drawAll runs s's stream to its end, checking every frame's checksums.
func drawAll(t *testing.T, s *Synthetic) drawn {
	t.Helper()
	g, err := openSynthetic(s)
	if err != nil {
		t.Fatal(err)
	}
	base := binary.BigEndian.Uint32(s.Case.Frame[14+12:])
	h := sha256.New()
	var d drawn
	for {
		f, err := g.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h.Write(f)
		d.flows = append(d.flows, int(binary.BigEndian.Uint32(f[14+12:])-base))
		pkt := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
		ip := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if fold(ip.Contents) != 0 {
			t.Fatalf("packet %d: IPv4 header checksum wrong", len(d.flows))
		}
		if tcp, ok := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
			_ = tcp.SetNetworkLayerForChecksum(ip)
			if c, err := tcp.ComputeChecksum(); err != nil || c != 0 {
				t.Fatalf("packet %d: TCP checksum wrong (%#x, %v)", len(d.flows), c, err)
			}
			if tcp.SYN == tcp.ACK {
				t.Fatalf("packet %d: SYN %v ACK %v, want one", len(d.flows), tcp.SYN, tcp.ACK)
			}
			d.syn = append(d.syn, tcp.SYN)
		}
	}
	copy(d.digest[:], h.Sum(nil))
	return d
}

// fold is the ones' complement sum of b, folded: 0 over a header whose
// checksum is right.
func fold(b []byte) uint16 {
	var acc uint32
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return ^uint16(acc)
}

// The stream's shares are exact: round(share × packets) new flows, each
// a flow of its own past the established ones and a SYN, the rest ACKs of
// established flows; the same seed makes the same bytes, another seed
// others; every checksum is right.
func TestSyntheticShares(t *testing.T) {
	s := &Synthetic{Case: synthCase(t, "tcp-syn"), Flows: 1000, Zipf: 1.1, NewFlows: 0.03, Packets: 20_001, Seed: 42}
	d := drawAll(t, s)
	if len(d.flows) != s.Packets {
		t.Fatalf("%d packets, want %d", len(d.flows), s.Packets)
	}
	newFlows, seen := 0, map[int]bool{}
	for i, f := range d.flows {
		isNew := f >= s.Flows
		if isNew != d.syn[i] {
			t.Fatalf("packet %d of flow %d: SYN %v", i, f, d.syn[i])
		}
		if isNew {
			if seen[f] || f != s.Flows+newFlows {
				t.Fatalf("packet %d: new flow %d, want %d, never seen", i, f, s.Flows+newFlows)
			}
			seen[f] = true
			newFlows++
		}
	}
	if want := 600; newFlows != want { // 3 % of 20,001 is 600.03
		t.Errorf("%d new flows, want %d", newFlows, want)
	}
	if again := drawAll(t, s); again.digest != d.digest {
		t.Error("the same seed made other packets")
	}
	other := *s
	other.Seed++
	if drawAll(t, &other).digest == d.digest {
		t.Error("another seed made the same packets")
	}
	all := *s
	all.NewFlows, all.Packets = 1, 5000
	for i, f := range drawAll(t, &all).flows {
		if f != all.Flows+i {
			t.Fatalf("every packet a new flow: packet %d is flow %d", i, f)
		}
	}
}

// Uniform draws: every flow alike (a chi-square over the flows), UDP
// frames stepped as packets.FlowSet steps them, no new flow.
func TestSyntheticUniform(t *testing.T) {
	s := &Synthetic{Case: synthCase(t, "udp-dns"), Flows: 100, Packets: 50_000, Seed: 3}
	d := drawAll(t, s)
	counts := make([]float64, s.Flows)
	for _, f := range d.flows {
		if f < 0 || f >= s.Flows {
			t.Fatalf("flow %d out of 0..%d", f, s.Flows-1)
		}
		counts[f]++
	}
	want := float64(s.Packets) / float64(s.Flows)
	var chi2 float64
	for _, c := range counts {
		chi2 += (c - want) * (c - want) / want
	}
	if limit := (distuv.ChiSquared{K: float64(s.Flows - 1)}).Quantile(0.999); chi2 > limit {
		t.Errorf("chi-square %.1f, more than %.1f", chi2, limit)
	}
	g, _ := openSynthetic(s)
	set, _ := packets.NewFlowSet(s.Case, s.Flows)
	for i := range 100 {
		f, _ := g.next()
		if want := set.Frame(d.flows[i]); string(f) != string(want) {
			t.Fatalf("packet %d is not flow %d as packets.FlowSet makes it", i, d.flows[i])
		}
	}
}

// Traffic that cannot be made is bad input.
func TestSyntheticBadInput(t *testing.T) {
	tcp := synthCase(t, "tcp-syn")
	for name, s := range map[string]Synthetic{
		"no flows":      {Case: tcp, Packets: 1},
		"too many":      {Case: tcp, Flows: MaxFlows + 1, Packets: 1},
		"zipf negative": {Case: tcp, Flows: 10, Zipf: -1, Packets: 1},
		"zipf NaN":      {Case: tcp, Flows: 10, Zipf: math.NaN(), Packets: 1},
		"share":         {Case: tcp, Flows: 10, NewFlows: 1.5, Packets: 1},
		"no packets":    {Case: tcp, Flows: 10},
		"no flow in it": {Case: synthCase(t, "icmp-echo"), Flows: 10, Packets: 1},
	} {
		if _, err := openSynthetic(&s); !errors.Is(err, badinput.Err) {
			t.Errorf("%s: %v, want bad input", name, err)
		}
	}
}
