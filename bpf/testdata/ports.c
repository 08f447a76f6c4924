//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for loading as real programs' loaders do, after xdp-filter:
// a per-CPU port map pinned by name (LIBBPF_PIN_BY_NAME), keyed by the
// TCP or UDP destination port as the packet holds it (network byte
// order), whose entries drop the packet and count; the verdict on a hit
// is a `const volatile` knob, set before loading; and a per-CPU counter
// map declared without max_entries, sized by its loader, indexed by
// nothing but 0.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

#define PORT_DROP 1

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64); /* PORT_DROP, plus hits from bit 8 on */
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
} passed SEC(".maps");

/* What a hit returns. */
const volatile __u32 hit_action = XDP_DROP;

SEC("xdp")
int port_filter(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	__u32 zero = 0;

	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto == bpf_htons(ETH_P_IP) && ip->ihl == 5 &&
	    (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP)) {
		/* TCP and UDP both start with the source and destination ports. */
		__be16 *l4 = (void *)(ip + 1);
		if ((void *)(l4 + 2) > data_end)
			return XDP_ABORTED;
		__u32 key = l4[1];
		__u64 *flags = bpf_map_lookup_elem(&ports, &key);
		if (flags && (*flags & PORT_DROP)) {
			*flags += 1 << 8;
			return hit_action;
		}
	}
	__u64 *n = bpf_map_lookup_elem(&passed, &zero);
	if (n)
		*n += 1;
	return XDP_PASS;
}
