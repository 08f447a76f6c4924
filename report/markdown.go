package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/results"
)

// Markdown is GitHub-flavoured Markdown, for a pull request's comment or
// a job's summary ($GITHUB_STEP_SUMMARY): the table and, for a
// comparison, the verdicts, as the terminal's table has them, with the
// lines under it folded in a <details> block.
const Markdown Format = "markdown"

// writeMarkdown writes the report as Markdown. Every cell and title is
// text from Printable (names come from files: a control character is
// written as its escape) with Markdown's own characters escaped, so a
// case named "a|b" stays one cell and "[x](y)" no link.
func (r doc) writeMarkdown(w io.Writer, v View) error {
	var out bytes.Buffer
	t := tableView{r, v}
	switch {
	case r.Comparison != nil && r.Comparison.Live == nil:
		t.markdownComparison(&out)
	case r.Comparison != nil:
		// A live comparison's table has rows of two kinds: as the
		// terminal has it, in a block that keeps its columns.
		var table bytes.Buffer
		if err := t.write(&table); err != nil {
			return err
		}
		fmt.Fprintf(&out, "### %s → %s\n\n", markdownText(r.Comparison.Before), markdownText(r.Comparison.After))
		writeFenced(&out, table.String())
	default:
		for _, p := range r.Programs {
			t.markdownProgram(&out, p)
		}
	}
	// Every line under the tables, the method too: folded, so that the
	// comment reads at a glance.
	var notes bytes.Buffer
	all := tableView{r, View{Wide: v.Wide, Verbose: true}}
	if err := all.writeLines(io.Discard, lines{w: &notes, verbose: true}); err != nil {
		return err
	}
	if notes.Len() > 0 {
		out.WriteString("<details><summary>Notes and method</summary>\n\n")
		writeFenced(&out, notes.String())
		out.WriteString("</details>\n")
	}
	_, err := w.Write(out.Bytes())
	return err
}

// markdownProgram writes a program's title and table.
func (r tableView) markdownProgram(w io.Writer, p results.Program) {
	title := Title(p)
	if p.Label != "" {
		title = p.Label + ": " + title
	}
	fmt.Fprintf(w, "### %s\n\n", markdownText(title))
	allSingle, _ := r.singleCases()
	est := r.Settings.ChosenEstimator()
	other, otherName := otherEstimator(est)
	aligns, header := r.programHeader(est, otherName, outliersKinds)
	var rows [][]string
	for _, c := range p.Results {
		var t *tally
		if tc, ok := caseTally(p, c); ok {
			t = &tc
		}
		rows = append(rows, r.caseRow(c, est, other, allSingle, outliersKinds, t))
	}
	writeMarkdownTable(w, aligns, header, rows)
}

// markdownComparison writes the builds compared, the table of changes
// with each case's verdict, and the verdicts' tally.
func (r tableView) markdownComparison(w io.Writer) {
	c := comparison{r.Comparison}
	fmt.Fprintf(w, "### %s → %s\n\n", markdownText(c.Before), markdownText(c.After))
	est := c.Estimator
	if est == "" {
		est = string(results.Mean)
	}
	aligns, header := comparisonHeader(est, r.Settings.Confidence, r.Wide, outliersKinds)
	var rows [][]string
	for _, cc := range c.Cases {
		row := c.row(cc, r.Wide)
		cell := ""
		if s, ok := r.comparedSides(cc); ok {
			cell = s.cell(outliersKinds, r.Wide)
		}
		rows = append(rows, append(row, cell))
	}
	writeMarkdownTable(w, aligns, header, rows)
	fmt.Fprintf(w, "**%s** (by %s; noise threshold ±%g %%)\n\n", markdownText(c.Tally()), markdownText(est), 100*c.NoiseThreshold)
	for _, cc := range c.Cases {
		if cc.ActionChanged() {
			fmt.Fprintf(w, "> **%s: action changed**: %s before, %s after\n\n", markdownText(cc.Name), markdownText(cc.ActionBefore), markdownText(cc.ActionAfter))
		}
	}
	for _, warning := range c.Warnings {
		fmt.Fprintf(w, "> **warning**: %s\n\n", markdownText(warning))
	}
}

// writeMarkdownTable writes a GitHub table: the header, its alignment
// row (columns past aligns right, as the terminal's), the rows.
func writeMarkdownTable(w io.Writer, aligns []tw.Align, header []any, rows [][]string) {
	cells := make([]string, len(header))
	rule := make([]string, len(header))
	for i, h := range header {
		cells[i] = markdownText(fmt.Sprint(h))
		rule[i] = "---:"
		if i < len(aligns) && aligns[i] == tw.AlignLeft {
			rule[i] = ":---"
		}
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(cells, " | "), strings.Join(rule, " | "))
	for _, row := range rows {
		cells := make([]string, len(header))
		for i := range cells {
			if i < len(row) {
				cells[i] = markdownText(row[i])
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}

// markdownEscaper escapes what Markdown would read as markup, or GitHub
// as HTML or math: a backslash before each, < > & as entities.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`, `~`, `\~`, `$`, `\$`, `#`, `\#`,
	`<`, `&lt;`, `>`, `&gt;`, `&`, `&amp;`)

// markdownText is s as one line of Markdown text: control characters
// (tab and line feed too) written as their escapes (Printable), what
// GitHub would link or notify unlinked, then Markdown's characters
// escaped.
func markdownText(s string) string { return markdownEscaper.Replace(unlinked(printableLine(s))) }

// wordJoiner (U+2060) shows as nothing and joins nothing: put inside a
// mention or a link, it breaks the pattern GitHub finds them by.
const wordJoiner = "\u2060"

// unlinked is s with nothing GitHub turns into a notification or a link
// in a comment or a job's summary: a case named "@octocat cc
// @github/security" pinged them, and "https://evil.example/x" was a
// link. A backslash escape does not stop either: GitHub finds mentions
// and issue references in the rendered text, and bare links as it
// parses. A word joiner goes after every '@' (a user, a team, an e-mail
// address) and '#' (#123, another issue), after the ':' of "://" (any
// scheme's link), inside "www." (a link without one) and inside "GH-"
// before a digit (GH-123, another issue).
func unlinked(s string) string {
	if !strings.ContainsAny(s, "@#:wWhH") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		switch {
		case s[i] == '@' || s[i] == '#':
			b.WriteString(wordJoiner)
		case s[i] == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(wordJoiner)
		case i >= 2 && strings.EqualFold(s[i-2:i+1], "www") && strings.HasPrefix(s[i+1:], "."):
			b.WriteString(wordJoiner)
		case i >= 1 && strings.EqualFold(s[i-1:i+1], "gh") && len(s) > i+2 && s[i+1] == '-' && s[i+2] >= '0' && s[i+2] <= '9':
			b.WriteString(wordJoiner)
		}
	}
	return b.String()
}

// writeFenced writes text in a fenced block, which Markdown shows as it
// is: its fence longer than any run of backticks in it, and the text as
// Printable has it.
func writeFenced(w io.Writer, text string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	fmt.Fprintf(w, "%stext\n%s", fence, Printable(text))
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s\n\n", fence)
}
