//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for maps: a configuration read from an array (filled with
// --map-init), a hash counting frames by length, and a global counter.
// Frames longer than config.limit are dropped when config.enabled.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct config {
	__u16 port;
	__u8 enabled;
	__u8 pad;
	__u32 limit;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct config);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} lengths SEC(".maps");

__u64 packets = 0;

SEC("xdp")
int limit_length(struct xdp_md *ctx)
{
	__u32 zero = 0, len = ctx->data_end - ctx->data;
	struct config *c = bpf_map_lookup_elem(&config, &zero);

	__sync_fetch_and_add(&packets, 1);
	if (!c || !c->enabled)
		return XDP_PASS;

	__u64 one = 1, *n = bpf_map_lookup_elem(&lengths, &len);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&lengths, &len, &one, BPF_ANY);
	return len > c->limit ? XDP_DROP : XDP_PASS;
}
