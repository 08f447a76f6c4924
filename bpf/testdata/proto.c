//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: an XDP parser that returns what it found, so that a test
// can tell that the kernel hands a program the frame a case describes.
// The return is a code, not an action:
//
//   11 ARP    12 TCP    13 UDP    14 ICMP    (over IPv4)
//             15 TCP    16 UDP    17 ICMPv6  (over IPv6)
//   18 another IP protocol, 19 another EtherType
//   +100 for each VLAN tag (802.1Q or 802.1ad, up to two)
//   +1000 GUE (UDP port 6080), +2000 VXLAN (UDP port 4789),
//   +3000 IPIP (IP protocol 4 or 41): the code is then the inner packet's
//   0 (XDP_ABORTED) for a frame cut short

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

#define GUE_PORT 6080
#define VXLAN_PORT 4789
#define VXLAN_HLEN 8

static __always_inline int l4_code(__u8 proto, int v6)
{
	switch (proto) {
	case IPPROTO_TCP:
		return v6 ? 15 : 12;
	case IPPROTO_UDP:
		return v6 ? 16 : 13;
	case IPPROTO_ICMP:
		return 14;
	case IPPROTO_ICMPV6:
		return 17;
	}
	return 18;
}

// inner_ip is the code of an encapsulated IP packet, its transport only.
static __always_inline int inner_ip(void *p, void *end, int version)
{
	if (version == 4) {
		struct iphdr *ip = p;
		if ((void *)(ip + 1) > end)
			return -1;
		return l4_code(ip->protocol, 0);
	}
	if (version == 6) {
		struct ipv6hdr *ip6 = p;
		if ((void *)(ip6 + 1) > end)
			return -1;
		return l4_code(ip6->nexthdr, 1);
	}
	return 19;
}

static __always_inline int plus(int base, int inner)
{
	return inner < 0 ? -1 : base + inner;
}

// udp_code looks into UDP for GUE and VXLAN.
static __always_inline int udp_code(void *p, void *end, int v6)
{
	struct udphdr *udp = p;
	if ((void *)(udp + 1) > end)
		return -1;
	void *next = udp + 1;
	if (udp->dest == bpf_htons(GUE_PORT)) {
		__u8 *first = next;
		if ((void *)(first + 1) > end)
			return -1;
		return plus(1000, inner_ip(next, end, *first >> 4));
	}
	if (udp->dest == bpf_htons(VXLAN_PORT)) {
		struct ethhdr *eth = next + VXLAN_HLEN;
		if ((void *)(eth + 1) > end)
			return -1;
		int version = eth->h_proto == bpf_htons(ETH_P_IP) ? 4 : eth->h_proto == bpf_htons(ETH_P_IPV6) ? 6 : 0;
		return plus(2000, inner_ip(eth + 1, end, version));
	}
	return l4_code(IPPROTO_UDP, v6);
}

// ip_code parses the outer IP header at p and what it carries.
static __always_inline int ip_code(void *p, void *end, int v6)
{
	__u8 proto;
	void *next;
	if (v6) {
		struct ipv6hdr *ip6 = p;
		if ((void *)(ip6 + 1) > end)
			return -1;
		proto = ip6->nexthdr;
		next = ip6 + 1;
	} else {
		struct iphdr *ip = p;
		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return -1;
		proto = ip->protocol;
		next = p + ip->ihl * 4;
	}
	switch (proto) {
	case IPPROTO_IPIP:
		return plus(3000, inner_ip(next, end, 4));
	case IPPROTO_IPV6:
		return plus(3000, inner_ip(next, end, 6));
	case IPPROTO_UDP:
		return udp_code(next, end, v6);
	}
	return l4_code(proto, v6);
}

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

SEC("xdp")
int xdp_proto(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > end)
		return XDP_ABORTED;
	void *p = eth + 1;
	__be16 type = eth->h_proto;
	int tags = 0;
#pragma unroll
	for (int i = 0; i < 2; i++) {
		if (type != bpf_htons(ETH_P_8021Q) && type != bpf_htons(ETH_P_8021AD))
			break;
		struct vlan_hdr *tag = p;
		if ((void *)(tag + 1) > end)
			return XDP_ABORTED;
		type = tag->proto;
		p = tag + 1;
		tags++;
	}
	int code;
	switch (type) {
	case bpf_htons(ETH_P_ARP):
		code = 11;
		break;
	case bpf_htons(ETH_P_IP):
		code = ip_code(p, end, 0);
		break;
	case bpf_htons(ETH_P_IPV6):
		code = ip_code(p, end, 1);
		break;
	default:
		code = 19;
	}
	if (code < 0)
		return XDP_ABORTED;
	return code + 100 * tags;
}
