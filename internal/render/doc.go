// Package render renders the results of xdpmicro that are not a run: a
// profile (results.ProfileReport) as text for people, JSON, pprof's
// profile.proto and Callgrind's format, and a profile across kernels
// (results.KernelProfiles) as a table and JSON; the costliest packets
// (results.Worst) as a table, JSON and the packet file that bench
// --packets takes; the listings of the programs and packets commands
// (the bundled builds, what an object holds, the packet cases with what
// a program did to them) and the cases as a pcap; and what validate
// found of the bundled ladder (results.Validation) as a table and JSON.
//
// It renders what results holds, and plain data the producer fills where
// a rendering needs what is not saved (a profile's Layout, the packet
// file's frames, an object's programs and maps): it loads, searches,
// counts and judges nothing. Its one importer is package report, whose
// registry of formats calls it and which names its listing types for the
// commands (report.ObjectListing, ...). It is a package of its own only
// to keep report within the module's size limit (docs/development.md,
// "Limits kept"); what it shares with report, text safe on a terminal,
// JSON and tables, is internal/printable.
package render
