// Package kerneltest helps tests look at the kernel's own lists of BPF
// programs and maps, to check that a run leaves nothing loaded, and keeps
// the kernel tests of different packages from measuring at once.
package kerneltest
