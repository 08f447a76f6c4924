//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: a global of nested structs, whose BTF the tests of
// internal/btfvalue's users rewrite into what no compiler writes (a
// struct that holds itself, a member past its struct's end): crafted
// input that must give an error or hex, never a crash.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct inner {
	__u32 a;
};

struct outer {
	struct inner in;
	__u32 b;
};

struct outer nested = {{1}, 2};

SEC("xdp")
int read_nested(struct xdp_md *ctx)
{
	return nested.in.a + nested.b > 3 ? XDP_DROP : XDP_PASS;
}
