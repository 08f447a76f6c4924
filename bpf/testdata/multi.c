//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: programs of every type xdpmicro measures (two XDP, so that
// one must be chosen by name; a tc classifier; a socket filter) and a
// tracepoint, a type it does not.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

SEC("tc")
int tc_shot(struct __sk_buff *skb)
{
	return 2; /* TC_ACT_SHOT */
}

SEC("socket")
int socket_all(struct __sk_buff *skb)
{
	return -1;
}

SEC("tracepoint/syscalls/sys_enter_getpid")
int trace_getpid(void *ctx)
{
	return 0;
}
