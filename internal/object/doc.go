// Package object prepares BPF programs to be measured: it reads an ELF
// object, chooses the program, and loads it as its own loader would set
// it up, never pinned or attached. Maps pinned by name are loaded
// unpinned, maps declared without a size are sized, global variables are
// set before loading, and programs in sections that name no type are
// given one (loadopts.go); the programs that program arrays hold are
// loaded with the chosen one; a map-init file fills maps, per-CPU ones
// for every CPU, program arrays by program name, also of another object
// loaded beside (maps.go, mapresolve.go, others.go). It runs a packet
// once through a loaded program, as a checking run does, and records what
// the run changed in the maps (effects.go); it lists an object's programs,
// maps and variables (inspect.go), and lays out the program type's
// context (context.go).
//
// It times nothing: package testrun samples what it loads.
package object
