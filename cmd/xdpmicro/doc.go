// Command xdpmicro benchmarks eBPF XDP programs through BPF_PROG_TEST_RUN
// and reports Criterion-style statistics per packet case.
//
// This package only wires the others together: flags become a
// xdpmicro.Options, xdpmicro.Run measures and analyses, and its results.Report
// is written in the asked format; a regression becomes the exit code asked
// for. Run `xdpmicro help` for the commands and their flags.
package main
