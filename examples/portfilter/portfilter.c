//go:build ignore

// SPDX-License-Identifier: GPL-2.0
// An XDP port filter, the kind of program a Go project loads through
// bpf2go: it drops TCP and UDP packets to the ports in blocked_ports,
// counting them there, and passes everything else.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u16);   /* destination port, host byte order */
	__type(value, __u64); /* packets dropped */
} blocked_ports SEC(".maps");

/* dest_port finds the destination port of a TCP or UDP header at l4, of
 * protocol proto; 0 for other protocols, -1 when the frame ends early. */
static __always_inline int dest_port(void *l4, void *end, __u8 proto)
{
	if (proto == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;
		if ((void *)(tcp + 1) > end)
			return -1;
		return bpf_ntohs(tcp->dest);
	}
	if (proto == IPPROTO_UDP) {
		struct udphdr *udp = l4;
		if ((void *)(udp + 1) > end)
			return -1;
		return bpf_ntohs(udp->dest);
	}
	return 0;
}

SEC("xdp")
int xdp_port_filter(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	int port;

	if ((void *)(eth + 1) > end)
		return XDP_ABORTED;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return XDP_ABORTED;
		port = dest_port((void *)ip + ip->ihl * 4, end, ip->protocol);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return XDP_ABORTED;
		port = dest_port(ip6 + 1, end, ip6->nexthdr);
	} else {
		return XDP_PASS;
	}
	if (port < 0)
		return XDP_ABORTED;
	if (port == 0)
		return XDP_PASS;

	__u16 key = port;
	__u64 *dropped = bpf_map_lookup_elem(&blocked_ports, &key);
	if (!dropped)
		return XDP_PASS;
	__sync_fetch_and_add(dropped, 1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
