// Package printable is the low-level text that report and
// internal/htmlpage share: it knows nothing of what they render.
//
// It writes text that holds names from files (a saved result, a capture,
// an object's symbols) so that a terminal shows it as text and never acts
// on it: control characters, bidirectional overrides and bytes that are
// not UTF-8 as Go escapes, JSON's C1 controls as \u escapes, a table's
// cells escaped before its columns are measured (printable.go); its
// tables of names and of figures, and its JSON.
//
// And it formats the figures the table and the HTML page both print
// (figures.go): nanoseconds, p-values, verdicts, repeats and a linear
// case's call times, here so that the page, internal, and report, public,
// print them alike without report exporting its formatting.
package printable
