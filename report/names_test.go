package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// hostileComparison is a comparison of two builds whose names came from
// a saved file written to ping, link and spoof a row: issue 59's.
func hostileComparison(t *testing.T, names ...string) *results.Run {
	t.Helper()
	res := runfixture.TwoBuilds(t)
	for p := range res.Programs {
		res.Programs[p].Info.Name = "prog @octocat https://evil.example/p"
		res.Programs[p].Object = "obj\nbefore: forged"
		for c := range res.Programs[p].Results {
			res.Programs[p].Results[c].Name = names[c]
		}
	}
	return runfixture.Interleaved(t, res, stats.DefaultOptions())
}

// What GitHub turns into a mention, a link or a reference in a comment
// or a job's summary: @user and @org/team after a non-word character,
// a scheme's "://" and "www." (cmark-gfm's extended autolinks), an
// e-mail address, #123 and GH-123.
var (
	mention   = regexp.MustCompile(`(^|[^A-Za-z0-9_` + "`" + `])@[A-Za-z0-9]`)
	autolinks = regexp.MustCompile(`(?i)([a-z]://|(^|[\s*_~(])www\.|[A-Za-z0-9._+-]@[A-Za-z0-9]|#[0-9]|\bGH-[0-9])`)
)

// A case named "@octocat cc @github/security" or "https://evil.example/x"
// pinged people and made a link where compare's Markdown was pasted:
// every mention and link in a name is broken by a word joiner, which
// shows as nothing.
func TestMarkdownNoMentionsOrLinks(t *testing.T) {
	r := hostileComparison(t, "@octocat cc @github/security", "https://evil.example/x www.evil.example me@evil.example #1 FTP://x GH-2")
	r.Comparison.Warnings = append(r.Comparison.Warnings, "see @octocat at https://evil.example")
	md := rendered(t, r, Markdown)
	// The fold's block is code, in which GitHub links nothing.
	text, _, _ := strings.Cut(md, "<details>")
	for _, pattern := range []*regexp.Regexp{mention, autolinks} {
		if m := pattern.FindAllString(text, -1); m != nil {
			t.Errorf("the Markdown holds %q, which GitHub would link or notify:\n%s", m, md)
		}
	}
	for _, want := range []string{
		"| @\u2060octocat cc @\u2060github/security |",
		"| https:\u2060//evil.example/x www\u2060.evil.example me@\u2060evil.example \\#\u20601 FTP:\u2060//x GH\u2060-2 |",
		"### prog @\u2060octocat https:\u2060//evil.example/p in obj\\\\x0abefore: forged",
		"> **warning**: see @\u2060octocat at https:\u2060//evil.example",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	checkTables(t, md)
}

// A case named with a line feed and a row after it printed a row of its
// own in compare's table; tab, U+2028 and U+2029 made layout too. Every
// text output writes them as escapes: the table's cells, its titles and
// the lines under it, Markdown's cells, gobench's names.
func TestNamesStayOnTheirLine(t *testing.T) {
	spoof := "a\n│ fake │ 1 → 1 │ 1.00 │ 1.00 │ +0 │ no change │"
	r := hostileComparison(t, spoof, "tab\there\u2028ls\u2029ps\u0085nel")
	for _, f := range []Format{Table, Markdown, GoBench} {
		for _, v := range []View{{}, {Wide: true, Verbose: true}} {
			out := renderView(t, r, f, v)
			for _, bad := range []string{"\t", "\u2028", "\u2029", "\u0085", "\nbefore: forged", "\n│ fake", "| fake"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s %+v holds %q as layout:\n%s", f, v, bad, out)
				}
			}
			if f != GoBench && !strings.Contains(strings.ReplaceAll(out, `\\`, `\`), `a\x0a│ fake │`) { // Markdown doubles a backslash
				t.Errorf("%s %+v lacks the name escaped:\n%s", f, v, out)
			}
		}
	}
	table := renderView(t, r, Table, View{Verbose: true})
	for _, want := range []string{`tab\x09here\u2028ls\u2029ps\u0085nel`, `obj\x0abefore: forged`} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	// The run's own table, one program's rows.
	run := newReport(t)
	run.Programs[0].Results[0].Name = spoof
	run.Programs[0].Info.Name = "fizz\nfizzbuzz in v4"
	out := renderView(t, run, Table, View{Verbose: true})
	if strings.Contains(out, "\n│ fake") || strings.Contains(out, "\nfizzbuzz in v4") || !strings.Contains(out, `fizz\x0afizzbuzz in v4`) {
		t.Errorf("a run's table keeps a name's line feed as layout:\n%s", out)
	}
}
