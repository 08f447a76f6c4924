// Package listing renders the listings of the programs and packets
// commands: the bundled builds, what an object holds (programs, maps,
// global variables), and the packet cases with what a program did to
// them, as tables of names from files (internal/printable), and the
// cases as a pcap. It takes plain data the producer fills: it reads no
// object and loads nothing. report's registry of formats calls it, and
// report names its types for the commands (report.ObjectListing, ...).
package listing
