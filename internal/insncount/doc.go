// Package insncount counts the BPF instructions a program executes.
//
// It rewrites a copy of a program so that every basic block first adds its
// number of instructions to a 64-bit counter in a one-entry array map; a
// run of the copy then leaves in the counter the number of the original
// program's instructions that run executed. The count is exact and the
// same on every machine and every run of the same path: it needs no
// performance counters, which virtual machines and CI runners rarely have.
//
// What is counted is the program as the object holds it, the instructions
// llvm-objdump lists: a 64-bit immediate load (two slots) counts once, a
// call of a helper or kfunc counts once whatever the helper does, a
// bpf-to-bpf call counts once and the callee's instructions count as they
// run, and so do a callback's. Not counted: what the verifier adds or
// rewrites (context accesses, inlined helpers, bounds checks), the JIT's
// machine code, and the program a successful tail call enters.
//
// The counting code needs two scratch registers at the start of every
// block. It takes registers the program does not read before writing
// (found by liveness analysis); where fewer than two are free it saves
// registers that are certainly initialised to stack slots below the
// function's own frame, whose depth the verifier reports (StackDepths).
package insncount
