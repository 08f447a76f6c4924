//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: every other packet of a receive queue to its AF_XDP socket,
// the rest on to the stack, as xdp-tutorial's advanced03-AF_XDP does. One
// run's action says nothing of the next, which one checking run cannot
// see and a batch of live frames does.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} sockets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} queue_packets SEC(".maps");

SEC("xdp")
int every_other(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	__u64 *seen = bpf_map_lookup_elem(&queue_packets, &queue);

	if (seen && (*seen)++ & 1)
		return XDP_PASS;
	if (bpf_map_lookup_elem(&sockets, &queue))
		return bpf_redirect_map(&sockets, queue, 0);
	return XDP_PASS;
}
