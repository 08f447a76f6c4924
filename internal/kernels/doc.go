// Package kernels runs one xdpmicro command on several kernels: the
// running one ("host") as a child process, each other one booted under
// QEMU with the command, its input files and xdpmicro itself inside; with
// KVM where /dev/kvm runs the kernel, else under TCG's emulation, where
// the command is given fewer samples, as its times mean nothing. It
// returns, kernel by kernel, what the command wrote and why a kernel gave
// nothing; and it turns bench's JSON reports into the saved schema of a
// run across kernels (results.KernelRuns).
//
// The VMs (qemu.go, initramfs.go, guest.go, sandbox.go, console.go)
// boot another kernel with xdpmicro itself as its /init, to run one
// command there and bring its output back: the initramfs (a newc cpio
// written in Go, holding the binary, its ELF interpreter and libraries if
// it has any, the job and the input files at the paths the command line
// names them by), the QEMU command line and its watch (a boot deadline, a
// run deadline, the console's tail), QEMU's confinement (another user than
// root, its seccomp filter, its files handed over open: memfds and pipes,
// nothing on disk), the bounds on what a guest sends back, the check that
// a file is a kernel image, and the guest's side: mounting what the tool
// needs, running the command, writing its output to the second serial
// port and powering off. That part knows nothing of benchmarks: a
// GuestJob is a command line, a BootOutcome what one boot gave.
package kernels
