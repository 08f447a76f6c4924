package printable

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// String writes what a terminal would act on as Go escapes, and leaves
// text, tabs and line feeds, and a real U+FFFD, as they are.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"fizz":                           "fizz",
		"fizz\tbuzz\n":                   "fizz\tbuzz\n",
		"±2 % → │ ✓ \ufffd":              "±2 % → │ ✓ \ufffd",
		"a\x1b]0;title\x07b":             `a\x1b]0;title\x07b`,
		"a\x1b[31mred":                   `a\x1b[31mred`,
		"csi\u009b2J":                    `csi\u009b2J`,
		"raw\x9b2J":                      `raw\x9b2J`,
		"cr\rdel\x7f":                    `cr\x0ddel\x7f`,
		"bidi\u202eevil\u2066":           `bidi\u202eevil\u2066`,
		"cut\xe2\x94":                    `cut\xe2\x94`,
		"\x00":                           `\x00`,
		"\u0085next line, a C1 control ": `\u0085next line, a C1 control `,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\tb\nc"); got != `a\x09b\x0ac` {
		t.Errorf("Line kept a tab or a line feed: %q", got)
	}
}

// JSON written for a terminal holds C1 controls and bidirectional
// overrides as \u escapes, and reads back the same.
func TestJSONEscapesC1(t *testing.T) {
	names := []string{"csi\u009b2J", "bidi\u202e", "esc\x1b", "plain ±"}
	var buf bytes.Buffer
	if err := JSON(&buf, names); err != nil {
		t.Fatal(err)
	}
	for _, r := range buf.String() {
		if r >= 0x80 && unsafeRune(r, "") || r == 0x1b {
			t.Fatalf("the JSON holds %U: %s", r, buf.String())
		}
	}
	var back []string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != len(names) {
		t.Fatalf("read back %q: %v", back, err)
	}
	for i := range names {
		if back[i] != names[i] {
			t.Errorf("read back %q as %q", names[i], back[i])
		}
	}
}

// A line or paragraph separator is written as its escape, as a line feed
// is on a line: an editor or a browser breaks a line at it. A table's
// cells keep to their one line.
func TestSeparatorsEscaped(t *testing.T) {
	if got := String("a\u2028b\u2029c"); got != `a\u2028b\u2029c` {
		t.Errorf("String kept a separator: %q", got)
	}
	cells := Cells([]string{"a\n│ fake │ row", "tab\there", "ok"})
	if want := []string{`a\x0a│ fake │ row`, `tab\x09here`, "ok"}; !slices.Equal(cells, want) {
		t.Errorf("Cells = %q, want %q", cells, want)
	}
	var buf bytes.Buffer
	table := Table(&buf)
	table.Header("case")
	_ = table.Append([]string{"a\nb"})
	_ = table.Render()
	if strings.Count(buf.String(), "\n") != 5 || !strings.Contains(buf.String(), `a\x0ab`) {
		t.Errorf("a name's line feed made a row:\n%s", buf.String())
	}
}
