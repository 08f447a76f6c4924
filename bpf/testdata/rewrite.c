//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: XDP programs that change their packet, or their path. BPF_PROG_TEST_RUN
// runs every repeat on one buffer, so from the second run on each sees
// its own output.
//
//   swap_macs:  swaps the Ethernet addresses and returns XDP_TX, as a
//               responder does: every run takes the same path on a frame
//               that alternates.
//   same_macs:  swap_macs's twin: the same byte loads and stores on the same
//               frame, each address stored back where it was; it changes
//               nothing.
//   flip_proto: turns an IPv4 frame's EtherType into IPv6's and returns
//               XDP_TX; any other frame it passes untouched. Run 1 takes
//               the TX path, every later run the PASS one, as an
//               encapsulating load balancer does with its own output.
//   first_drop: leaves the frame alone, but drops it only the first time
//               it runs, as a flow table's first packet takes another path
//               than the ones that find its entry.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int swap_macs(struct xdp_md *ctx)
{
	struct ethhdr *eth = (void *)(long)ctx->data;

	if ((void *)(eth + 1) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	unsigned char tmp[ETH_ALEN];
	__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
	return XDP_TX;
}

SEC("xdp")
int same_macs(struct xdp_md *ctx)
{
	struct ethhdr *eth = (void *)(long)ctx->data;

	if ((void *)(eth + 1) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	/* volatile: the compiler may not drop stores of what was just loaded. */
	volatile unsigned char *dest = eth->h_dest, *source = eth->h_source;
	unsigned char d[ETH_ALEN], s[ETH_ALEN];
	for (int i = 0; i < ETH_ALEN; i++)
		d[i] = dest[i];
	for (int i = 0; i < ETH_ALEN; i++)
		s[i] = source[i];
	for (int i = 0; i < ETH_ALEN; i++)
		dest[i] = d[i];
	for (int i = 0; i < ETH_ALEN; i++)
		source[i] = s[i];
	return XDP_TX;
}

SEC("xdp")
int flip_proto(struct xdp_md *ctx)
{
	struct ethhdr *eth = (void *)(long)ctx->data;

	if ((void *)(eth + 1) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	eth->h_proto = bpf_htons(ETH_P_IPV6);
	return XDP_TX;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} seen SEC(".maps");

SEC("xdp")
int first_drop(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u32 *n = bpf_map_lookup_elem(&seen, &key);

	if (!n)
		return XDP_ABORTED;
	if (*n == 0) {
		*n = 1;
		return XDP_DROP;
	}
	return XDP_PASS;
}
