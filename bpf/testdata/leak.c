//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: a program that stores kernel addresses in an array map,
// which the verifier allows only with CAP_PERFMON (allow_ptr_leaks): the
// address of the map's own value, and of the frame's data. The checking
// run's map effects must not show them to a user who could not read
// kernel addresses (docs/usage.md, Privileges).

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} slots SEC(".maps");

SEC("xdp")
int store_pointer(struct xdp_md *ctx)
{
	__u32 zero = 0, one = 1;
	__u64 *v = bpf_map_lookup_elem(&slots, &zero);
	if (!v)
		return XDP_ABORTED;
	*v = (__u64)v;
	__u64 *w = bpf_map_lookup_elem(&slots, &one);
	if (!w)
		return XDP_ABORTED;
	*w = (__u64)(long)ctx->data;
	return XDP_PASS;
}
