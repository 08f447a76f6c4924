// Package kernels runs one xdpmicro command on several kernels: the
// running one ("host") as a child process, each other one booted under
// QEMU by package internal/vm with the command, its input files and
// xdpmicro itself inside; with KVM where /dev/kvm runs the kernel, else
// under TCG's emulation, where the command is given fewer samples, as
// its times mean nothing. It returns, kernel by kernel, what the command
// wrote and why a kernel gave nothing; and it turns bench's JSON reports
// into the saved schema of a run across kernels (results.KernelRuns).
package kernels
