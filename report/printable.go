package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s as a terminal shows it as text, never as a command
// to the terminal: names and notes come from files anyone may have
// written (a saved result, a capture, an object's symbols), and a case
// named "\x1b]0;...\a" set the terminal's title through compare. Every
// control character but tab and line feed (C0, DEL and C1, which some
// terminals take as ESC [ and the like), every bidirectional override,
// which reorders what follows, and every byte that is not UTF-8 is
// written as a Go escape: \x1b, \u009b, \x9b. Text without them is s.
func Printable(s string) string { return escape(s, "\t\n") }

// PrintableCells is a table's row as Printable has it, for tablewriter's
// row filter: escaped before the columns are measured, so that they line
// up.
func PrintableCells(cells []string) []string {
	for i, c := range cells {
		cells[i] = Printable(c)
	}
	return cells
}

// printableLine is Printable that keeps the text on one line: tab and
// line feed are escaped too.
func printableLine(s string) string { return escape(s, "") }

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
// not in keep, a bidirectional override or isolate, or a byte that is not
// UTF-8, which decodes as utf8.RuneError (escape tells it from a real
// U+FFFD, which it writes as itself).
func unsafeRune(r rune, keep string) bool {
	switch {
	case r == utf8.RuneError:
		return true
	case unicode.IsControl(r):
		return !strings.ContainsRune(keep, r)
	}
	return unicode.Is(unicode.Bidi_Control, r)
}

// WritePrintable writes data, text rendered for a terminal, to w as
// Printable has it.
func WritePrintable(w io.Writer, data []byte) error {
	if bytes.IndexFunc(data, func(r rune) bool { return unsafeRune(r, "\t\n") }) >= 0 {
		data = []byte(Printable(string(data)))
	}
	_, err := w.Write(data)
	return err
}

// PrintableWriter writes to w what is written to it as Printable has it,
// each Write on its own: for output streamed a line or a string at a
// time, too large to hold whole (a rune cut between two writes would be
// written as escaped bytes, never as itself).
func PrintableWriter(w io.Writer) io.Writer { return printableWriter{w} }

type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(data []byte) (int, error) {
	if err := WritePrintable(p.w, data); err != nil {
		return 0, err
	}
	return len(data), nil
}
