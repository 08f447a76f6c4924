//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object shaped like an AF_XDP program (as xdp-tutorial's
// advanced03-AF_XDP and libxdp's default one): an XSKMAP of AF_XDP
// sockets by receive queue, and a per-CPU array that counts each queue's
// packets. A packet goes to its queue's socket when one is bound there,
// else on to the stack. User space cannot read an XSKMAP back: xdpmicro
// must run it, noting that the map is not compared.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

#define QUEUES 64

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} sockets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, QUEUES);
	__type(key, __u32);
	__type(value, __u64);
} queue_packets SEC(".maps");

SEC("xdp")
int to_socket(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	__u64 *seen = bpf_map_lookup_elem(&queue_packets, &queue);

	if (seen)
		*seen += 1;
	/* A lookup in an XSKMAP finds a bound socket. */
	if (bpf_map_lookup_elem(&sockets, &queue))
		return bpf_redirect_map(&sockets, queue, 0);
	return XDP_PASS;
}
