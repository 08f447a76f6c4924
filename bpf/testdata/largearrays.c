//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: arrays too large to read through the bpf syscall for
// every case (over 65,536 entries), as a load balancer's ring is.
//
//   ring:      262,144 entries that both programs only read.
//   counters:  262,144 counters, one per low 18 bits of the source
//              address; count bumps the packet's.
//
// With route, no program writes either array: xdpmicro creates them
// read-only to programs, and watches neither. With count, it creates
// them mmapable and finds the counter a run bumped in memory.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

#define SLOTS (1 << 18)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

// slot is the packet's source address, low 18 bits; -1 if none.
static __always_inline int slot(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return -1;
	return bpf_ntohl(ip->saddr) & (SLOTS - 1);
}

static __always_inline int routed(__u32 key)
{
	__u32 *real = bpf_map_lookup_elem(&ring, &key);

	return real && *real ? XDP_TX : XDP_PASS;
}

SEC("xdp")
int route(struct xdp_md *ctx)
{
	int key = slot(ctx);

	return key < 0 ? XDP_PASS : routed(key);
}

SEC("xdp")
int count(struct xdp_md *ctx)
{
	int key = slot(ctx);
	__u64 *n;

	if (key < 0)
		return XDP_PASS;
	n = bpf_map_lookup_elem(&counters, &key);
	if (n)
		(*n)++;
	return routed(key);
}
