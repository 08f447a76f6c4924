// Package report renders every output of every command, and writes it:
// a run's findings (results.Report) as a table for the terminal, as wide
// and verbose as its View asks, Bencher Metric Format for CI dashboards,
// the saved schema's JSON and Go benchmark lines for benchstat; a run
// across kernels; a profile and the costliest packets (internal/profile
// and internal/worst encode them); the ladder's validation; the listings
// of the programs and packets commands, and the pcap and packet files.
// The HTML page with plots is internal/htmlpage's.
//
// One registry (output.go) says which formats render which kind of
// content; the commands ask it for their formats, for help and checking,
// and write through Output, its one rule of standard output unless a
// file is given, and its one atomic file writer, WriteFile: an
// interrupted run never leaves half a file.
//
// It computes nothing of the findings: internal/analysis does. It knows
// nothing of how the samples were taken.
package report
