// Package kmem estimates the kernel memory BPF maps and programs hold,
// from their specs, and refuses loads past a budget: a map's max_entries
// is an untrusted object's to choose, and what the kernel holds is no
// process's RSS. Object loading (internal/object) computes each program's
// footprint; the runner (testrun) fits its loads to the budget.
package kmem
