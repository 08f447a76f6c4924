// Package printable writes text that holds names from files (a saved
// result, a capture, an object's symbols) so that a terminal shows it as
// text and never acts on it: control characters, bidirectional overrides
// and bytes that are not UTF-8 as Go escapes, JSON's C1 controls as \u
// escapes, a table's cells escaped before its columns are measured.
// report and internal/render share it; it knows nothing of what they
// render.
package printable
