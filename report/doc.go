// Package report renders every output of every command, and writes it:
// a run's findings (results.Report) as a table for the terminal, as wide
// and verbose as its View asks, Bencher Metric Format for CI dashboards,
// the saved schema's JSON and Go benchmark lines for benchstat; a run
// across kernels; a profile (text, JSON, pprof, callgrind) and one across
// kernels; the costliest packets (a table, JSON, a packet file); the
// ladder's validation; the listings of the programs and packets
// commands, and the pcap and packet files.
// The HTML page with plots is internal/htmlpage's. A run's renderings
// are this package's; the others' (a profile, the costliest packets, the
// listings, the validation) are internal/render's, which the registry's
// rows call, and what both share, text safe on a terminal, JSON and
// tables, is internal/printable's.
//
// One registry (output.go) says which formats render which kind of
// content; the commands ask it for their formats, for help and checking,
// and write through Output, its one rule of standard output unless a
// file is given, and its one atomic file writer, WriteFile: an
// interrupted run never leaves half a file.
//
// It computes nothing of the findings: internal/analysis does. It knows
// nothing of how the samples were taken: it renders results' types, and
// plain data the producer hands it where a renderer needs what is not
// saved (results.Profile's Layout, the frames of the packet file, the
// listings' programs and maps); deps_test.go holds it to that.
package report
