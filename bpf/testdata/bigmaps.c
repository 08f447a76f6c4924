//go:build ignore

// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// Test object: maps too large to copy whole for a checking run's map
// effects, as internal/object budgets them (16 MiB a map, 64 MiB in all).
//
//   .bss:         an 8 MiB global, compared: read one entry a call, shown
//                 cut ("… (N more bytes)").
//   slab_a .. d:  arrays of one 15 MiB value, compared in name order
//                 until the budget is spent: a, b, c fit beside .bss
//                 (53 MiB), d would pass 64 MiB and is noted.
//   too_big:      an array of one 17 MiB value, over a map's 16 MiB:
//                 created mmapable, and compared in memory instead.
//
// bump writes the first byte of each.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char __license[] SEC("license") = "Dual BSD/GPL";

char big[8 << 20];

struct slab {
	char b[15 << 20];
};

struct huge {
	char b[17 << 20];
};

#define SLAB(name)                                  \
	struct {                                    \
		__uint(type, BPF_MAP_TYPE_ARRAY);   \
		__uint(max_entries, 1);             \
		__type(key, __u32);                 \
		__type(value, struct slab);         \
	} name SEC(".maps")

SLAB(slab_a);
SLAB(slab_b);
SLAB(slab_c);
SLAB(slab_d);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct huge);
} too_big SEC(".maps");

static __always_inline void touch(void *map)
{
	__u32 zero = 0;
	char *v = bpf_map_lookup_elem(map, &zero);
	if (v)
		v[0]++;
}

SEC("xdp")
int bump(struct xdp_md *ctx)
{
	big[0]++;
	touch(&slab_a);
	touch(&slab_b);
	touch(&slab_c);
	touch(&slab_d);
	touch(&too_big);
	return XDP_PASS;
}
