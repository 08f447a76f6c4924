package report

import (
	"io"

	"github.com/xdpmicro/xdpmicro/internal/printable"
)

// Printable returns s as a terminal shows it as text, never as a command
// to the terminal: names and notes come from files anyone may have
// written; internal/printable says what it escapes.
func Printable(s string) string { return printable.String(s) }

// PrintableCells is a table's row as Printable has it, each cell on one
// line (tab and line feed escaped too), for tablewriter's row filter:
// escaped before the columns are measured, so that they line up.
func PrintableCells(cells []string) []string { return printable.Cells(cells) }

// PrintableLine is Printable that keeps the text on one line: tab and
// line feed are escaped too, for a line that quotes names from files (an
// error, a note, the progress bar's case), which a name holding a line
// feed could otherwise forge a line after.
func PrintableLine(s string) string { return printable.Line(s) }

// printableLine is PrintableLine, as this package's renderers call it.
func printableLine(s string) string { return printable.Line(s) }

// WritePrintable writes data, text rendered for a terminal, to w as
// Printable has it.
func WritePrintable(w io.Writer, data []byte) error { return printable.Write(w, data) }

// PrintableWriter writes to w what is written to it as Printable has it,
// each Write on its own: for output streamed too large to hold whole.
func PrintableWriter(w io.Writer) io.Writer { return printable.Writer(w) }
