//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for the search for the costliest packets (xdpmicro worst):
// three XDP programs, each with an expensive path that a packet reaches
// only if the search is guided.
//
//   const_guard: a loop behind TCP destination port 7777 with URG set,
//                constants the program's own jumps compare against;
//   key_guard:   a loop behind an IPv4 source address that is a key of
//                the hash map hot_sources (filled by the test);
//   ext_chain:   a walk of a chain of IPv6 destination-options headers,
//                work for each, up to 24: a loop whose length the packet
//                sets, one header at a time.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

// Results go here, so that the compiler keeps the work.
volatile __u32 sink;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32); // an IPv4 source address, as the packet holds it
	__type(value, __u32);
} hot_sources SEC(".maps");

// expensive is the hidden path's work: 64 rounds of a hash.
static __always_inline void expensive(__u32 h)
{
#pragma clang loop unroll(disable)
	for (int i = 0; i < 64; i++)
		h = (h * 33) ^ (h >> 7) ^ i;
	sink = h;
}

static __always_inline struct iphdr *ipv4(void *data, void *data_end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	return ip;
}

SEC("xdp")
int const_guard(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct iphdr *ip = ipv4(data, data_end);

	if (!ip || ip->protocol != IPPROTO_TCP)
		return XDP_PASS;
	struct tcphdr *tcp = (void *)(ip + 1);
	if ((void *)(tcp + 1) > data_end)
		return XDP_ABORTED;
	if (tcp->dest == bpf_htons(7777) && tcp->urg)
		expensive(tcp->seq);
	return XDP_PASS;
}

SEC("xdp")
int key_guard(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct iphdr *ip = ipv4(data, data_end);

	if (!ip)
		return XDP_PASS;
	__u32 src = ip->saddr;
	__u32 *hot = bpf_map_lookup_elem(&hot_sources, &src);
	if (hot)
		expensive(*hot ^ ip->daddr);
	return XDP_PASS;
}

#define MAX_CHAIN 24

SEC("xdp")
int ext_chain(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6 = (void *)(eth + 1);

	if ((void *)(ip6 + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;
	__u8 next = ip6->nexthdr;
	void *cursor = ip6 + 1;
	__u32 h = 0;
#pragma clang loop unroll(disable)
	for (int i = 0; i < MAX_CHAIN && next == IPPROTO_DSTOPTS; i++) {
		struct ipv6_opt_hdr *opt = cursor;
		if ((void *)(opt + 1) > data_end)
			break;
		next = opt->nexthdr;
		cursor += (opt->hdrlen + 1) * 8;
		h = (h * 33) ^ (h >> 7) ^ next;
	}
	sink = h;
	return XDP_PASS;
}
