//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for XDP programs that run from a cpumap or a devmap, as
// xdp-bench pairs them: spread, a plain XDP program, redirects every
// packet into a cpumap (XDP_PASS when the CPU's entry is empty, as it is
// here). cpu_count, the program a cpumap entry would run on its CPU,
// counts the packets it sees by EtherType class; dev_filter, the program
// a devmap entry would run before transmitting, drops ARP and passes the
// rest; dev_egress drops what leaves by interface 1, which only a devmap
// program may ask (ctx->egress_ifindex). The kernel test-runs none of the
// last three as they are (their expected attach type is BPF_XDP_CPUMAP or
// BPF_XDP_DEVMAP); the first two run as plain XDP.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

SEC("xdp")
int spread(struct xdp_md *ctx)
{
	return bpf_redirect_map(&cpus, 0, XDP_PASS);
}

SEC("xdp/cpumap")
int cpu_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 class;
	__u64 *n;

	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	class = eth->h_proto != bpf_htons(ETH_P_IP); /* 0: IPv4, 1: the rest */
	n = bpf_map_lookup_elem(&seen, &class);
	if (n)
		*n += 1;
	return XDP_PASS;
}

SEC("xdp.frags/devmap")
int dev_filter(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	return eth->h_proto == bpf_htons(ETH_P_ARP) ? XDP_DROP : XDP_PASS;
}

SEC("xdp/devmap")
int dev_egress(struct xdp_md *ctx)
{
	return ctx->egress_ifindex == 1 ? XDP_DROP : XDP_PASS;
}
