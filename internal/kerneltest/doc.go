// Package kerneltest helps tests look at the kernel's own lists of BPF
// programs and maps, to check that a run leaves nothing loaded, keeps the
// kernel tests of different packages from measuring at once, and finds
// the kernel images and QEMU that the --kernel tests boot. It holds the
// helpers tests of several packages share: a bpf/testdata object as
// package object's or testrun's Object (ReadTestObject), a CPU claimed as a
// run claims it (ClaimCPU).
package kerneltest
