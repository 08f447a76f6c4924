// Package report renders every output of every command but the HTML
// page, and writes it: a run's findings (results.Run) as a table for
// the terminal, as wide and verbose as its View asks, Bencher Metric
// Format for CI dashboards, the saved schema's JSON, Go benchmark lines
// for benchstat and Markdown; a run across kernels; a profile (text,
// JSON, pprof, Callgrind) and one across kernels; the costliest packets
// (a table, JSON, a packet file); the ladder's validation; the
// verifier's statistics; the listings of the programs and packets
// commands (Build, ObjectListing, CaseListing), and the pcap and packet
// files. The HTML page with plots (--report DIR) is internal/htmlpage's,
// which embeds this package's wide table; what the two share, text safe
// on a terminal, JSON and tables, is internal/printable's.
//
// One registry (output.go) says which formats render which kind of
// content; the commands ask it for their formats, for help and checking,
// and write through Output, its one rule of standard output unless a
// file is given, and its one atomic file writer, WriteFile: an
// interrupted run never leaves half a file.
//
// It computes nothing of the findings: internal/engine does. It knows
// nothing of how the samples were taken: it renders results' types, and
// plain data the producer hands it where a renderer needs what is not
// saved (results.Profile's Layout, the frames of the packet file, the
// listings' programs and maps); deps_test.go holds it to that.
package report
