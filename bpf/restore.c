//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// The restorer: runs an XDP program on a fresh copy of its input frame in
// every run of a test run. BPF_PROG_TEST_RUN runs all of a call's repeats
// on one buffer, so a program that changes its packet sees its own output
// from the second run on. Before each run the restorer puts the buffer
// back as the kernel made it: no metadata, the data where the kernel put
// it, the case's length; for a case some program changes, its bytes;
// then it tail-calls the program. Every run of a case does the same work
// whatever this program changed: where any program moves a case's ends,
// every restorer moves them back, with a zero move where nothing moved,
// and where any program changes its bytes, every restorer writes them, so
// that the floor, run through a restorer of its own, takes the restoring
// out of the net. A case no program changes is left alone. A flows=N case
// gets the next of its flows each run: the bytes its flows differ in are
// made from the flow's index and patched in, the floor's alike.
//
// Where the kernel puts the data: the test run's buffer is one page,
// page-aligned, with the data headroom bytes into it (XDP_PACKET_HEADROOM).
// xdpmicro checks, before it relies on a restorer, that its runs reproduce
// the program's own first run, frame and action, call after call.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* The most a test run's page holds: 4096 less the headroom and the shared
 * info at its end. */
#define MAX_FRAME 3520

struct frame {
	__u32 len;
	/* Whether to write the bytes back: set where a program changes them.
	 * A program's first loads of bytes just stored cost more than of
	 * bytes nobody wrote (1-3 ns measured here), so a frame nothing
	 * changes is left alone. */
	__u32 write;
	/* Whether to move the ends back: set where a program changes the
	 * frame's length. Every helper call writes the kernel's xdp_buff, and
	 * a program's loads of ctx->data just written cost more too. */
	__u32 move;
	/* A flows=N case's N, 0 for others: each run then takes the next of
	 * its flows, made here from its index, so that nothing is kept per
	 * flow (N reaches 2^24). next is where the next run starts, kept
	 * across calls. patch_at are the offsets of the bytes flows differ
	 * in (the source address's last 4, the source port, the IPv4 header
	 * checksum, the transport checksum), 0 for a checksum left alone;
	 * addr to l4_check are flow 0's values there, in host order, as
	 * packets.FlowPatch gives them; udp: a transport checksum that comes
	 * to 0 is written 0xffff (0 means none for UDP). */
	__u32 flows;
	__u32 next;
	__u16 patch_at[4];
	__u32 addr;
	__u16 port;
	__u16 ip_check;
	__u16 l4_check;
	__u16 udp;
	__u8 bytes[MAX_FRAME];
};

/* One entry per case, in the order of the run's cases; sized at load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frame);
} frames SEC(".maps");

/* The program under test, at key 0. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target SEC(".maps");

/* Pointers pass through here to become numbers. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[3]);
} scratch SEC(".maps");

/* The case the next calls run; xdpmicro sets it before them. */
__u32 current_case;
const volatile __u32 headroom = 256;

char __license[] SEC("license") = "Dual BSD/GPL";

/* STORED_HEAD is how many of a frame's first bytes are written back with
 * the program's own 8-byte stores; bpf_xdp_store_bytes writes the rest.
 * The helper's memcpy is a string copy on some CPUs, whose stores a later
 * load cannot take from the store buffer: it waits until they reach the
 * cache. A program's loads of the headers just written then cost what
 * nothing else in the floor pays (3.5 ns a run on one Xeon host, 1-3 on an
 * EPYC one). Plain stores forward to loads they contain. */
#define STORED_HEAD 256

static __always_inline int write_bytes(struct xdp_md *ctx, struct frame *f, __u32 want)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 head = want < STORED_HEAD ? want : STORED_HEAD;

	for (__u32 i = 0; i + 8 <= head && i < STORED_HEAD; i += 8) {
		if (data + i + 8 > end)
			return -1;
		*(__u64 *)(data + i) = *(__u64 *)(f->bytes + i);
	}
	/* The last few bytes, from an 8-byte store ending at head: every frame
	 * holds at least 14. */
	__u32 last = (head - 8) & (STORED_HEAD - 1);

	if (data + last + 8 > end)
		return -1;
	*(__u64 *)(data + last) = *(__u64 *)(f->bytes + last);
	if (want <= STORED_HEAD)
		return 0;
	/* Bounds checked on the length itself, hidden from clang, which
	 * would fold them into want's: 6.1's verifier does not carry want's
	 * bounds to want - STORED_HEAD, and refused the restorer. */
	__u32 rest = want - STORED_HEAD;

	asm volatile("" : "+r"(rest));
	if (rest < 1 || rest > MAX_FRAME - STORED_HEAD)
		return -1;
	return bpf_xdp_store_bytes(ctx, STORED_HEAD, f->bytes + STORED_HEAD, rest);
}

/* patch writes a flow's size bytes at at, value in host order, with one
 * store as write_bytes does; an at of 0 is left alone. */
static __always_inline int patch(struct xdp_md *ctx, __u32 at, __u32 value, const int size)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;

	if (!at)
		return 0;
	if (at > MAX_FRAME || data + at + size > end)
		return -1;
	if (size == 4)
		*(__u32 *)(data + at) = bpf_htonl(value);
	else
		*(__u16 *)(data + at) = bpf_htons((__u16)value);
	return 0;
}

/* fold folds a ones' complement sum of 16-bit words to 16 bits. */
static __always_inline __u16 fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)((sum & 0xffff) + (sum >> 16));
}

/* put_flow makes the frame flow i of f's: the address's last 32 bits and
 * the port stepped by i, each wrapping, and the checksums updated from
 * flow 0's by RFC 1624's eqn. 3, HC' = ~(~HC + ~m + m'), over the words
 * that changed. That sum is congruent, mod 0xffff, to the one a checksum
 * made anew folds, and a nonzero sum folds to the one value of its class
 * in 1 to 0xffff: the bytes are those packets.FlowSet makes. (It is zero
 * only from a UDP checksum of 0xffff, and gives 0xffff as anew.) */
static __always_inline int put_flow(struct xdp_md *ctx, struct frame *f, __u32 i)
{
	__u32 addr = f->addr + i;
	__u16 port = f->port + (__u16)i;
	/* ~m + m' of the address's two words: what both checksums add. */
	__u32 delta = (~f->addr >> 16) + (~f->addr & 0xffff) + (addr >> 16) + (addr & 0xffff);
	__u16 ip = ~fold((__u16)~f->ip_check + delta);
	__u16 l4 = ~fold((__u16)~f->l4_check + delta + (__u16)~f->port + port);

	if (f->udp && !l4)
		l4 = 0xffff;
	if (patch(ctx, f->patch_at[0], addr, 4) || patch(ctx, f->patch_at[1], port, 2) ||
	    patch(ctx, f->patch_at[2], ip, 2) || patch(ctx, f->patch_at[3], l4, 2))
		return -1;
	return 0;
}

/* may_move is false in restore_bytes, which leaves the pointers alone: the
 * verifier lets a program store a pointer in a map only with CAP_PERFMON,
 * and a run whose cases keep their length needs no such privilege. */
static __always_inline int restore_frame(struct xdp_md *ctx, const int may_move)
{
	__u32 key = current_case, zero = 0;
	struct frame *f = bpf_map_lookup_elem(&frames, &key);

	if (!f)
		return XDP_ABORTED;
	__u32 want = f->len;

	if (want < 14 || want > MAX_FRAME)
		return XDP_ABORTED;
	if (may_move && f->move) {
		__u64 *slot = bpf_map_lookup_elem(&scratch, &zero);

		if (!slot)
			return XDP_ABORTED;
		slot[0] = (__u64)(long)ctx->data;
		slot[1] = (__u64)(long)ctx->data_meta;
		slot[2] = (__u64)(long)ctx->data_end;
		volatile __u64 *n = slot;
		__u64 data = n[0], meta = n[1], end = n[2];
		__u64 start = (data & ~0xfffULL) + headroom;

		if (bpf_xdp_adjust_meta(ctx, (int)(data - meta)) ||
		    bpf_xdp_adjust_head(ctx, (int)(start - data)) ||
		    bpf_xdp_adjust_tail(ctx, (int)want - (int)(end - start)))
			return XDP_ABORTED;
	}
	if (f->write && write_bytes(ctx, f, want))
		return XDP_ABORTED;
	if (f->flows) {
		__u32 i = f->next;

		f->next = i + 1 >= f->flows ? 0 : i + 1;
		if (put_flow(ctx, f, i))
			return XDP_ABORTED;
	}
	bpf_tail_call(ctx, &target, 0);
	return XDP_ABORTED;
}

SEC("xdp")
int restore(struct xdp_md *ctx)
{
	return restore_frame(ctx, 1);
}

SEC("xdp")
int restore_bytes(struct xdp_md *ctx)
{
	return restore_frame(ctx, 0);
}
