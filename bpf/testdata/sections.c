//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: socket filters in sections that name no program type, as
// Suricata's are (SEC("filter"), SEC("loadbalancer")), measured with
// --type socket_filter. keep_all keeps the whole packet (-1); balance
// returns a queue number for fanout (0 if none), from a key of struct
// rule, which has an anonymous union, bitfields and big-endian fields:
// the IPv4 destination, the TCP or UDP destination port, the protocol.
// A socket filter's packet starts at the IP header under
// BPF_PROG_TEST_RUN, as on an inet socket; on an AF_PACKET socket it
// starts at the Ethernet header. ethertype returns bytes 12 and 13 of what
// it sees: the EtherType on an AF_PACKET socket, part of the IPv4 source
// address otherwise.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

SEC("filter")
int keep_all(struct __sk_buff *skb)
{
	return -1;
}

SEC("filter")
int ethertype(struct __sk_buff *skb)
{
	__be16 type;

	if (bpf_skb_load_bytes(skb, 12, &type, 2))
		return 0;
	return bpf_ntohs(type);
}

struct rule {
	union {
		__be32 addr;
		__be32 addr6[4];
	};
	__be16 port;
	__u8 proto;
	__u8 family : 4, weight : 4;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, struct rule);
	__type(value, __u32);
} queues SEC(".maps");

SEC("loadbalancer")
int balance(struct __sk_buff *skb)
{
	struct rule r = {};
	__u8 proto;

	if (bpf_skb_load_bytes(skb, 9, &proto, 1) || bpf_skb_load_bytes(skb, 16, &r.addr, 4) ||
	    bpf_skb_load_bytes(skb, 22, &r.port, 2))
		return 0;
	r.proto = proto;
	r.family = 4;
	r.weight = 1;
	__u32 *q = bpf_map_lookup_elem(&queues, &r);
	return q ? *q : 0;
}
