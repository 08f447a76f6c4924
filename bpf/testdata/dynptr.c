//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: an XDP program that kernels before 6.5 cannot load. It
// reads the frame's EtherType through a dynptr made by the kfunc
// bpf_dynptr_from_xdp, which Linux 6.5 added: 6.12 has it, 6.1 does not,
// and its loader refuses the program there (the --kernel tests).

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

extern int bpf_dynptr_from_xdp(struct xdp_md *xdp, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

SEC("xdp")
int xdp_dynptr(struct xdp_md *ctx)
{
	struct bpf_dynptr ptr;
	__u16 proto = 0;

	if (bpf_dynptr_from_xdp(ctx, 0, &ptr))
		return XDP_ABORTED;
	if (bpf_dynptr_read(&proto, sizeof(proto), &ptr, 12, 0))
		return XDP_ABORTED;
	return proto == __builtin_bswap16(0x0800) ? XDP_PASS : XDP_DROP;
}
