package packets

import (
	"fmt"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Summarize describes a frame in a line, as a capture's cases are
// described: its outermost addresses and protocol, and its length.
func Summarize(frame []byte) string {
	if len(frame) < minFrame {
		return fmt.Sprintf("%d bytes, shorter than an Ethernet header", len(frame))
	}
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	return summaryOf(pkt, describe(pkt), fmt.Sprintf("%d bytes", len(frame)))
}

// summaryOf is a frame's line: what it carries, its size, and where
// gopacket stopped understanding it, if it did.
func summaryOf(pkt gopacket.Packet, d description, size string) string {
	s := d.long + ", " + size
	if pkt.ErrorLayer() != nil {
		s += ", undecodable past " + lastGood(pkt)
	}
	return s
}

// Changes says how out differs from in: its length, and the byte ranges
// that differ over the length both share. Empty when they are equal.
func Changes(in, out []byte) string {
	var parts []string
	if len(out) != len(in) {
		parts = append(parts, fmt.Sprintf("%d → %d bytes", len(in), len(out)))
	}
	var ranges []string
	n := min(len(in), len(out))
	for i := 0; i < n; {
		if in[i] == out[i] {
			i++
			continue
		}
		j := i
		for j < n && in[j] != out[j] {
			j++
		}
		if j-i == 1 {
			ranges = append(ranges, fmt.Sprint(i))
		} else {
			ranges = append(ranges, fmt.Sprintf("%d–%d", i, j-1))
		}
		i = j
	}
	const shown = 6 // a line, not a dump: the hex dump has the rest
	switch {
	case len(ranges) > shown:
		parts = append(parts, fmt.Sprintf("bytes %s … (%d ranges) differ", strings.Join(ranges[:shown], ", "), len(ranges)))
	case len(ranges) > 0:
		parts = append(parts, "bytes "+strings.Join(ranges, ", ")+" differ")
	}
	return strings.Join(parts, "; ")
}
