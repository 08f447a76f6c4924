package printable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// String returns s as a terminal shows it as text, never as a command
// to the terminal: names and notes come from files anyone may have
// written (a saved result, a capture, an object's symbols), and a case
// named "\x1b]0;...\a" set the terminal's title through compare. Every
// control character but tab and line feed (C0, DEL and C1, which some
// terminals take as ESC [ and the like), every bidirectional override,
// which reorders what follows, the line and paragraph separators U+2028
// and U+2029, which an editor, a browser or a terminal may break a line
// at, and every byte that is not UTF-8 is written as a Go escape: \x1b,
// \u009b, \x9b, \u2028. Text without them is s.
func String(s string) string { return escape(s, "\t\n") }

// Cells is a table's row as Line has it, for tablewriter's row filter:
// escaped before the columns are measured, so that they line up, and
// each cell on its one line: a case named "a\n│ fake │ row" printed a
// row of its own.
func Cells(cells []string) []string {
	for i, c := range cells {
		cells[i] = Line(c)
	}
	return cells
}

// Line is String that keeps the text on one line: tab and line feed are
// escaped too.
func Line(s string) string { return escape(s, "") }

// escape writes the runes of s that a terminal would act on as escapes,
// but those in keep.
func escape(s, keep string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return unsafeRune(r, keep) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == utf8.RuneError, !unsafeRune(r, keep):
			b.WriteString(s[:size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		s = s[size:]
	}
	return b.String()
}

// unsafeRune says whether a terminal could act on r: a control character
// not in keep, a bidirectional override or isolate, a line or paragraph
// separator (a name holding one could start a row of its own), or a
// byte that is not UTF-8, which decodes as utf8.RuneError (escape tells
// it from a real U+FFFD, which it writes as itself).
func unsafeRune(r rune, keep string) bool {
	switch {
	case r == utf8.RuneError:
		return true
	case unicode.IsControl(r):
		return !strings.ContainsRune(keep, r)
	}
	return unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp)
}

// Write writes data, text rendered for a terminal, to w as String has it.
func Write(w io.Writer, data []byte) error {
	if bytes.IndexFunc(data, func(r rune) bool { return unsafeRune(r, "\t\n") }) >= 0 {
		data = []byte(String(string(data)))
	}
	_, err := w.Write(data)
	return err
}

// Writer writes to w what is written to it as String has it, each Write
// on its own: for output streamed a line or a string at a time, too large
// to hold whole (a rune cut between two writes would be written as
// escaped bytes, never as itself).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (p writer) Write(data []byte) (int, error) {
	if err := Write(p.w, data); err != nil {
		return 0, err
	}
	return len(data), nil
}

// Table is a table of names from files, which it writes as text (String),
// escaped before its columns are measured.
func Table(w io.Writer) *tablewriter.Table {
	return tablewriter.NewWriter(w).Options(tablewriter.WithRowFilter(tw.CellFilter{Global: Cells}))
}

// FigureTable is a table of figures and names from files (String),
// its columns aligned as given and right beyond those, so that figures'
// decimal points line up.
func FigureTable(w io.Writer, columns ...tw.Align) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			Global:    tw.AlignRight,
			PerColumn: columns,
		}),
		tablewriter.WithRowFilter(tw.CellFilter{Global: Cells}),
	)
}

// JSON writes v as indented JSON whose strings hold the C1 controls and
// bidirectional overrides as \u escapes, nothing written if v cannot be
// encoded.
func JSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err // before a byte is written
	}
	_, err := w.Write(jsonEscape(buf.Bytes()))
	return err
}

// jsonEscape writes, in JSON that encoding/json wrote, the C1 controls
// and bidirectional overrides it leaves as they are as \u escapes, which
// read back the same: JSON on a terminal is text too (see String).
// Outside strings JSON is ASCII, so every such rune is in a string.
func jsonEscape(data []byte) []byte {
	if !bytes.ContainsFunc(data, func(r rune) bool { return r >= 0x80 && unsafeRune(r, "") && r != utf8.RuneError }) {
		return data
	}
	var out bytes.Buffer
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r >= 0x80 && r != utf8.RuneError && unsafeRune(r, "") {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(data[:size])
		}
		data = data[size:]
	}
	return out.Bytes()
}
