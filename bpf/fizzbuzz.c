//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// FizzBuzzFibonacci: an XDP program in four builds, selected with -DVERSION.
// Each build parses Ethernet + IPv4 and classifies the IPv4 source address
// (in host byte order); the builds differ only in the classification, so that
// a benchmark of one against another shows what a feature costs.
//
//   VERSION 1: push the source address into the queue
//   VERSION 2: FizzBuzz: push FIZZ (%3), BUZZ (%5), FIZZBUZZ (both), else nothing
//   VERSION 3: FizzBuzzFibonacci, as the story has it: first, for every
//              packet, push FIBONACCI if address % 256 is a Fibonacci number,
//              found by walking the sequence in a loop that runs longer the
//              larger the octet; else as 2
//   VERSION 4: as 3, with a constant-time test of the 13 values below 256
//
// Every build returns XDP_PASS for a well-formed packet and for a frame that
// is not IPv4, and XDP_ABORTED for a frame too short for its headers.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef VERSION
#error "build with -DVERSION=1..4"
#endif

char __license[] SEC("license") = "Dual BSD/GPL";

// Values pushed by builds 2..4; build 1 pushes the address itself.
enum verdict {
	FIZZ = 1,
	BUZZ = 2,
	FIZZBUZZ = 3,
	FIBONACCI = 4,
};

// A queue, not a ring: the program only produces, and the benchmark must not
// depend on a consumer.
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1024);
#if VERSION == 1
	__type(value, __u32);
#else
	// The enum's BTF lets tools show FIZZ rather than 1.
	__type(value, enum verdict);
#endif
} verdicts SEC(".maps");

static __always_inline void push(__u32 value)
{
	// BPF_EXIST overwrites the oldest entry of a full queue. Without it,
	// after max_entries runs every push takes the cheap -E2BIG path and a
	// benchmark of a million runs measures the wrong code.
	bpf_map_push_elem(&verdicts, &value, BPF_EXIST);
}

#if VERSION == 3
// The regression, the story's loop: walks the sequence from the start for
// every packet, while b < n; 255 takes the most steps (13).
static __always_inline int is_fibonacci(__u32 n)
{
	__u32 a = 0, b = 1;

	// Bounded for the verifier, which the story's loop needs no more than:
	// b passes every n below 256 within 13 steps (377).
#pragma clang loop unroll(disable)
	for (int i = 0; i < 14 && b < n; i++) {
		__u32 c = a + b;
		a = b;
		b = c;
	}
	return b == n;
}
#elif VERSION == 4
// The fix: the 13 Fibonacci numbers below 256, compared directly.
static __always_inline int is_fibonacci(__u32 n)
{
	switch (n) {
	case 0: case 1: case 2: case 3: case 5: case 8: case 13:
	case 21: case 34: case 55: case 89: case 144: case 233:
		return 1;
	}
	return 0;
}
#endif

SEC("xdp")
int fizzbuzz(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;

	struct iphdr *ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;

	__u32 addr = bpf_ntohl(ip->saddr);

#if VERSION == 1
	push(addr);
#else
#if VERSION >= 3
	// The Fibonacci test first, for every packet: every packet pays for it.
	if (is_fibonacci(addr % 256)) {
		push(FIBONACCI);
		return XDP_PASS;
	}
#endif
	if (addr % 15 == 0)
		push(FIZZBUZZ);
	else if (addr % 3 == 0)
		push(FIZZ);
	else if (addr % 5 == 0)
		push(BUZZ);
#endif
	return XDP_PASS;
}
