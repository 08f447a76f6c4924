//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object for stateful measurement (issue 48): a load balancer's flow
// table, whose cost depends on what earlier runs left in its maps.
//
//   flowtable:           parses Ethernet + IPv4 + TCP or UDP into a
//                        5-tuple and looks it up in the LRU hash flows.
//                        Hit: counts the packet, XDP_TX; cheap.
//                        Miss: a new flow, deliberately slow: a hash of
//                        HASH_ROUNDS mixing rounds, a walk of the
//                        consistent-hash ring to a healthy backend, a clock
//                        read and an insert; XDP_TX, or XDP_DROP when no
//                        healthy backend is within RING_PROBES positions.
//                        Not IPv4 or not TCP/UDP: XDP_PASS. A frame too
//                        short for its headers: XDP_ABORTED.
//   flowtable_reference: the in-BPF timing that xdpmicro's --state first
//                        (miss) and --state steady (hit) are checked
//                        against; see below.
//
// Both call the same global function, flowtable_core, so that they run
// the same instructions. No path writes the frame, so repeats of one call
// see the same input. The ring and the backends are initialised globals
// in .data: the program runs as loaded, without --map-init.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char __license[] SEC("license") = "Dual BSD/GPL";

// Rounds of the new-flow hash: tuned so that a miss costs well over 5
// times a hit (about 250 ns and 17 ns by flowtable_reference on a 2-core
// 6.18 VM, busy).
#define HASH_ROUNDS 48
#define RING_SIZE 1021 // a prime, as consistent-hash rings are sized
#define RING_PROBES 8
#define NBACKENDS 16

// The 5-tuple as the frame holds it (addresses and ports in network byte
// order); pad is zeroed, as the hash compares all 16 bytes.
struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

struct conn {
	__u32 backend;
	__u32 pad;
	__u64 created_ns;
	__u64 packets;
};

struct backend {
	__u32 addr; // network byte order
	__u32 healthy;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct flow_key);
	__type(value, struct conn);
} flows SEC(".maps");

// Counted on each path, so that what runs leave behind accumulates.
struct {
	__u64 hits;
	__u64 misses;
	__u64 drops;
} stats;

// The ring: backend ids, backend (i * 7) % 16 at position i, so that
// neighbouring positions name different backends.
#define RING_AT(i) ((__u32)(((i) * 7) % NBACKENDS))
#define R1(i) RING_AT(i)
#define R2(i) R1(i), R1((i) + 1)
#define R4(i) R2(i), R2((i) + 2)
#define R8(i) R4(i), R4((i) + 4)
#define R16(i) R8(i), R8((i) + 8)
#define R32(i) R16(i), R16((i) + 16)
#define R64(i) R32(i), R32((i) + 32)
#define R128(i) R64(i), R64((i) + 64)
#define R256(i) R128(i), R128((i) + 128)
#define R512(i) R256(i), R256((i) + 256)

// 512 + 256 + 128 + 64 + 32 + 16 + 8 + 4 + 1 = 1021 = RING_SIZE.
__u32 ring[RING_SIZE] = {
	R512(0), R256(512), R128(768), R64(896), R32(960),
	R16(992), R8(1008), R4(1016), R1(1020),
};

#define BACKEND(n, up) { .addr = bpf_htonl(0x0a000000 + (n) + 1), .healthy = (up) }

// 10.0.0.1 to 10.0.0.16; 4 of 16 healthy (2, 5, 11, 13), so that a new
// flow probes 1 to 8 positions of the ring (8 at most, for positions
// whose backend is 12).
struct backend backends[NBACKENDS] = {
	BACKEND(0, 0), BACKEND(1, 0), BACKEND(2, 1), BACKEND(3, 0),
	BACKEND(4, 0), BACKEND(5, 1), BACKEND(6, 0), BACKEND(7, 0),
	BACKEND(8, 0), BACKEND(9, 0), BACKEND(10, 0), BACKEND(11, 1),
	BACKEND(12, 0), BACKEND(13, 1), BACKEND(14, 0), BACKEND(15, 0),
};

// PARSED: the frame gave a key; anything else is the verdict.
#define PARSED -1

static __always_inline int parse_key(struct xdp_md *ctx, struct flow_key *key)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;
	if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	if (ip->ihl < 5)
		return XDP_ABORTED; // a header shorter than its fixed part

	// TCP and UDP both start with the source and destination ports; the
	// length checked is the whole fixed header of each.
	__be16 *l4 = (void *)ip + ip->ihl * 4;
	if (ip->protocol == IPPROTO_TCP) {
		if ((void *)l4 + 20 > data_end)
			return XDP_ABORTED;
	} else if ((void *)l4 + 8 > data_end) {
		return XDP_ABORTED;
	}

	key->saddr = ip->saddr;
	key->daddr = ip->daddr;
	key->sport = l4[0];
	key->dport = l4[1];
	key->proto = ip->protocol;
	return PARSED;
}

static __always_inline __u32 rotl32(__u32 x, int r)
{
	return (x << r) | (x >> (32 - r));
}

// The new flow's hash: murmur3-style rounds over the key's four words,
// fed back into the words so that no round can be skipped.
static __always_inline __u32 flow_hash(const struct flow_key *key)
{
	__u32 w0 = key->saddr, w1 = key->daddr;
	__u32 w2 = ((__u32)key->sport << 16) | key->dport, w3 = key->proto;
	__u32 h = 0x9747b28c;

#pragma clang loop unroll(disable)
	for (int i = 0; i < HASH_ROUNDS; i++) {
		__u32 k = w0 * 0xcc9e2d51;
		k = rotl32(k, 15) * 0x1b873593;
		h ^= k;
		h = rotl32(h, 13) * 5 + 0xe6546b64;
		w0 = w1;
		w1 = w2;
		w2 = w3;
		w3 = k ^ h;
	}
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	return h ^ (h >> 16);
}

// The per-packet logic, a global function so that flowtable and
// flowtable_reference run it as one, and the verifier checks it once.
__noinline int flowtable_core(struct xdp_md *ctx)
{
	struct flow_key key = {};
	int verdict = parse_key(ctx, &key);

	if (verdict != PARSED)
		return verdict;

	struct conn *c = bpf_map_lookup_elem(&flows, &key);
	if (c) {
		c->packets++;
		stats.hits++;
		return XDP_TX;
	}

	stats.misses++;
	__u32 pos = flow_hash(&key) % RING_SIZE;
#pragma clang loop unroll(disable)
	for (int probe = 0; probe < RING_PROBES; probe++) {
		// The compiler knows pos < RING_SIZE; the verifier must see it.
		barrier_var(pos);
		if (pos >= RING_SIZE)
			break;
		__u32 id = ring[pos];
		if (id < NBACKENDS && backends[id].healthy) {
			struct conn fresh = {
				.backend = id,
				.created_ns = bpf_ktime_get_ns(),
				.packets = 1,
			};
			bpf_map_update_elem(&flows, &key, &fresh, BPF_NOEXIST);
			return XDP_TX;
		}
		pos = pos + 1 == RING_SIZE ? 0 : pos + 1;
	}
	stats.drops++;
	return XDP_DROP;
}

SEC("xdp")
int flowtable(struct xdp_md *ctx)
{
	return flowtable_core(ctx);
}

// The reference: one run (repeat 1) on a frame of one flow times batches
// of ref_batch calls with bpf_ktime_get_ns, resetting the state inside the
// timed loop as the kernel's XDP load-balancer benchmark does:
//
//   miss_total:  ref_batch x { delete the flow; flowtable_core }
//   reset_total: ref_batch x { delete the flow }
//   hit_total:   ref_batch x { flowtable_core }, after one call to insert
//   empty_total: ref_batch x { flowtable_empty }
//
// A miss costs (miss_total - reset_total) / batch, a hit (hit_total -
// empty_total) / batch. The reset loop deletes a flow that is not there
// (after its first call), the miss loop one that is, so the miss is over
// by what removing an entry costs beyond looking for it.
struct ref_result {
	__u64 miss_total;
	__u64 reset_total;
	__u64 hit_total;
	__u64 empty_total;
	__u64 batch;
	__u64 sink; // the calls' results, summed, so that none is left out
} ref;

// Calls per batch; bpf_loop takes at most 1 << 23.
volatile const __u32 ref_batch = 1000;

// The call the hit loop's overhead is measured with: it does nothing, but
// its asm keeps the compiler from dropping the calls, or ctx from them
// (the verifier wants the context in r1, as the function's BTF says).
__noinline int flowtable_empty(struct xdp_md *ctx)
{
	asm volatile("" : : "r"(ctx) : "memory");
	return XDP_PASS;
}

struct ref_loop {
	struct xdp_md *ctx;
	struct flow_key key;
	__u64 sink;
};

static long miss_step(__u32 index, void *data)
{
	struct ref_loop *l = data;

	l->sink += bpf_map_delete_elem(&flows, &l->key);
	l->sink += flowtable_core(l->ctx);
	return 0;
}

static long reset_step(__u32 index, void *data)
{
	struct ref_loop *l = data;

	l->sink += bpf_map_delete_elem(&flows, &l->key);
	return 0;
}

static long hit_step(__u32 index, void *data)
{
	struct ref_loop *l = data;

	l->sink += flowtable_core(l->ctx);
	return 0;
}

static long empty_step(__u32 index, void *data)
{
	struct ref_loop *l = data;

	l->sink += flowtable_empty(l->ctx);
	return 0;
}

SEC("xdp")
int flowtable_reference(struct xdp_md *ctx)
{
	struct ref_loop l = {.ctx = ctx};
	__u32 batch = ref_batch;
	__u64 t0, t1, t2, t3, t4, t5;

	if (parse_key(ctx, &l.key) != PARSED)
		return XDP_ABORTED;

	t0 = bpf_ktime_get_ns();
	bpf_loop(batch, miss_step, &l, 0);
	t1 = bpf_ktime_get_ns();
	bpf_loop(batch, reset_step, &l, 0);
	t2 = bpf_ktime_get_ns();
	l.sink += flowtable_core(ctx); // inserts the flow: every call below hits
	t3 = bpf_ktime_get_ns();
	bpf_loop(batch, hit_step, &l, 0);
	t4 = bpf_ktime_get_ns();
	bpf_loop(batch, empty_step, &l, 0);
	t5 = bpf_ktime_get_ns();

	ref.miss_total = t1 - t0;
	ref.reset_total = t2 - t1;
	ref.hit_total = t4 - t3;
	ref.empty_total = t5 - t4;
	ref.batch = batch;
	ref.sink = l.sink;
	return XDP_PASS;
}
