package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro/report"
)

var update = flag.Bool("update", false, "rewrite the README's generated flag tables")

const readmePath = "../../README.md"

// The README's flag tables are generated from the commands' flags: their
// usage strings and defaults, so that the README and --help cannot tell
// two stories. Between `<!-- flags:NAME -->` and `<!-- /flags -->` the
// README holds what flagRegion renders for NAME.
func TestReadmeFlagTables(t *testing.T) {
	data, err := os.ReadFile(readmePath)
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
		if err := renameio.WriteFile(readmePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the flag tables of %s", readmePath)
		return
	}
	t.Errorf("README.md's flag tables differ from the commands' flags; regenerate them with\n"+
		"\tgo generate ./cmd/xdpmicro\n(or go test ./cmd/xdpmicro -run TestReadmeFlagTables -update)\n%s", firstDifference(string(data), want))
}

// flagRegions are the README's generated regions, each required.
var flagRegions = map[string]func(root *cobra.Command) (string, error){
	"bench":  benchFlagTable,
	"others": otherFlagTable,
}

var regionMarks = regexp.MustCompile(`(?s)(<!-- flags:([a-z]+) -->\n)(.*?)(<!-- /flags -->\n)`)

// fillFlagRegions returns readme with every flag region rendered anew.
func fillFlagRegions(readme string, root *cobra.Command) (string, error) {
	var errs []error
	seen := map[string]bool{}
	filled := regionMarks.ReplaceAllStringFunc(readme, func(region string) string {
		m := regionMarks.FindStringSubmatch(region)
		render := flagRegions[m[2]]
		if render == nil {
			errs = append(errs, fmt.Errorf("README: unknown flag region %q", m[2]))
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
			errs = append(errs, fmt.Errorf("README: no region <!-- flags:%s --> … <!-- /flags -->", name))
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

// codeWords are what the README sets as code in a usage string: flags,
// and identifiers with underscores (XDP_PASS, max_entries, TC_ACT_*).
var codeWords = regexp.MustCompile(`--[a-z][a-z0-9-]*(=[a-z0-9]+)?|\b_*[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*_([A-Za-z0-9]+\b|\*)`)

// markdown sets a help text for a table cell of the README.
func markdown(s string) string {
	s = strings.ReplaceAll(s, " in the README", ", below")
	s = codeWords.ReplaceAllString(s, "`$0`")
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
	return fmt.Sprintf("line %d of README.md:\n%s\nwould be:\n%s", i+1, excerpt(g), excerpt(w))
}

// Every flag that takes a value names it with a back-quoted placeholder,
// so that neither help nor the README shows a Go type ("string") instead.
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

// The README names every output format and every command.
func TestReadmeDocumentsCommands(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Formats() {
		if !strings.Contains(string(data), "`"+f+"`") {
			t.Errorf("format %s is not in the README", f)
		}
	}
	root := rootCommand()
	var commands []string
	for _, c := range root.Commands() {
		commands = append(commands, c.Name())
	}
	for _, c := range []*cobra.Command{benchCommand(), compareCommand(), packetsCommand(), programsCommand(), validateCommand()} {
		if !strings.Contains(string(data), "xdpmicro "+c.Name()) || !slices.Contains(commands, c.Name()) {
			t.Errorf("command %s is not in the README", c.Name())
		}
	}
}
