package report

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A run in Markdown: the title as a heading, one table row per case, the
// notes folded under it.
func TestMarkdownRun(t *testing.T) {
	md := rendered(t, newReport(t), Markdown)
	for _, want := range []string{
		"### fizzbuzz in v4 (bundled), XDP\n",
		"| case | return | insns |",
		"| :--- | :--- | ---: |",
		"| fizz | XDP\\_PASS |",
		"| short | XDP\\_ABORTED |",
		"<details><summary>Notes and method</summary>\n\n```text\n",
		"fizz: 2 sample(s) restarted after a signal (EINTR)",
		"```\n\n</details>\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	checkTables(t, md)
}

// A comparison in Markdown: each case's verdict in its row, the tally in
// bold, a warning quoted outside the fold.
func TestMarkdownComparison(t *testing.T) {
	r := runfixture.Interleaved(t, runfixture.TwoBuilds(t), stats.DefaultOptions())
	r.Comparison.Warnings = append(r.Comparison.Warnings, "kernels differ: 6.1 before, 6.18 after")
	md := rendered(t, r, Markdown)
	for _, want := range []string{
		"### fizzbuzz in v4 (bundled) → fizzbuzz in v4 (bundled)\n",
		`| case | insns | before, ns | after, ns | change % \[95% CI\] | verdict | outliers |`,
		"| :--- | ---: | ---: | ---: | ---: | :--- | ---: |",
		"| regressed |",
		"**0 improved, 2 regressed, 0 no change, 0 within noise** (by mean; noise threshold ±2 %)",
		"> **warning**: kernels differ: 6.1 before, 6.18 after\n",
		"<details><summary>Notes and method</summary>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "| regressed |") != 2 {
		t.Errorf("want a verdict row for each of the 2 cases:\n%s", md)
	}
	checkTables(t, md)
}

// Names come from files: a | stays in its cell, a control character is
// written as its escape, markup is text, and a run of backticks cannot
// close the fold's block.
func TestMarkdownEscapes(t *testing.T) {
	r := newReport(t)
	p := &r.Programs[0]
	p.Info.Name = "evil|prog\x1b]0;pwned\a"
	p.Results[0].Name = "a|b [x](javascript:y) *b* <script>"
	p.Results[1].Name = "tab\there"
	r.Environment.Notes = append(r.Environment.Notes, "a note with ``` fences\u009b and a | bar")
	md := rendered(t, r, Markdown)
	for _, bad := range []string{"\x1b", "\a", "\u009b", "\t"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q as it is:\n%s", bad, md)
		}
	}
	for _, want := range []string{
		`### evil\|prog\\x1b\]0;pwned\\x07 in v4 (bundled), XDP`,
		`| a\|b \[x\](javascript:y) \*b\* &lt;script&gt; |`,
		`| tab\\x09here |`,
		"````text\n", // longer than the note's ```
		"a note with ``` fences\\u009b and a | bar",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	checkTables(t, md)
	// As GitHub renders it, where cmark-gfm is installed: one table, its
	// cells as written, the notes in the fold, nothing run as HTML.
	if _, err := exec.LookPath("cmark-gfm"); err != nil {
		t.Log("cmark-gfm not installed: the rendering is not checked")
		return
	}
	cmd := exec.Command("cmark-gfm", "--extension", "table", "--unsafe") // GitHub keeps <details>
	cmd.Stdin = strings.NewReader(md)
	html, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	for _, want := range []string{`<td align="left">a|b [x](javascript:y) *b* &lt;script&gt;</td>`, "<h3>evil|prog\\x1b]0;pwned\\x07 in v4 (bundled), XDP</h3>", "<details><summary>Notes and method</summary>", "<pre><code class=\"language-text\">"} {
		if !strings.Contains(page, want) {
			t.Errorf("cmark-gfm's HTML lacks %q:\n%s", want, page)
		}
	}
	if strings.Count(page, "<table>") != 1 || strings.Count(page, "<tr>") != 3 || strings.Contains(page, "<a ") || strings.Contains(page, "<script") {
		t.Errorf("cmark-gfm's HTML: want one table of a header and two rows, no link, no script:\n%s", page)
	}
	if os.Getenv("XDPMICRO_SHOW_MARKDOWN") != "" {
		t.Logf("%s\n%s", md, page)
	}
}

// checkTables checks that every row of every table has its header's
// number of cells, counting only the | that are not escaped.
func checkTables(t *testing.T, md string) {
	t.Helper()
	want := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = 0
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if want == 0 {
			want = n
		} else if n != want {
			t.Errorf("row %q has %d bars, its header %d", line, n, want)
		}
	}
}

// Several programs' runs in Markdown: each its heading and table, one
// after the other.
func TestMarkdownAll(t *testing.T) {
	a, b := newReport(t), newReport(t)
	b.Programs[0].Info.Name = "other"
	var buf strings.Builder
	if err := (Output{Format: Markdown}).Write(&buf, OfRuns([]*results.Run{a, b})); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	first, second := strings.Index(md, "### fizzbuzz in v4 (bundled), XDP\n"), strings.Index(md, "### other in v4 (bundled), XDP\n")
	if first < 0 || second < first || strings.Count(md, "<details>") != 2 || !strings.Contains(md, "</details>\n\n### other") {
		t.Errorf("two runs in Markdown:\n%s", md)
	}
	checkTables(t, md)
}
