//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// The pair's two counters. Live frames leave no trace in veth's own
// statistics, so these are how a benchmark learns where its frames went:
// xm_peer_count, on the peer xm1's XDP hook, counts what xm0 sent out
// (XDP_TX, redirects to xm0) and drops it; xm_stack_count, on xm0's tc
// ingress, counts what xm0's stack received (XDP_PASS, cpumap redirects)
// and lets it on. Per-CPU, so that the counting takes no lock or atomic.

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xm_peer_frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xm_stack_skbs SEC(".maps");

static __always_inline void count(void *map)
{
	__u32 key = 0;
	__u64 *n = bpf_map_lookup_elem(map, &key);

	if (n)
		(*n)++;
}

SEC("xdp")
int xm_peer_count(struct xdp_md *ctx)
{
	count(&xm_peer_frames);
	return XDP_DROP;
}

SEC("tc")
int xm_stack_count(struct __sk_buff *skb)
{
	count(&xm_stack_skbs);
	return TC_ACT_OK;
}
