//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: two maps the kernel refuses (a hash map cannot be
// memory-mapped), so that the error must name the same one every time.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u32);
} alpha SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u32);
} beta SEC(".maps");

SEC("xdp")
int uses_both(struct xdp_md *ctx)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&alpha, &zero) || bpf_map_lookup_elem(&beta, &zero) ? XDP_DROP : XDP_PASS;
}
