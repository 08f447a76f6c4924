//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// A ladder of programs of known relative cost, to validate measurements:
// ladder_N does BASE_STEPS + N identical steps, each a multiply and an add
// on a value the compiler cannot know, chained so that no step can start
// before the last has finished. The empty asm in each step keeps clang
// from folding or reordering steps, so ladder_N is ladder_0 plus exactly N
// copies of the step's two instructions. The multiplier fits an
// instruction's immediate: a 64-bit constant would be loaded into a
// register once, before the first step, and make ladder_1 cost more than
// one step.
//
// The chain is carried from one run to the next through a global, and so
// bounds how fast runs follow each other; but an out-of-order core runs
// the test-run loop's own work per run beside it, so a run costs about the
// longer of the two, not their sum. Measured on an AMD EPYC whose loop
// takes 27 ns a run: 0 to 16 steps read the same, 32 steps 4.5 ns more, 64
// steps 31.7 ns more. Every rung therefore stands on BASE_STEPS steps,
// twice that loop there, so that each step beyond them adds its cost on
// any such core. Storing the chain is also what keeps it alive; every
// program then returns XDP_PASS, with no branch on the result.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

#define STEP(x)                                \
	do {                                       \
		x = x * 0x5bd1e995 + 1;                \
		asm volatile("" : "+r"(x));            \
	} while (0)

__u64 carry;

#define BASE_STEPS 64

// A fine step: x doubled, which clang emits as a shift by one, a single
// one-cycle instruction: a fraction of a step, for differences below the
// kernel timer's 1 ns quantum. Not an add of a constant: recent x86 cores
// fold those at rename, and four of them measured nothing here.
#define FINE_STEP(x)                           \
	do {                                       \
		x += x;                                \
		asm volatile("" : "+r"(x));            \
	} while (0)

static __always_inline int ladder(struct xdp_md *ctx, int steps, int fine)
{
	__u64 x = carry + (ctx->data_end - ctx->data);

#pragma clang loop unroll(full)
	for (int i = 0; i < steps; i++)
		STEP(x);
#pragma clang loop unroll(full)
	for (int i = 0; i < fine; i++)
		FINE_STEP(x);
	carry = x;
	return XDP_PASS;
}

#define LADDER(n)                                  \
	SEC("xdp")                                     \
	int ladder_##n(struct xdp_md *ctx)             \
	{                                              \
		return ladder(ctx, BASE_STEPS + n, 0);     \
	}

LADDER(0)
LADDER(1)
LADDER(2)
LADDER(4)
LADDER(8)
LADDER(16)
LADDER(32)
LADDER(64)

// fine_N: ladder_0 and N fine steps. The fine steps count only when the
// chain is the critical path of the kernel's loop, which its base steps
// see to (sixteen steps, the base on a Xeon before, were not enough on
// an AMD EPYC whose loop takes 28 ns a run).
#define FINE(n)                                    \
	SEC("xdp")                                     \
	int fine_##n(struct xdp_md *ctx)               \
	{                                              \
		return ladder(ctx, BASE_STEPS, n);         \
	}

FINE(0)
FINE(1)
FINE(2)
FINE(4)
FINE(8)
FINE(16)
