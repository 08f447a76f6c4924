// Command xdpmicro benchmarks eBPF XDP programs through BPF_PROG_TEST_RUN
// and reports Criterion-style statistics per packet case.
//
// This package only wires the others together: flags become a
// xdpmicro.Options, the root package's Run (or RunEach, Profile, Worst,
// Validate) measures and analyses, and what it returns is written in the
// asked format; a regression becomes the exit code asked for. It imports
// no internal package: everything it does goes through the root
// package's API. Run `xdpmicro help` for the commands and their flags.
package main
