// Package capture reads packet captures as Ethernet frames: classic pcap
// and pcapng, and Linux cooked captures (SLL, SLL2, as `tcpdump -i any`
// writes), each packet's pseudo-header replaced with an Ethernet header.
// It guards against corrupt files (bounded allocations, pcapgo's panics
// as errors). Package packets turns what it reads into cases.
package capture
