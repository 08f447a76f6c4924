// Package worst searches for the packets that run the most instructions
// through a program: it builds packets by their fields (gopacket), mutates
// them and patches their bytes, takes values from the program's constants
// and map keys, and runs each through the instrumented copy of the program
// that testrun.NewCounter loads, keeping the costliest distinct paths
// (coverage and cost feedback, as AFL and PerfFuzz steer). It says what
// makes each costly and reports them as a table, JSON and a packet file;
// the root package's Worst times what it finds.
package worst
