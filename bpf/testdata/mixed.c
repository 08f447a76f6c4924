//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: two XDP programs the verifier accepts around one it must
// reject (it reads the packet without checking its length), and a
// tracepoint program no test run takes: bench OBJECT measures the two,
// reports the third, and passes over the fourth.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_a_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int xdp_b_unchecked(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data;

	return data[12] == 0x08 ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int xdp_c_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

SEC("tracepoint/syscalls/sys_enter_getpid")
int trace_getpid(void *ctx)
{
	return 0;
}
