package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
)

// What the renderings of a profile and of the costliest packets share:
// their tables' light style, their JSON as encoding/json writes it (a
// run's, writeJSON, escapes more: printable.JSON), and how they fit text
// into a cell.

// lightTable is a table in light lines, its header as given and left,
// its rows aligned as rows says: the profile across kernels' and the
// costliest packets'.
func lightTable(w io.Writer, rows tw.CellAlignment) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(rows),
	)
}

// indentedJSON writes v as indented JSON, as encoding/json escapes it.
func indentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// clip shortens s to at most n characters, an ellipsis the last.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// sourceText is a line of source or machine code from a file or a guest,
// on its one line: a tab as a space, every other control or separator as
// its escape (printable.Line), so that none can forge a line of the
// profile.
func sourceText(s string) string { return printable.Line(strings.ReplaceAll(s, "\t", " ")) }

// oneLine is s with each run of white space, line breaks too, one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// wrapCell breaks s into lines of at most width runes, at spaces where it can.
func wrapCell(s string, width int) string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case len([]rune(line))+1+len([]rune(word)) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
