//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: an XDP program the verifier must reject, because it reads
// the packet without checking its length first.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int unchecked_read(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data;

	return data[12] == 0x08 ? XDP_PASS : XDP_DROP;
}
