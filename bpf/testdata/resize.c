//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: XDP programs that move the ends of their packet, for the
// restorer (bpf/restore.c), which must undo each before the next run.
//
//   push_vlan: pushes an 802.1Q tag (the head moves 4 bytes out), XDP_TX.
//   pop_eth:   strips the Ethernet header (the head moves 14 bytes in).
//   grow_tail: grows the tail by 100 zero bytes, XDP_TX.
//   trim_tail: trims the tail by 10 bytes.
//   add_meta:  puts 8 bytes of metadata before the packet.
//   flip_once: turns the EtherType into IPv6's and returns XDP_TX the first
//              time it runs only, as a program whose maps change its path;
//              no restorer can reproduce its runs.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int push_vlan(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_head(ctx, -4))
		return XDP_ABORTED;
	__u8 *data = (void *)(long)ctx->data;

	if ((void *)(data + 18) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	__builtin_memmove(data, data + 4, 12);
	data[12] = 0x81;
	data[13] = 0x00;
	data[14] = 0x00;
	data[15] = 42;
	return XDP_TX;
}

SEC("xdp")
int pop_eth(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_head(ctx, ETH_HLEN) ? XDP_ABORTED : XDP_PASS;
}

SEC("xdp")
int grow_tail(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_tail(ctx, 100) ? XDP_ABORTED : XDP_TX;
}

SEC("xdp")
int trim_tail(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_tail(ctx, -10) ? XDP_ABORTED : XDP_PASS;
}

SEC("xdp")
int add_meta(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_meta(ctx, -8))
		return XDP_ABORTED;
	__u64 *meta = (void *)(long)ctx->data_meta;

	if ((void *)(meta + 1) > (void *)(long)ctx->data)
		return XDP_ABORTED;
	*meta = 42;
	return XDP_PASS;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} flipped SEC(".maps");

SEC("xdp")
int flip_once(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u32 *n = bpf_map_lookup_elem(&flipped, &key);
	struct ethhdr *eth = (void *)(long)ctx->data;

	if (!n || (void *)(eth + 1) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	if (*n)
		return XDP_PASS;
	*n = 1;
	eth->h_proto = bpf_htons(ETH_P_IPV6);
	return XDP_TX;
}
