// Package packets builds the packet cases a benchmark feeds to a program:
// one Ethernet/IPv4/UDP frame per source-address class of the bundled
// FizzBuzzFibonacci program, plus frames that exercise a parser's edges
// (a non-IPv4 frame, a frame cut short inside the IPv4 header); a protocol
// mix for other programs (a TCP SYN, a DNS query, a ping, a SYN over IPv6,
// a VLAN-tagged query, an ARP request); cases described in a YAML file
// (IP, ARP, QinQ, IPIP/GUE/VXLAN encapsulations, or a whole frame in hex,
// as WriteFile writes them); raw frame files, as
// bpftool's data_in takes them (ReadFiles); and cases read from pcap or
// pcapng captures, Linux cooked ones (tcpdump -i any) included.
//
// Frames are built with gopacket's layers, with valid lengths and
// checksums, so that a program which verifies them sees a real packet.
// A case may also set fields of the program's context (Context): named
// and valued here, laid out by the runner. The package knows nothing of
// BPF or statistics: a case is bytes, a name, context fields, and what a
// well-behaved XDP parser is expected to return for it, and the frame and
// map effects it may expect (MatchEffects holds a run's effects against
// the patterns).
package packets
