//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: programs whose path or return depends on their context, as
// a test run's ctx gives it.
//
//   xdp_ingress:  returns ingress_ifindex * 100 + rx_queue_index.
//   tc_mark:      TC_ACT_SHOT for a skb marked 0x2a, else TC_ACT_OK: a
//                 path taken only for marked packets, as katran's health
//                 checks encapsulate only marked skbs.
//   tc_field:     returns the __sk_buff field that cb[0] selects (1 mark,
//                 2 priority, 3 ingress_ifindex, 4 ifindex, 5 cb[4],
//                 6 tstamp, 7 wire_len, 8 gso_segs, 9 gso_size,
//                 10 hwtstamp; 64-bit ones cut to 32 bits).
//   socket_field: the same for a socket filter, which may read fields 1-5.
//   tc_set_mark:  marks the skb 0x2a and returns TC_ACT_OK: it changes its
//                 context.

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_ingress(struct xdp_md *ctx)
{
	return ctx->ingress_ifindex * 100 + ctx->rx_queue_index;
}

SEC("tc")
int tc_mark(struct __sk_buff *skb)
{
	if (skb->mark == 0x2a)
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

/* The fields 1-5, which tc and socket filters may both read. */
static __always_inline int shared_field(struct __sk_buff *skb)
{
	switch (skb->cb[0]) {
	case 1:
		return skb->mark;
	case 2:
		return skb->priority;
	case 3:
		return skb->ingress_ifindex;
	case 4:
		return skb->ifindex;
	case 5:
		return skb->cb[4];
	}
	return -1;
}

SEC("tc")
int tc_field(struct __sk_buff *skb)
{
	switch (skb->cb[0]) {
	case 6:
		return (__u32)skb->tstamp;
	case 7:
		return skb->wire_len;
	case 8:
		return skb->gso_segs;
	case 9:
		return skb->gso_size;
	case 10:
		return (__u32)skb->hwtstamp;
	}
	return shared_field(skb);
}

SEC("socket")
int socket_field(struct __sk_buff *skb)
{
	return shared_field(skb);
}

SEC("tc")
int tc_set_mark(struct __sk_buff *skb)
{
	skb->mark = 0x2a;
	return TC_ACT_OK;
}
