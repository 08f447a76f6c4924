// Package worst searches for the packets that run the most instructions
// through a program: it builds packets by their fields (gopacket), mutates
// them and patches their bytes, takes values from the program's constants
// and map keys, and runs each through the instrumented copy of the program
// that testrun.NewCounter loads, keeping the costliest distinct paths
// (coverage and cost feedback, as AFL and PerfFuzz steer). It says what
// makes each costly, as results.Worst saves it (package report renders
// it); the root package's Worst times what it finds.
package worst
