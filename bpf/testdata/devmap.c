//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for where live frames may go: to_port redirects every
// packet through key 0 of ports, a devmap of bpf_devmap_val (an ifindex,
// and the fd of a program to run before sending); to_hashed_port through
// key 7 of hashed_ports, a devmap_hash of bare ifindexes; to_ifindex
// straight to the interface whose ifindex target holds (bpf_redirect, no
// map; set it with --set target=N). A redirect that finds no interface
// aborts.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} hashed_ports SEC(".maps");

volatile const __u32 target = 1;

SEC("xdp")
int to_port(struct xdp_md *ctx)
{
	return bpf_redirect_map(&ports, 0, 0);
}

SEC("xdp")
int to_hashed_port(struct xdp_md *ctx)
{
	return bpf_redirect_map(&hashed_ports, 7, 0);
}

SEC("xdp")
int to_ifindex(struct xdp_md *ctx)
{
	return bpf_redirect(target, 0);
}
