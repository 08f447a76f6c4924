// Package livenet owns a place for live frames to go: a veth pair, xm0 and
// xm1, in a network namespace of its own, with a counter on each way a
// frame can leave xm0.
//
// BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES (Linux 5.18) carries
// out an XDP program's action for real, on frames that arrive on the
// interface its context names (ingress_ifindex), looked up in the calling
// thread's network namespace. A benchmark of XDP_TX, XDP_REDIRECT or
// XDP_PASS therefore needs an interface that takes those frames somewhere
// harmless, and a way to see that they got there: veth's own statistics
// do not count live frames.
//
// The namespace is anonymous: unshared on a thread of its own and held
// only by the Pair's file descriptor, never bind-mounted under /run/netns.
// The kernel frees it, with both links and the programs attached to them,
// when the last descriptor closes: at Close, or when the process dies
// however it dies, SIGKILL included. That is why nothing can be left
// behind on the host, and why the host's namespace never sees xm0 or xm1.
// Close still tears the links down itself, rather than leave it to the
// kernel's asynchronous namespace cleanup.
//
// The counters: xm_peer_count, an XDP program on the peer xm1, counts the
// frames xm0 sent (XDP_TX, redirects into a devmap naming xm0) and drops
// them. It runs in native mode where it can, because veth refuses XDP_TX
// and redirects out of xm0 unless its peer runs XDP natively (or has GRO
// on). xm_stack_count, a tc clsact ingress filter on xm0, counts the skbs
// xm0's stack received (XDP_PASS, redirects into a cpumap) and lets them
// on. For a program that redirects into an xskmap, FillXskmap binds an
// AF_XDP socket to xm0's queue 0 in copy mode; its RX ring counts what it
// received, and Drain gives the chunks back after each call. IPv6 is off on both links and neither has an address, so nothing
// else crosses them: the counts are the benchmark's frames alone.
package livenet
