//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for tail calls and maps of maps. entry tail-calls slot 0 of
// chosen (empty until --map-init fills it), then slot 0 of fallback, which
// the object initialises statically with drop; if both are empty it
// passes. drop counts into .bss and drops; transmit transmits. by_inner
// returns the action stored at index 0 of the map at index 0 of outer,
// XDP_ABORTED if outer holds none, XDP_PASS if the inner map holds none.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

__u64 dropped = 0;

SEC("xdp")
int drop(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&dropped, 1);
	return XDP_DROP;
}

SEC("xdp")
int transmit(struct xdp_md *ctx)
{
	return XDP_TX;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, int(void *));
} fallback SEC(".maps") = {
	.values = {[0] = (void *)&drop},
};

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} chosen SEC(".maps");

SEC("xdp")
int entry(struct xdp_md *ctx)
{
	bpf_tail_call(ctx, &chosen, 0);
	bpf_tail_call(ctx, &fallback, 0);
	return XDP_PASS;
}

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps");

SEC("xdp")
int by_inner(struct xdp_md *ctx)
{
	__u32 zero = 0;
	void *inner = bpf_map_lookup_elem(&outer, &zero);

	if (!inner)
		return XDP_ABORTED;
	__u32 *action = bpf_map_lookup_elem(inner, &zero);
	return action ? *action : XDP_PASS;
}
