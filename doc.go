// Package xdpmicro measures eBPF programs from Go: in a go test benchmark,
// or anywhere a program wants the figures.
//
// It runs a program through the kernel's BPF_PROG_TEST_RUN, never attached
// to an interface, with everything the xdpmicro command does: anchored
// runs, linear sampling whose slope is the time of one run, the empty
// program's floor measured in the same rounds, the restorer for programs
// that change their frame, the exact number of BPF instructions each case
// executes, and each case's expected action checked before it is timed.
//
// A benchmark reports one sub-benchmark per case:
//
//	func BenchmarkFilter(b *testing.B) {
//		spec, err := loadFilter() // bpf2go's
//		if err != nil {
//			b.Fatal(err)
//		}
//		xdpmicro.Benchmark(b, xdpmicro.Spec(spec, "xdp_filter"), nil)
//	}
//
// Each line carries ns/op, the slope, fractional; insns/op, exact;
// net-ns/op, the time less the floor's; and lo-ns/op and hi-ns/op, the
// slope's confidence interval. benchstat reads them (instruction counts as
// exact: the run prints benchfmt's unit line for them).
//
// Outside tests, Measure and Compare return a results.Run, which
// package report writes as a table, Markdown, BMF, JSON or Go benchmark
// lines (and internal/htmlpage as the --report page).
//
// This package is the API and only the API: Run measures, analyses and
// compares, the engine (internal/engine) doing the work; Profile, Verify,
// Worst and Validate are the other subcommands' runs, and Find turns a
// name on the command line into a Program. Options is the one options
// type, of the command and of a benchmark alike, and plain data: its
// zero value is the defaults, which Options.Complete fills and checks,
// every one of them, before anything is loaded.
// Every error that is the caller's input being wrong wraps ErrBadInput.
//
// Loading and running BPF needs root, or CAP_BPF and CAP_NET_ADMIN (and
// CAP_PERFMON for programs that change their frame's length); without
// them every error wraps ErrPermission, and Benchmark skips, with the
// reason.
package xdpmicro
