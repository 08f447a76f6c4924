// Package bpf holds the bundled XDP programs: the C source of
// FizzBuzzFibonacci, its four builds compiled with bpf2go (the generated Go
// and .o files are committed and embedded, so building xdpmicro needs no
// clang), and a registry of the builds by name.
//
// It knows nothing of packets, measurement or output: it hands out ELF
// objects.
package bpf
