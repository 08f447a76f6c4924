// Package profile attributes the BPF instructions a packet case executed to
// the program's source lines and functions, from the per-block counts of an
// instrumented copy (package insncount) and the object's BTF line and
// function info, as results.Profile saves it; package report renders it
// for people (a cg_annotate-like text), for tools (pprof's profile.proto,
// Callgrind's format) and as JSON.
//
// It is analysis: it takes the counts package testrun took (its Counted
// and Block) and attributes them, but loads, runs and renders nothing.
// What it owns:
//
//   - Program: the static map of a program, each instruction's source line
//     (cilium/ebpf puts a line on the instruction where it starts; the
//     instructions after it inherit it), its function (bpf-to-bpf callees
//     and callbacks are functions of their own), the helper or kfunc it
//     calls, and, from the kernel's program info, the machine code the JIT
//     emitted for each line;
//   - Case: one case's counts, per line and per function, with the helper
//     calls per line and, where the mapping is exact, the machine
//     instructions executed;
//   - Diff: two builds' profiles, per case, line and function;
//   - the layout (results.ProfileLayout) each profile carries in memory
//     for the encodings that need more than its figures: pprof's and
//     callgrind's.
//
// Every executed instruction is attributed to exactly one line and one
// function: the sums equal the count bench shows, which the tests check.
// A program without line info is attributed by instruction index.
package profile
