// Package vm boots another kernel under QEMU with xdpmicro itself as its
// /init, to run one command there and bring its output back: the
// initramfs (a newc cpio written in Go, holding the binary, its ELF
// interpreter and libraries if it has any, the job and the input files
// at the paths the command line names them by), the QEMU command line and
// its watch (a boot deadline, a run deadline, the console's tail), QEMU's
// confinement (another user than root, its seccomp filter, its files
// handed over open: memfds and pipes, nothing on disk), the bounds on
// what a guest sends back, the check that a file is a kernel image, and
// the guest's side: mounting what the tool needs, running the command,
// writing its output to the second serial port and powering off.
//
// It knows nothing of benchmarks: package internal/kernels says which
// command to run where, and reads what comes back.
package vm
