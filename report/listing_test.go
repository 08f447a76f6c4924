package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// An object's names come from its file: a name with a terminal's escape
// in it is written escaped, and the table's columns still line up.
func TestObjectNamesEscaped(t *testing.T) {
	l := ObjectListing{Name: "x.o", Programs: []ListedProgram{
		{Name: "xdp\x1b[31mred", Type: "XDP", Section: "xdp", Measurable: "yes"},
		{Name: "plain", Type: "XDP", Section: "xdp", Measurable: "yes"},
	}}
	var out bytes.Buffer
	if err := l.Write(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.Contains(text, "\x1b") || !strings.Contains(text, `xdp\x1b[31mred`) {
		t.Fatalf("the escape is not written escaped:\n%s", text)
	}
	var widths []int
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "XDP") {
			widths = append(widths, utf8.RuneCountInString(line))
		}
	}
	if len(widths) != 2 || widths[0] != widths[1] {
		t.Errorf("rows of widths %v:\n%s", widths, text)
	}
}
