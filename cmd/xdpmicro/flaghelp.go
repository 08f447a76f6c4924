package main

import (
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// A flag's usage string is the one text of its meaning: --help shows it,
// and the flag tables of docs/usage.md are generated from it (docs_test.go). Its
// first `back-quoted` word names the value, as pflag.UnquoteUsage reads it.
//
//go:generate go test -run ^TestDocsFlagTables$ . -update

// defaultAnnotation holds, as a pflag annotation, the words for a default
// that the flag's value alone does not tell ("chosen", "the object's only
// measurable program").
const defaultAnnotation = "xdpmicro/default"

// describeDefault says in words what flag name does when it is not given,
// in place of its value: for defaults that depend on other flags or on
// the object.
func describeDefault(fl *pflag.FlagSet, name, words string) {
	_ = fl.SetAnnotation(name, defaultAnnotation, []string{words})
}

// explainDefault keeps flag name's default value shown and says what it
// means: "0: chosen".
func explainDefault(fl *pflag.FlagSet, name, meaning string) {
	describeDefault(fl, name, fl.Lookup(name).DefValue+": "+meaning)
}

// described returns the words for f's default, if it has any.
func described(f *pflag.Flag) (string, bool) {
	words := f.Annotations[defaultAnnotation]
	if len(words) == 0 {
		return "", false
	}
	return words[0], true
}

// hiddenDefault wraps a flag's value so that pflag, seeing no type it
// knows and an empty DefValue, prints no default of its own.
type hiddenDefault struct{ pflag.Value }

// flagUsages renders fs as pflag does, with the words for described
// defaults and wrapped to width.
func flagUsages(fs *pflag.FlagSet, width int) string {
	shown := pflag.NewFlagSet("", pflag.ContinueOnError)
	shown.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		c := *f
		if words, ok := described(f); ok {
			c.Usage += " (default " + words + ")"
			c.Value, c.DefValue = hiddenDefault{f.Value}, ""
		}
		shown.AddFlag(&c)
	})
	return shown.FlagUsagesWrapped(width)
}

// helpWidth is the width flag help is wrapped to: the terminal's, up to
// maxHelpWidth, else maxHelpWidth.
func helpWidth(cmd *cobra.Command) int {
	const maxHelpWidth = 100
	if f, ok := cmd.OutOrStdout().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return min(w, maxHelpWidth)
		}
	}
	return maxHelpWidth
}

// documentFlags makes the commands under root list their flags in the
// order they were registered (grouped by topic), and their help show
// described defaults, wrapped: cobra's usage template with its flag list
// rendered by flagUsages.
func documentFlags(root *cobra.Command) {
	addTemplateFunc.Do(func() {
		cobra.AddTemplateFunc("localFlagUsages", func(cmd *cobra.Command) string {
			return flagUsages(cmd.LocalFlags(), helpWidth(cmd))
		})
	})
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
		"{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}",
		"{{localFlagUsages . | trimTrailingWhitespaces}}", 1))
	for _, c := range root.Commands() {
		c.Flags().SortFlags = false
	}
}

// addTemplateFunc guards cobra's template functions, a global map, from
// commands built concurrently (tests).
var addTemplateFunc sync.Once
