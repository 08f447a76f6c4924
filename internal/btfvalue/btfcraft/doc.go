// Package btfcraft rewrites the BTF of a compiled BPF object in place, for
// tests: it makes the types no compiler writes (a struct that holds
// itself, a member past its struct's end) that crafted objects carry, so
// that the code reading them can be shown to stay bounded.
package btfcraft
