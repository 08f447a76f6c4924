package main

import (
	"errors"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/report"
)

var update = flag.Bool("update", false, "rewrite the generated flag tables of docs/usage.md")

// The README is the front page; the manual is in docs/*.md.
const (
	readmePath = "../../README.md"
	docsDir    = "../../docs"
	usagePath  = docsDir + "/usage.md"
	// formatsPath is where the output formats are described.
	formatsPath = docsDir + "/output-formats.md"
)

// The flag tables of docs/usage.md are generated from the commands'
// flags: their usage strings and defaults, so that the manual and --help
// cannot tell two stories. Between `<!-- flags:NAME -->` and
// `<!-- /flags -->` docs/usage.md holds what flagRegions renders for NAME.
func TestDocsFlagTables(t *testing.T) {
	data, err := os.ReadFile(usagePath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fillFlagRegions(string(data), rootCommand())
	if err != nil {
		t.Fatal(err)
	}
	if want == string(data) {
		return
	}
	if *update {
		if err := safefs.WriteFile(usagePath, []byte(want)); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the flag tables of %s", usagePath)
		return
	}
	t.Errorf("docs/usage.md's flag tables differ from the commands' flags; regenerate them with\n"+
		"\tgo generate ./cmd/xdpmicro\n(or go test ./cmd/xdpmicro -run TestDocsFlagTables -update)\n%s", firstDifference(string(data), want))
}

// flagRegions are the generated regions of docs/usage.md, each required.
var flagRegions = map[string]func(root *cobra.Command) (string, error){
	"bench":  benchFlagTable,
	"others": otherFlagTable,
}

var regionMarks = regexp.MustCompile(`(?s)(<!-- flags:([a-z]+) -->\n)(.*?)(<!-- /flags -->\n)`)

// fillFlagRegions returns doc with every flag region rendered anew.
func fillFlagRegions(doc string, root *cobra.Command) (string, error) {
	var errs []error
	seen := map[string]bool{}
	filled := regionMarks.ReplaceAllStringFunc(doc, func(region string) string {
		m := regionMarks.FindStringSubmatch(region)
		render := flagRegions[m[2]]
		if render == nil {
			errs = append(errs, fmt.Errorf("docs/usage.md: unknown flag region %q", m[2]))
			return region
		}
		seen[m[2]] = true
		text, err := render(root)
		if err != nil {
			errs = append(errs, err)
			return region
		}
		// Blank lines around: a table must not run into the markers.
		return m[1] + "\n" + text + "\n" + m[4]
	})
	for name := range flagRegions {
		if !seen[name] {
			errs = append(errs, fmt.Errorf("docs/usage.md: no region <!-- flags:%s --> … <!-- /flags -->", name))
		}
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return filled, nil
}

// benchFlagTable is a row for each of bench's flags, in the order help
// lists them.
func benchFlagTable(root *cobra.Command) (string, error) {
	bench, err := subcommand(root, "bench")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	visibleFlags(bench, func(f *pflag.Flag) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", flagCell(f), defaultCell(f), meaningCell(f))
	})
	return b.String(), nil
}

// otherFlagTable says which of bench's flags each other command takes,
// then tabulates the flags bench lacks or has with another meaning or
// default.
func otherFlagTable(root *cobra.Command) (string, error) {
	bench, err := subcommand(root, "bench")
	if err != nil {
		return "", err
	}
	type row struct {
		flag     *pflag.Flag
		commands []string
	}
	var rows []*row
	var takes []string
	for _, cmd := range root.Commands() {
		if cmd == bench {
			continue
		}
		var shared []string
		visibleFlags(cmd, func(f *pflag.Flag) {
			if sameFlag(f, bench.Flags().Lookup(f.Name)) {
				shared = append(shared, "`--"+f.Name+"`")
				return
			}
			for _, r := range rows {
				if sameFlag(f, r.flag) {
					r.commands = append(r.commands, "`"+cmd.Name()+"`")
					return
				}
			}
			rows = append(rows, &row{flag: f, commands: []string{"`" + cmd.Name() + "`"}})
		})
		if len(shared) > 0 {
			takes = append(takes, "`xdpmicro "+cmd.Name()+"` takes "+andList(shared))
		}
	}
	var b strings.Builder
	if len(takes) > 0 {
		fmt.Fprintf(&b, "Of bench's flags, %s, with the same meaning and default.\n", strings.Join(takes, "; "))
	}
	if len(rows) > 0 {
		b.WriteString("Their other flags, and those that mean something else there:\n\n")
		b.WriteString("| flag | command | default | meaning |\n|---|---|---|---|\n")
		for _, r := range rows {
			meaning := meaningCell(r.flag)
			if bf := bench.Flags().Lookup(r.flag.Name); bf != nil && bf.Usage == r.flag.Usage {
				meaning = "as for `bench`" // only the default differs
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", flagCell(r.flag), strings.Join(r.commands, ", "), defaultCell(r.flag), meaning)
		}
	}
	return b.String(), nil
}

func subcommand(root *cobra.Command, name string) (*cobra.Command, error) {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no command %s", name)
}

// visibleFlags visits the flags of cmd that help lists, but --help.
func visibleFlags(cmd *cobra.Command, fn func(*pflag.Flag)) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			fn(f)
		}
	})
}

// sameFlag says whether two commands' flags read the same in help.
func sameFlag(f, g *pflag.Flag) bool {
	return g != nil && f.Name == g.Name && f.Shorthand == g.Shorthand && f.Usage == g.Usage && defaultCell(f) == defaultCell(g)
}

// flagCell is the flag as it is typed: `--output FILE`, `-o`.
func flagCell(f *pflag.Flag) string {
	placeholder, _ := pflag.UnquoteUsage(f)
	cell := "`--" + f.Name
	if placeholder != "" {
		cell += " " + placeholder
	}
	cell += "`"
	if f.Shorthand != "" {
		cell += ", `-" + f.Shorthand + "`"
	}
	return cell
}

// defaultCell is the flag's described default, else its value.
func defaultCell(f *pflag.Flag) string {
	if words, ok := described(f); ok {
		return markdown(words)
	}
	switch {
	case f.Value.Type() == "bool" && f.DefValue == "true":
		return "on"
	case f.Value.Type() == "bool":
		return "off"
	case f.DefValue == "" || f.DefValue == "[]":
		return "—"
	}
	return "`" + f.DefValue + "`"
}

func meaningCell(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	return markdown(usage)
}

// codeWords are what the flag tables set as code in a usage string:
// flags, and identifiers with underscores (XDP_PASS, max_entries, TC_ACT_*).
var codeWords = regexp.MustCompile(`--[a-z][a-z0-9-]*(=[a-z0-9]+)?|\b_*[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*_([A-Za-z0-9]+\b|\*)`)

// docsFile is a docs page a usage string names: docs/packets.md.
var docsFile = regexp.MustCompile(`\bdocs/([a-z-]+\.md)\b`)

// markdown sets a help text for a table cell of docs/usage.md; a docs
// page it names becomes a link.
func markdown(s string) string {
	s = codeWords.ReplaceAllString(s, "`$0`")
	s = docsFile.ReplaceAllString(s, "[$1]($1)")
	return strings.ReplaceAll(s, "|", `\|`)
}

// andList joins "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// firstDifference shows where got and want part, a few lines each.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	excerpt := func(lines []string) string {
		return strings.Join(lines[i:min(i+3, len(lines))], "\n")
	}
	return fmt.Sprintf("line %d of docs/usage.md:\n%s\nwould be:\n%s", i+1, excerpt(g), excerpt(w))
}

// Every flag that takes a value names it with a back-quoted placeholder,
// so that neither help nor docs/usage.md shows a Go type ("string") instead.
func TestFlagPlaceholders(t *testing.T) {
	for _, cmd := range rootCommand().Commands() {
		visibleFlags(cmd, func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			if !strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: its usage names no `PLACEHOLDER` for its value", cmd.Name(), f.Name)
			}
		})
	}
}

// The manual names every command (docs/usage.md) and every output format
// (docs/output-formats.md).
func TestReadmeAndDocsNameCommands(t *testing.T) {
	formats, err := os.ReadFile(formatsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Formats() {
		if !strings.Contains(string(formats), "`"+f+"`") {
			t.Errorf("format %s is not in %s", f, formatsPath)
		}
	}
	usage, err := os.ReadFile(usagePath)
	if err != nil {
		t.Fatal(err)
	}
	root := rootCommand()
	var commands []string
	for _, c := range root.Commands() {
		commands = append(commands, c.Name())
	}
	for _, c := range []*cobra.Command{analyzeCommand(), benchCommand(), compareCommand(), packetsCommand(), profileCommand(), programsCommand(), validateCommand()} {
		if !strings.Contains(string(usage), "xdpmicro "+c.Name()) || !slices.Contains(commands, c.Name()) {
			t.Errorf("command %s is not in %s", c.Name(), usagePath)
		}
	}
}

// maxReadmeLines is the most lines the README, a front page, may have.
const maxReadmeLines = 200

// The README is a front page: at most maxReadmeLines lines, its first two
// commands the main job and the tests, and links only to docs pages that
// exist.
func TestReadmeFrontPage(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to docs/*.md", n, maxReadmeLines)
	}
	var commands []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "    ") && strings.TrimSpace(line) != "" {
			commands = append(commands, strings.TrimSpace(line))
		}
	}
	for i, want := range []string{
		"go build -o xdpmicro ./cmd/xdpmicro && sudo ./xdpmicro bench",
		"go test -p 1 -exec sudo ./...",
	} {
		if i >= len(commands) || !strings.HasPrefix(commands[i], want) {
			t.Errorf("the README's command %d is not %q", i+1, want)
		}
	}
	for _, l := range markdownLinks(text) {
		if isExternal(l.target) {
			continue
		}
		if !strings.HasPrefix(l.target, "docs/") || !strings.Contains(l.target, ".md") {
			t.Errorf("README.md:%d: links to %s, not a docs/*.md page", l.line, l.target)
		}
	}
	checkLinks(t, readmePath, text)
}

// Every relative link of the README and of the docs pages resolves: the
// file exists, and an anchor names one of its headings.
func TestReadmeAndDocsLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatalf("no docs pages in %s", docsDir)
	}
	for _, page := range append(pages, readmePath) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		checkLinks(t, page, string(data))
	}
}

// checkLinks reports the relative links of page, a markdown file, whose
// file or heading is missing.
func checkLinks(t *testing.T, page, text string) {
	t.Helper()
	for _, l := range markdownLinks(text) {
		if isExternal(l.target) {
			continue
		}
		file, anchor, _ := strings.Cut(l.target, "#")
		path := page
		if file != "" {
			path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s:%d: link to %s: %v", filepath.Base(page), l.line, l.target, err)
			continue
		}
		if anchor != "" && !slices.Contains(headingAnchors(string(data)), anchor) {
			t.Errorf("%s:%d: link to %s: %s has no heading #%s", filepath.Base(page), l.line, l.target, file, anchor)
		}
	}
}

type link struct {
	line   int
	target string
}

var (
	linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
)

// proseLines yields a markdown text's lines outside fenced code blocks,
// numbered from 1.
func proseLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		fenced := false
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			if !fenced && !yield(i+1, line) {
				return
			}
		}
	}
}

// markdownLinks returns the link and image targets of a markdown text,
// outside code blocks and code spans.
func markdownLinks(text string) []link {
	var links []link
	for n, line := range proseLines(text) {
		if strings.HasPrefix(line, "    ") {
			continue
		}
		for _, m := range linkTarget.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			links = append(links, link{line: n, target: m[1]})
		}
	}
	return links
}

func isExternal(target string) bool {
	return strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:")
}

// headingAnchors returns the anchors GitHub gives a markdown text's
// headings: lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(text string) []string {
	var anchors []string
	for _, line := range proseLines(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range heading {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}
