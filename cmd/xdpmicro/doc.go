// Command xdpmicro benchmarks eBPF XDP programs through BPF_PROG_TEST_RUN
// and reports Criterion-style statistics per packet case.
//
// This package only wires the others together: flags become a
// measure.Config, its result becomes a results.Report, written in the asked
// format. Run `xdpmicro help` for the commands and their flags.
package main
