//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// The harness floor: programs that do nothing, one per measured type.
// Timed like any other, they give what BPF_PROG_TEST_RUN itself costs per
// run (the loop, the call, the timer), to subtract from a real program's.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int empty_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("tc")
int empty_tc(struct __sk_buff *skb)
{
	return 0; /* TC_ACT_OK */
}

SEC("socket")
int empty_socket(struct __sk_buff *skb)
{
	return 0;
}
