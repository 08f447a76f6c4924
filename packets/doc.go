// Package packets builds the packet cases a benchmark feeds to a program:
// one Ethernet/IPv4/UDP frame per source-address class of the bundled
// FizzBuzzFibonacci program, plus frames that exercise a parser's edges
// (a non-IPv4 frame, a frame cut short inside the IPv4 header).
//
// Frames are built with gopacket's layers, with valid lengths and
// checksums, so that a program which verifies them sees a real packet.
// The package knows nothing of BPF or statistics: a case is bytes, a name,
// and what a well-behaved XDP parser is expected to return for it.
package packets
