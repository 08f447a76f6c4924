// Package host is the machine a run measures on: choosing the CPU and
// holding it against other xdpmicro runs (a machine-wide lock per CPU),
// pinning the measuring thread to it, watching how busy the machine was
// while it measured, what its CPU does to a test run (TLB flushes on
// kernel entry), and whether this process may load BPF at all; and the
// threads kept pinned to a CPU for the anchors (ThreadOn, StartWaker),
// with the Go runtime's spare Ps for them (ReserveProcs), and the
// kernel's grace periods expedited while the anchors change the XDP
// dispatcher (ExpediteRCU).
//
// It knows nothing of BPF programs, samples or statistics: package
// testrun asks it where to measure and what the machine did meanwhile.
package host
