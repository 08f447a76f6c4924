//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: programs with bpf-to-bpf calls, a callback and a legacy
// packet load, for instruction counts. Every function is straight-line
// code, so that a run executes each of its instructions exactly once per
// call and a count can be derived from the listing alone:
//
//   xdp_calls:    main, mix twice, twice_global once, count_down once per
//                 loop (3 loops, bpf_loop's callback)
//   tc_calls:     main, mix twice
//   socket_calls: main, mix once
//   socket_ldabs: a legacy load of the frame's byte 40, which ends the
//                 program, returning 0, on a frame of 40 bytes or fewer

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

static __noinline __u64 mix(__u64 x)
{
	return x * 0x5bd1e995 + 1;
}

// A global function: the verifier checks it apart from its callers.
__noinline int twice_global(int x)
{
	return x + x;
}

static long count_down(__u32 index, void *ctx)
{
	__u64 *x = ctx;

	*x = *x * 3 + index;
	return 0;
}

SEC("xdp")
int xdp_calls(struct xdp_md *ctx)
{
	__u64 x = ctx->data_end - ctx->data;

	x = mix(x);
	x = mix(x);
	x += twice_global((int)x);
	bpf_loop(3, count_down, &x, 0);
	return XDP_PASS + (x & 0);
}

// Where tc_calls leaves its result, so that the calls are kept.
__u64 sink;

SEC("tc")
int tc_calls(struct __sk_buff *skb)
{
	sink = mix(mix(skb->len));
	return 0; /* TC_ACT_OK */
}

SEC("socket")
int socket_calls(struct __sk_buff *skb)
{
	return (int)(mix(skb->len) & 0xffff);
}

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");

SEC("socket")
int socket_ldabs(struct __sk_buff *skb)
{
	return (int)load_byte(skb, 40) + 1;
}
